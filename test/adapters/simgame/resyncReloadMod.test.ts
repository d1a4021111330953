// A mod loaded again (a new Lua state, same session and world) after several resync loads: it reads to_game.log again
// from the session's start, and that backlog holds the load line of every round. Only a load after the one this world
// came from may be loaded (mod/feverlink3_resync.lua `replacedLoad`). Before the fix the backlog loaded round 1's save
// again: the world was thrown back to round 1's time, and the game said a Hello that made it an outsider (the
// simulator's seed 323: p4 went back from 39000 to 2400 and never applied the flushes the others had applied there).
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimGame } from '../../../adapters/simgame/game.ts';
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

const RUNNING = { started: true, speed: 1, lead: 2 };
const file = (name: string): string => join(tmp.dir, name);
const toGame = (kind: string, payload: unknown): void => appendFileSync(file('to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`);
const hellos = (): unknown[] =>
  readFileSync(file('from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith('Hello\t')).map((l) => JSON.parse(l.slice(6)));

async function loadMod(game: SimGame): Promise<LuaHost> {
  const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
  game.attach(host);
  return host;
}

function frames(game: SimGame, count: number): void {
  for (let i = 0; i < count; i++) {
    clock.advance(20);
    game.frame();
  }
}

/** One resync round on this game alone: it saves, the launcher writes the load line and its cursor, the game loads. */
function round(game: SimGame, id: number): void {
  const name = `feverlink3-resync-${id}`;
  toGame('ResyncSave', { id, name });
  frames(game, 3);
  const sha256 = createHash('sha256').update(readFileSync(join(tmp.dir, 'saves', name))).digest('hex');
  toGame('ResyncLoad', { id, name, sha256 });
  writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
  toGame('Session', RUNNING); // the host's Session after the load: the loaded world runs on
  frames(game, 5);
}

describe('a mod loaded again after several resync loads', () => {
  it('loads none of the rounds’ saves from its backlog again: the world and its time stay, no new Hello', async () => {
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
    round(game, 1);
    const round1At = game.time();
    frames(game, 40);
    round(game, 2);
    frames(game, 40);
    expect(game.time()).toBeGreaterThan(round1At); // the two saves hold different times
    expect(hellos()).toHaveLength(3); // the start and one per load
    const before = game.time();

    game.attach(null);
    first.close();
    const again = await loadMod(game);
    frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']); // no third load
    expect(game.time()).toBeGreaterThanOrEqual(before); // never thrown back to round 1's time
    expect(hellos()).toHaveLength(3); // a Hello would make it an outsider on the host
    const modLog = readFileSync(file('mod.log'), 'utf8');
    expect(modLog).toContain('loaded again in the same session and world');
    // both load lines of the backlog were met and left alone (the scenario this test is about)
    expect(modLog).toMatch(/resync 1: feverlink3-resync-1 is the save this world was loaded from, or one before it/);
    expect(modLog).toMatch(/resync 2: feverlink3-resync-2 is the save this world was loaded from, or one before it/);
    expect(readFileSync(file('mod_state.txt'), 'utf8')).toMatch(/^loadedFrom=1:\d+$/m);
    again.close();
  });
});
