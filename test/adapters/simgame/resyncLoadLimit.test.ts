// After a resync load the mod starts again (init) in the frame that loaded, and the game runs that frame's steps after
// it. The limit the engine held was the OLD world's (set by the frame that read the load line): a save whose time lies
// before it (a wrong, older save) let the loaded world run up to that limit before the new Lua state's first frame set
// its own, past what the mod had read (mod/feverlink3_session.lua init sets the limit to the loaded world's time).
// The first frame of the new state sets the limit from the session again: a correct load runs on.
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FRAME_MS, SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, REAL_MOD, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof manualClock>;
beforeEach(() => {
  tmp = tempDir();
  clock = manualClock();
});
afterEach(() => tmp.cleanup());

const file = (name: string): string => join(tmp.dir, name);
const toGame = (kind: string, payload: unknown): void => appendFileSync(file('to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`);

function frames(game: SimGame, count: number, wallMs = 20): void {
  for (let i = 0; i < count; i++) {
    clock.advance(wallMs);
    game.frame();
  }
}

describe('the frame that loads a resync save', () => {
  it('runs no step of the loaded world before the new Lua state’s first frame; that frame lets a running session go on', async () => {
    writeFileSync(file('identity.txt'), 'name=Ada\nid=1\nrole=player\nstart=1:0\n');
    writeFileSync(file('to_game.log'), '');
    const game = new SimGame({ world: createWorld(7), now: clock.now, savesDir: join(tmp.dir, 'saves') });
    const mod = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
    game.attach(mod);
    toGame('Session', { started: true, speed: 4, lead: 2 });
    frames(game, 10);
    toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    frames(game, 1);
    const savedAt = Number(/world saved as feverlink3-resync-1 at t (\d+)/.exec(readFileSync(file('mod.log'), 'utf8'))?.[1]);
    frames(game, 30); // the world runs on: the save is older than the world
    expect(game.time()).toBeGreaterThan(savedAt + 1000);

    toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: 'ab'.repeat(32) });
    frames(game, 1); // reads the load line: stands where it is, waiting for the cursor
    writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
    frames(game, 1, MAX_FRAME_MS); // loads, and a whole frame's steps at speed 4 are due after the mod's frame
    expect(game.time()).toBe(savedAt); // was: 5 steps of the loaded world under the old world's limit
    // the old Lua state's last line reaches mod.log (init's log.reset dropped it: docs/ENGINE.md names it)
    expect(readFileSync(file('mod.log'), 'utf8')).toContain(`resync 1: loaded feverlink3-resync-1, the world stands at ${savedAt}`);

    toGame('Session', { started: true, speed: 4, lead: 2 }); // the host's Session after the load
    frames(game, 30);
    expect(game.time()).toBeGreaterThan(savedAt); // the new state's frames set the limit: it runs on
    expect(mod.errors).toBe(0);
    game.attach(null);
    mod.close();
  });
});
