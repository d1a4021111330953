// Full-length seed 724 (docs/SIMULATOR.md "Open: found by the full-length run of 2026-12-01"): `notLate: p1 applied
// 6:1 (flush) at t=1600, stamp 1200`. p1, a late joiner, loaded two rounds' saves (resync 1, then resync 2); its mod
// was then loaded again (a script reload) and continued from mod_state.txt, reading to_game.log's backlog again from
// the session's start. That backlog holds round 1's ResyncLoad too: only the save its world came from (resync 2) was
// known as loaded, so it loaded round 1's save again, resumed reading after round 2's load line (the newest resync
// cursor), its world thrown back to 1200 with the engine's old limit, and applied round 2's flushes of 1200 at 1600.
// Fixed in the mod: a ResyncLoad at or before the load line the world came from (`loadedFrom` in mod_state.txt) is of
// a world this one replaced, never loaded again (mod/feverlink3_resync.lua `replacedLoad`; seed 323 is the same cause).
import { describe, expect, it } from 'vitest';
import { drawPlan } from './plan.ts';
import { failureText, runSeed } from './runSeed.ts';

describe('a mod loaded again after two resync loads (seed 724, full length)', () => {
  it('does not load the earlier round’s save from its backlog again (was: notLate, a flush applied 400 game-ms late)', async () => {
    const plan = drawPlan(724);
    const reloaded = plan.games.findIndex((g) => g.reloadAt !== undefined);
    expect(plan.games[reloaded]?.name).toBe('p1');
    const r = await runSeed(724);
    // the scenario: the reload came after two loads, so its backlog held round 1's load line
    expect(r.happened).toEqual(expect.arrayContaining(['reload', 'reloadAfterLoads', 'resyncVerified']));
    const loads = r.run.slots[reloaded]!.game!.records.filter((rec) => rec.what === 'load').map((rec) => rec.name);
    // before the fix: resync-1, resync-2, resync-1 (the reload), resync-3 (the round that repaired it)
    expect(loads.slice(0, 2)).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']);
    expect(loads.slice(2)).not.toContain('feverlink3-resync-1');
    expect(r.run.slots[reloaded]!.holdsWorld).toBe(true);
    expect(failureText(r)).toBe('');
  }, 90_000);
});
