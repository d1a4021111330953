// The real mod in the simulated game, loaded again (a script reload) after its game loaded two resync rounds' saves
// (simulator seed 724): the continuing Lua state reads to_game.log's backlog again from the session's start, where
// both rounds' ResyncLoad lines lie. Neither may be loaded again: round 2's is the save this world came from, round
// 1's belongs to a world round 2 replaced (mod/feverlink3_resync.lua `replacedLoad`, `loadedFrom` in mod_state.txt).
import { describe, expect, it } from 'vitest';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { modSession } from './modSession.ts';

const s = modSession();

describe('the mod loaded again after two resync loads', () => {
  it('loads neither round’s save from the backlog again: the world, the Hellos and the reading go on', async () => {
    s.begin();
    // The two rounds' saves, made by another game (the host's): two different worlds.
    const round1 = s.newGame(99);
    expect(round1.save('feverlink3-resync-1').ok).toBe(true);
    const round2 = s.newGame(98);
    expect(round2.save('feverlink3-resync-2').ok).toBe(true);
    expect(worldHash(round1.world)).not.toBe(worldHash(round2.world));

    const game = s.newGame();
    const load = (id: number) => {
      s.toGame('ResyncLoad', { id, name: `feverlink3-resync-${id}`, sha256: 'ab'.repeat(32) });
      s.cursorAtEnd();
      s.frames(game, 5);
    };

    const first = await s.loadMod(game);
    s.frames(game, 3);
    load(1);
    expect(worldHash(game.world)).toBe(worldHash(round1.world));
    load(2);
    expect(worldHash(game.world)).toBe(worldHash(round2.world));
    s.toGame('Chat', { text: 'after the second load', from: 0, name: 'host' });
    s.frames(game, 3);
    expect(s.fromGame('Hello')).toEqual([{ time: 0 }, { time: 0, save: 'feverlink3-resync-1' }, { time: 0, save: 'feverlink3-resync-2' }]);

    first.close();
    const again = await s.loadMod(game);
    s.frames(game, 10);
    const modLog = s.modLog();
    expect(modLog).toContain('loaded again in the same session and world');
    expect(worldHash(game.world)).toBe(worldHash(round2.world)); // was: round 1's world loaded again
    expect(s.fromGame('Hello')).toHaveLength(3); // no Hello of a load (the host would make the game an outsider)
    expect(modLog.split('resync 1: load feverlink3-resync-1 once').length - 1).toBe(1); // only the first time
    expect(modLog).toContain('backlog read again');
    expect(again.errors).toBe(0);
    again.close();
  });
});
