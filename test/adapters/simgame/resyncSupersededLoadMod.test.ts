// A game that stood still (frozen) through two resync rounds reads the first round's ResyncLoad line when the
// launcher's resync cursor already names the position after the second one. That first save's world was replaced on
// every other game: the mod must not load it, but read on (standing) to the later load line and load that save
// (mod/feverlink3_resync.lua `pending`, 'superseded'). Before the fix it loaded round 1's save, read on at the cursor
// (after round 2's line: round 2's load and every line between skipped) and said a Hello naming round 1's save, which
// made the host take it for a fresh start, an outsider for good (the simulator's seed 1178, p2 frozen for 36 s).
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, REAL_MOD, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof manualClock>;
beforeEach(() => {
  tmp = tempDir();
  clock = manualClock();
});
afterEach(() => tmp.cleanup());

const RUNNING = { started: true, speed: 1, lead: 2 };
const file = (name: string): string => join(tmp.dir, name);
const toGame = (kind: string, payload: unknown): void => appendFileSync(file('to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`);
const hellos = (): unknown[] =>
  readFileSync(file('from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith('Hello\t')).map((l) => JSON.parse(l.slice(6)));
const sha256 = (name: string): string => createHash('sha256').update(readFileSync(join(tmp.dir, 'saves', name))).digest('hex');

function frames(game: SimGame, count: number): void {
  for (let i = 0; i < count; i++) {
    clock.advance(20);
    game.frame();
  }
}

describe('a load line read after a later round’s load line was written', () => {
  it('is not loaded: the game reads on, standing, to the later load, loads that save once and says one Hello for it', async () => {
    writeFileSync(file('identity.txt'), 'name=Ada\nid=1\nrole=player\nstart=1:0\n');
    writeFileSync(file('to_game.log'), '');
    const game = new SimGame({ world: createWorld(7), now: clock.now, savesDir: join(tmp.dir, 'saves') });
    const loads: string[] = [];
    const load = game.load.bind(game);
    game.load = (name) => {
      loads.push(name);
      return load(name);
    };
    const mod = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
    game.attach(mod);
    toGame('Session', RUNNING);
    frames(game, 20);
    // two saves of this world at two times stand for the two rounds' saves
    toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    frames(game, 3);
    frames(game, 30);
    toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    frames(game, 3);
    const round2 = { t: game.time(), hash: worldHash(game.world) };
    frames(game, 30); // this world runs on past round 2's save

    // The game stands still (no frames) while the launcher writes both rounds: each load line, the lines of round 1's
    // world after it (a flush, an action), round 2's load line, its cursor, and the lines of round 2's world.
    toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: sha256('feverlink3-resync-1') });
    toGame('Session', RUNNING);
    toGame('Action', { stamp: 400, seq: 1, from: 0, body: { type: 'noop' }, allowed: true, pause: true, pauseSeq: 1, pauseUpto: 1 });
    toGame('Chat', { text: 'for round 1 world', from: 0, name: 'host' });
    toGame('ResyncLoad', { id: 2, name: 'feverlink3-resync-2', sha256: sha256('feverlink3-resync-2') });
    writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
    toGame('Chat', { text: 'for the loaded world', from: 0, name: 'host' });
    frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-2']);
    expect(hellos()).toEqual([{ time: 0 }, { time: round2.t, save: 'feverlink3-resync-2' }]);
    expect(worldHash(game.world)).toBe(round2.hash); // round 2's world, nothing of round 1's applied to it
    const modLog = readFileSync(file('mod.log'), 'utf8');
    expect(modLog).toContain('resync 1: feverlink3-resync-1 was replaced by a later load');
    expect(modLog).toContain('for round 1 world'); // read on after the superseded line, to round 2's load
    expect(modLog.split('for the loaded world').length - 1).toBe(1); // read once, by the loaded world
    game.attach(null);
    mod.close();
  });
});
