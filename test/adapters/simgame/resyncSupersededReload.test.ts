// A game that stood still through two resync rounds reads round 1's load line when the cursor names the end of round
// 2's: it reads on, standing, to round 2's load (mod/feverlink3_resync.lua `pending`, 'superseded', S.skippingToLoad).
// The mod loaded again meanwhile (a new Lua state) loses that flag: this pins that nothing is lost with it. The
// continuing state reads its backlog from the session's start, meets round 1's load line again, finds the cursor past it
// again and skips again; it loads round 2's save once, and says one Hello for it (none of its own: it continues).
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
const count = (text: string, part: string): number => text.split(part).length - 1;

function frames(game: SimGame, n: number): void {
  for (let i = 0; i < n; i++) {
    clock.advance(20);
    game.frame();
  }
}

async function loadMod(game: SimGame): Promise<LuaHost> {
  const mod = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
  game.attach(mod);
  return mod;
}

describe('the mod loaded again while it skips a superseded load line to the later load', () => {
  // laterLineRead: the skipping state read round 2's load line before the reload (it waits for its load); otherwise
  // 1.2 MB of lines between the two load lines (a frame reads at most 1 MiB) leave it skipping, round 2's line unread.
  it.each([
    { laterLineRead: true, filler: 0 },
    { laterLineRead: false, filler: 3 },
  ])('loads round 2’s save once and says one Hello for it (round 2’s line read before the reload: $laterLineRead)', async ({ laterLineRead, filler }) => {
    writeFileSync(file('identity.txt'), 'name=Ada\nid=1\nrole=player\nstart=1:0\n');
    writeFileSync(file('to_game.log'), '');
    const game = new SimGame({ world: createWorld(7), now: clock.now, savesDir: join(tmp.dir, 'saves') });
    const loads: string[] = [];
    const load = game.load.bind(game);
    game.load = (name) => {
      loads.push(name);
      return load(name);
    };
    const first = await loadMod(game);
    toGame('Session', RUNNING);
    frames(game, 20);
    // two saves of this world at two times stand for the two rounds' saves
    toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    frames(game, 33);
    toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    frames(game, 3);
    const round2 = { t: Number(/world saved as feverlink3-resync-2 at t (\d+)/.exec(readFileSync(file('mod.log'), 'utf8'))?.[1]) };
    frames(game, 30);

    // the game stands still while the launcher writes both rounds (as in resyncSupersededLoadMod.test.ts)
    toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: sha256('feverlink3-resync-1') });
    toGame('Session', RUNNING);
    for (let i = 0; i < filler; i++) toGame('Chat', { text: `filler ${i} ${'x'.repeat(400_000)}`, from: 0, name: 'host' });
    toGame('ResyncLoad', { id: 2, name: 'feverlink3-resync-2', sha256: sha256('feverlink3-resync-2') });
    writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
    toGame('Chat', { text: 'for the loaded world', from: 0, name: 'host' });
    frames(game, 2); // reads round 1's load line; finds it superseded and reads on, standing
    const before = readFileSync(file('mod.log'), 'utf8');
    expect(before).toContain('resync 1: feverlink3-resync-1 was replaced by a later load');
    expect(before.includes('resync 2: load feverlink3-resync-2 once')).toBe(laterLineRead); // the scenario
    expect(loads).toEqual([]);

    game.attach(null);
    first.close();
    const again = await loadMod(game);
    frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-2']);
    expect(hellos()).toEqual([{ time: 0 }, { time: round2.t, save: 'feverlink3-resync-2' }]);
    const modLog = readFileSync(file('mod.log'), 'utf8');
    expect(modLog).toContain('loaded again in the same session and world');
    expect(count(modLog, 'resync 1: feverlink3-resync-1 was replaced by a later load')).toBe(2); // skipped again
    expect(count(modLog, 'for the loaded world')).toBe(1); // read once, by the loaded world
    expect(again.errors).toBe(0);
    again.close();
  });
});
