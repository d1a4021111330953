// After a resync load the mod starts again (init) in the frame that loaded, and the game runs that frame's steps after
// it. The limit the engine held was the OLD world's (set by the frame that read the load line): a save whose time lies
// before it (a wrong, older save) let the loaded world run up to that limit before the new Lua state's first frame set
// its own, past what the mod had read (mod/feverlink3_session.lua init sets the limit to the loaded world's time).
// The first frame of the new state sets the limit from the session again: a correct load runs on.
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_MS } from '../../../adapters/simgame/game.ts';
import { modSession } from './modSession.ts';

const s = modSession();

describe('the frame that loads a resync save', () => {
  it('runs no step of the loaded world before the new Lua state’s first frame; that frame lets a running session go on', async () => {
    s.begin();
    const game = s.newGame();
    const mod = await s.loadMod(game);
    s.toGame('Session', { started: true, speed: 4, lead: 2 });
    s.frames(game, 10);
    s.toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    s.frames(game, 1);
    const savedAt = s.savedAt('feverlink3-resync-1');
    s.frames(game, 30); // the world runs on: the save is older than the world
    expect(game.time()).toBeGreaterThan(savedAt + 1000);

    s.toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: 'ab'.repeat(32) });
    s.frames(game, 1); // reads the load line: stands where it is, waiting for the cursor
    s.cursorAtEnd();
    s.frames(game, 1, MAX_FRAME_MS); // loads, and a whole frame's steps at speed 4 are due after the mod's frame
    expect(game.time()).toBe(savedAt); // was: 5 steps of the loaded world under the old world's limit
    // the old Lua state's last line reaches mod.log (init's log.reset dropped it: docs/ENGINE.md names it)
    expect(s.modLog()).toContain(`resync 1: loaded feverlink3-resync-1, the world stands at ${savedAt}`);

    s.toGame('Session', { started: true, speed: 4, lead: 2 }); // the host's Session after the load
    s.frames(game, 30);
    expect(game.time()).toBeGreaterThan(savedAt); // the new state's frames set the limit: it runs on
    expect(mod.errors).toBe(0);
    game.attach(null);
    mod.close();
  });
});
