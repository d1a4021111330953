// A partial apply on the host's game whose `partial` verdict reached the host late or never (the full-length run of
// 2026-12-01, docs/SIMULATOR.md; spec "Repair source"): the repair must still copy a player's save. Each seed also
// asserts that its session went through the scenario, so a change that moves it away fails here.
import { describe, expect, it } from 'vitest';
import { runSeed } from './runSeed.ts';
import type { SessionRun } from './session.ts';

/** The save the host's game loaded first after the partial apply: the last save of that name made before the load. */
function repairSave(run: SessionRun): { name: string; savedBy: string } | undefined {
  const d = run.divergence!;
  const load = run.slots[0]!.game!.records.find((r) => r.what === 'load' && r.order >= d.order);
  if (load === undefined) return undefined;
  const saves = run.slots.flatMap((slot) =>
    (slot.game?.records ?? []).filter((r) => r.what === 'save' && r.name === load.name && r.order < load.order).map((r) => ({ slot, order: r.order })));
  const last = saves.sort((a, b) => a.order - b.order).at(-1);
  return { name: load.name!, savedBy: last?.slot.plan.name ?? '(nobody)' };
}

describe('a partial apply whose verdict came late or never is repaired from a player’s save (full length)', () => {
  // Before the fix (mod/feverlink3_session.lua beforeStep): `repaired: the divergence injected into host at t=1000 (…)
  // was repaired from host's own save feverlink3-resync-1, made after it, not a player's`. The host's mod was loaded
  // again 60 ms after the partial apply; the verdict waited in the outbox for the next frame and was lost with the Lua
  // state, so the host never marked its game (and the repair came two checksum rounds later, from its own save).
  it('the mod loaded again before the next frame: the verdict is out already, the differing verdicts ask the repair (seed 478)', async () => {
    const r = await runSeed(478);
    expect(r.happened).toEqual(expect.arrayContaining(['divergence:partial', 'reloadAfterPartial', 'repair:verdicts', 'repairSource', 'resyncVerified']));
    expect(r.run.resyncs.last).toMatchObject({ id: 1, reason: 'verdicts of 2:1 differ', result: 'verified' });
    expect(repairSave(r.run)?.savedBy).toMatch(/^p\d+$/);
    expect(r.checks.repaired).toBeGreaterThanOrEqual(2);
    expect(r.failures).toEqual([]);
  }, 120_000);

  // Before the fix (machines/resync.ts Saving): `repaired: … was repaired from host's own save feverlink3-resync-2,
  // made after it, not a player's`. A hot join's round asked the host's game for its save; in that frame the game
  // applied a command partly and then saved, so its partial verdict came just before its SaveDone, after the round had
  // chosen the host's game as the source. Now the round asks a player instead (and the checker takes the last save
  // of that name as the one loaded: the player's upload replaced the host's own file).
  it('the host’s game marked while it saves: the round asks a player and copies its upload (seed 953)', async () => {
    const r = await runSeed(953);
    expect(r.happened).toEqual(expect.arrayContaining(['divergence:partial', 'sourceMarkedWhileSaving', 'repairSource', 'resyncVerified']));
    expect(repairSave(r.run)).toEqual({ name: 'feverlink3-resync-2', savedBy: expect.stringMatching(/^p\d+$/) });
    expect(r.checks.repaired).toBeGreaterThanOrEqual(2);
    expect(r.failures).toEqual([]);
  }, 120_000);
});
