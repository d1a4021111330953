// A mod loaded again (a new Lua state, same session and world) after several resync loads: it reads to_game.log again
// from the session's start, and that backlog holds the load line of every round. Only a load after the one this world
// came from may be loaded (mod/feverlink3_resync.lua `replacedLoad`). Before the fix the backlog loaded round 1's save
// again: the world was thrown back to round 1's time, and the game said a Hello that made it an outsider (the
// simulator's seed 323: p4 went back from 39000 to 2400 and never applied the flushes the others had applied there).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modSession } from './modSession.ts';

const s = modSession();

describe('a mod loaded again after several resync loads', () => {
  it('loads none of the rounds’ saves from its backlog again: the world and its time stay, no new Hello', async () => {
    const { game, mod: first, loads } = await s.running();
    s.resyncRound(game, 1);
    const round1At = game.time();
    s.frames(game, 40);
    s.resyncRound(game, 2);
    s.frames(game, 40);
    expect(game.time()).toBeGreaterThan(round1At); // the two saves hold different times
    expect(s.fromGame('Hello')).toHaveLength(3); // the start and one per load
    const before = game.time();

    game.attach(null);
    first.close();
    const again = await s.loadMod(game);
    s.frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']); // no third load
    expect(game.time()).toBeGreaterThanOrEqual(before); // never thrown back to round 1's time
    expect(s.fromGame('Hello')).toHaveLength(3); // a Hello would make it an outsider on the host
    const modLog = s.modLog();
    expect(modLog).toContain('loaded again in the same session and world');
    // both load lines of the backlog were met and left alone (the scenario this test is about)
    expect(modLog).toMatch(/resync 1: feverlink3-resync-1 is the save this world was loaded from, or one before it/);
    expect(modLog).toMatch(/resync 2: feverlink3-resync-2 is the save this world was loaded from, or one before it/);
    expect(readFileSync(s.file('mod_state.txt'), 'utf8')).toMatch(/^loadedFrom=1:\d+$/m);
    again.close();
  });
});
