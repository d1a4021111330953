// The repair source in the session simulator (issue 11 items 7 and 9, spec "Repair source"): the host's game applies a
// command partly (its engine throws halfway: the mod reports it refused and partial), the host marks its game, and the
// round that repairs it copies a player's save (ResyncSave to the player, its ResyncUpload frames, written as the
// host's feverlink3-resync-<id>.sav) instead of the host's broken world. Each seed also asserts that the session goes
// through what it is kept for, so a change to the plans that moves it away fails here instead of passing silently.
import { describe, expect, it } from 'vitest';
import { CI_SIM } from './ciOptions.ts';
import { checkRun } from './invariants.ts';
import { drawPlan, type Plan } from './plan.ts';
import { failureText, runSeed, type SeedResult } from './runSeed.ts';
import { runSession, type SessionRun } from './session.ts';

/** The first save the host's game loaded after the partial apply, and the game that wrote it. */
function repairSave(run: SessionRun): { name: string; savedBy: string } | undefined {
  const d = run.divergence!;
  const load = run.slots[0]!.game!.records.find((r) => r.what === 'load' && r.order >= d.order);
  if (load === undefined) return undefined;
  const saver = run.slots.find((s) => s.game?.records.some((r) => r.what === 'save' && r.name === load.name));
  return { name: load.name!, savedBy: saver?.plan.name ?? '(nobody)' };
}

/**
 * The seed's CI plan with a partial apply at `at` (the one it draws, set here so the test keeps it if the draws move):
 * the host's game fails halfway through its first command from `at` on, and the session runs 3 s past it.
 */
async function runWithPartialApply(seed: number, at: number): Promise<{ run: SessionRun; failures: string }> {
  const drawn = drawPlan(seed, CI_SIM.options);
  const plan: Plan = { ...drawn, runMs: Math.max(drawn.runMs, at + 3_000), divergence: { game: 0, at, kind: 'partial' } };
  const run = await runSession(plan);
  const { failures } = checkRun(run);
  return { run, failures: failures.map((f) => `${f.invariant}: ${f.detail}`).join('\n') };
}

describe('a partial apply on the host’s game is repaired from a player’s save', () => {
  it('the differing verdicts ask for a repair at once; the round copies p1’s upload, every world equal after (seed 23)', async () => {
    const r: SeedResult = await runSeed(23, CI_SIM.options);
    expect(r.happened).toEqual(expect.arrayContaining(['divergence:partial', 'repair:verdicts', 'repairSource', 'repaired', 'resyncVerified']));
    // the host's mod refused the command the engine threw on, which every other world game applied
    const d = r.run.divergence!;
    expect(d.kind).toBe('partial');
    const refused = r.run.slots[0]!.game!.records.find((x) => x.what === 'apply' && !x.ok && x.order >= d.order);
    expect(refused).toBeDefined();
    expect(r.run.slots[1]!.game!.records.some((x) => x.what === 'apply' && x.ok && x.from === refused!.from && x.seq === refused!.seq)).toBe(true);
    expect(repairSave(r.run)).toEqual({ name: 'feverlink3-resync-1', savedBy: 'p1' });
    expect(r.run.resyncs.last).toMatchObject({ id: 1, reason: 'verdicts of 3:1 differ', result: 'verified' });
    expect(r.checks.repaired).toBeGreaterThanOrEqual(2); // repaired, and from a player's save
    expect(r.failures).toEqual([]);
  }, 60_000);

  // Before the fix (actors/host/resync.ts `roundLoadsOver`): `repaired: the divergence injected into host at t=1400
  // (...) was repaired from host's own save feverlink3-resync-2, made after it, not a player's` — the host's game
  // applied a command partly while a hot join's round was Verifying; the round's end cleared every mark, so the next
  // round (the policy's, after its cooldown) copied the host's partly built world to every game.
  it('a partial apply after a round’s load keeps its mark past that round’s end (seed 29)', async () => {
    const { run, failures } = await runWithPartialApply(29, 593);
    expect(run.happened.has('divergence:partial')).toBe(true);
    expect(run.resyncs.rounds.verified).toBeGreaterThanOrEqual(2); // the hot join's round, then the repair
    expect(repairSave(run)).toEqual({ name: 'feverlink3-resync-2', savedBy: 'p1' });
    expect(failures).toBe('');
  }, 240_000);

  // Was: the source was the first unmarked capable player, outsiders included; after an early start every player is
  // one, so the round copied an outsider's own world over the session's (`repaired: … was repaired from p3's save
  // feverlink3-resync-1, made while its world was not the session's`). Now outsiders are never the source: with no
  // player in the session's world the host's world is copied, with the spec's warning.
  it('an outsider is never the repair source: the host’s world is copied with the warning (seed 53)', async () => {
    const { run, failures } = await runWithPartialApply(53, 639);
    expect(run.happened.has('startEarly')).toBe(true);
    expect(run.happened.has('divergence:partial')).toBe(true);
    expect(failures).toBe('');
    expect(repairSave(run)?.savedBy).toBe('host');
  }, 120_000);

  // Was: the partial apply stayed armed into the final pause, where the host's game applied the last flush item
  // partly after the run had settled: nothing could find or repair it (`detected` and `repaired` failed).
  it('a partial apply is not armed once the session winds down (seed 97)', async () => {
    const r = await runSeed(97, CI_SIM.options);
    expect(failureText(r)).toBe('');
    expect(r.happened).toEqual(expect.arrayContaining(['lateJoin', 'resyncVerified']));
  }, 60_000);
});
