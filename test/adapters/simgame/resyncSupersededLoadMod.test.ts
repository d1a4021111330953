// A game that stood still (frozen) through two resync rounds reads the first round's ResyncLoad line when the
// launcher's resync cursor already names the position after the second one. That first save's world was replaced on
// every other game: the mod must not load it, but read on (standing) to the later load line and load that save
// (mod/feverlink3_resync.lua `pending`, 'superseded'). Before the fix it loaded round 1's save, read on at the cursor
// (after round 2's line: round 2's load and every line between skipped) and said a Hello naming round 1's save, which
// made the host take it for a fresh start, an outsider for good (the simulator's seed 1178, p2 frozen for 36 s).
import { describe, expect, it } from 'vitest';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { modSession, RUNNING } from './modSession.ts';

const s = modSession();

describe('a load line read after a later round’s load line was written', () => {
  it('is not loaded: the game reads on, standing, to the later load, loads that save once and says one Hello for it', async () => {
    const { game, mod, loads } = await s.running();
    // two saves of this world at two times stand for the two rounds' saves
    s.toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    s.frames(game, 3);
    s.frames(game, 30);
    s.toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    s.frames(game, 3);
    const round2 = { t: game.time(), hash: worldHash(game.world) };
    s.frames(game, 30); // this world runs on past round 2's save

    // The game stands still (no frames) while the launcher writes both rounds: each load line, the lines of round 1's
    // world after it (a flush, an action), round 2's load line, its cursor, and the lines of round 2's world.
    s.toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: s.sha256('feverlink3-resync-1') });
    s.toGame('Session', RUNNING);
    s.toGame('Action', { stamp: 400, seq: 1, from: 0, body: { type: 'noop' }, allowed: true, pause: true, pauseSeq: 1, pauseUpto: 1 });
    s.toGame('Chat', { text: 'for round 1 world', from: 0, name: 'host' });
    s.toGame('ResyncLoad', { id: 2, name: 'feverlink3-resync-2', sha256: s.sha256('feverlink3-resync-2') });
    s.cursorAtEnd();
    s.toGame('Chat', { text: 'for the loaded world', from: 0, name: 'host' });
    s.frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-2']);
    expect(s.fromGame('Hello')).toEqual([{ time: 0 }, { time: round2.t, save: 'feverlink3-resync-2' }]);
    expect(worldHash(game.world)).toBe(round2.hash); // round 2's world, nothing of round 1's applied to it
    const modLog = s.modLog();
    expect(modLog).toContain('resync 1: feverlink3-resync-1 was replaced by a later load');
    expect(modLog).toContain('for round 1 world'); // read on after the superseded line, to round 2's load
    expect(modLog.split('for the loaded world').length - 1).toBe(1); // read once, by the loaded world
    game.attach(null);
    mod.close();
  });
});
