// Full-length seeds of docs/SIMULATOR.md "Open: found by the full-length run of 2026-12-01": "a pause flush applied by
// the host and never by one player". Each FAILED before its fix with the failure quoted and passes after it; each also
// asserts that the session still goes through what made the failure, so a change to the plans that moves the seed
// away fails here instead of passing silently.
import { describe, expect, it } from 'vitest';
import type { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { drawPlan } from './plan.ts';
import { failureText, runSeed } from './runSeed.ts';

describe('a pause flush every game applies (full-length seeds)', () => {
  // Before the fix: `sameOrder: apply logs of host and p4 differ at entry 30 (stamps < 39000): t=2400 flush 0:31
  // stamp=2400 applied vs t=2400 action 0:9`. p4 loaded three rounds' saves (2400, 17200, 21800); its mod was then
  // loaded again at 39000 and read to_game.log's backlog again from the session's start. Only the save its world came
  // from (resync 3) was known as loaded, so round 1's ResyncLoad in the backlog loaded that save again: its world went
  // back to 2400 without round 1's flushes. Fixed in the mod (feverlink3_resync.lua `replacedLoad`, `loadedFrom`).
  it('a mod loaded again after three loads loads no earlier round’s save from its backlog (seed 323)', async () => {
    const plan = drawPlan(323);
    const reloaded = plan.games.findIndex((g) => g.reloadAt !== undefined);
    expect(plan.games[reloaded]?.name).toBe('p4');
    let fs: MemoryFs | undefined;
    const r = await runSeed(323, { onSession: (s) => void (fs = s.fs) });
    expect(r.happened).toEqual(expect.arrayContaining(['reload', 'reloadAfterLoads', 'resyncVerified']));
    // the scenario: the reload came after the three loads, and its backlog met each of their load lines again
    const modLog = fs!.readText('/s/p4/mod.log') ?? '';
    const reloadAt = modLog.indexOf('loaded again in the same session and world');
    expect(reloadAt).toBeGreaterThan(0);
    expect(modLog.slice(0, reloadAt).split('resuming to_game.log at the resync cursor').length - 1).toBe(3);
    const loads = r.run.slots[reloaded]!.game!.records.filter((x) => x.what === 'load').map((x) => x.name);
    // before the fix: resync-1, -2, -3, then resync-1 again (the reload)
    expect(loads).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2', 'feverlink3-resync-3']);
    expect(r.run.slots[reloaded]!.holdsWorld).toBe(true);
    expect(failureText(r)).toBe('');
  }, 90_000);

  // Before the fix: `sameOrder: apply logs of host and p2 differ at entry 29 (stamps < 5600): t=3200 flush 0:29
  // stamp=3200 applied vs t=3400 action 0:25`, with `progress` and `repaired`. p2 stood frozen for 36 s through three
  // rounds; its launcher wrote each round's load line and moved the resync cursor past the newest. Unfrozen, the mod
  // read round 1's load line, took the newer cursor as reached, loaded round 1's save and read on at the cursor: round
  // 1's flushes, round 3's load and everything between were skipped, and its Hello naming round 1's save made it an
  // outsider for good. Fixed in the mod (feverlink3_resync.lua `pending`: a superseded load is read past, standing).
  it('a game frozen through rounds loads the newest round’s save, not the first load line it reads (seed 1178)', async () => {
    const plan = drawPlan(1178);
    const frozen = plan.games.findIndex((g) => g.name === 'p2');
    expect(plan.games[frozen]!.freeze!.forMs).toBeGreaterThan(30_000);
    let fs: MemoryFs | undefined;
    const r = await runSeed(1178, { onSession: (s) => void (fs = s.fs) });
    expect(r.happened).toEqual(expect.arrayContaining(['freeze', 'loaded', 'resyncVerified']));
    const loads = r.run.slots[frozen]!.game!.records.filter((x) => x.what === 'load').map((x) => x.name);
    expect(loads).not.toContain('feverlink3-resync-1'); // before the fix: round 1's save, loaded during round 3
    // the scenario: p2 read round 1's load line after the cursor had passed it, and read past it
    const modLog = fs!.readText('/s/p2/mod.log') ?? '';
    expect(modLog).toContain('resync 1: load feverlink3-resync-1 once resync_cursor.txt names');
    expect(modLog).toContain('resync 1: feverlink3-resync-1 was replaced by a later load');
    expect(r.run.slots[frozen]!.holdsWorld).toBe(true);
    expect(failureText(r)).toBe('');
  }, 90_000);
});
