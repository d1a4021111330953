// The mod loaded again right after the frame that loaded a resync save, before the new Lua state's first frame wrote
// mod_state.txt (the load empties it and init clears the load's marker). Before the fix the next Lua state found no
// state and started fresh: read to_game.log from the session's start, said a Hello without the save (the host takes it
// for a fresh start), loaded the round's save a second time and said another Hello, and its own action numbers began
// at 1 again. Now init writes mod_state.txt (feverlink3_session.lua), with the time the save was loaded at
// (`resyncLoadedAt`): the host's copy of an own action made before the load, which follows the load line, is still
// applied by the continuing state, as by the state that loaded.
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
const fromGame = (kind: string): Record<string, unknown>[] =>
  readFileSync(file('from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith(`${kind}\t`)).map((l) => JSON.parse(l.slice(kind.length + 1)));

function frames(game: SimGame, count: number): void {
  for (let i = 0; i < count; i++) {
    clock.advance(20);
    game.frame();
  }
}

async function loadMod(game: SimGame): Promise<LuaHost> {
  const mod = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
  game.attach(mod);
  return mod;
}

describe('the mod loaded again between the frame that loaded a resync save and the next frame', () => {
  it('continues: no Hello without the save, no second load, and the host’s copy of an own action made before the load is applied', async () => {
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
    toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    frames(game, 3);
    const savedAt = Number(/world saved as feverlink3-resync-1 at t (\d+)/.exec(readFileSync(file('mod.log'), 'utf8'))?.[1]);
    game.issue({ type: 'spend', amount: 1000 }); // an own action the host has not sent back before the load
    frames(game, 3);
    const [own] = fromGame('Action');
    expect(own).toMatchObject({ seq: 1, body: { type: 'spend', amount: 1000 } });
    expect(Number(own!.stamp)).toBeGreaterThan(savedAt);

    toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: 'ab'.repeat(32) });
    frames(game, 1);
    writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
    toGame('Session', RUNNING);
    frames(game, 1); // loads: a new Lua state starts (init)
    expect(loads).toEqual(['feverlink3-resync-1']);

    game.attach(null);
    first.close();
    const again = await loadMod(game); // before that state's first frame
    toGame('Action', { ...own, category: 'spend', from: 1, allowed: true }); // the host's copy, after the load line
    frames(game, 40);

    expect(loads).toEqual(['feverlink3-resync-1']); // was: loaded a second time
    expect(fromGame('Hello')).toEqual([{ time: 0 }, { time: savedAt, save: 'feverlink3-resync-1' }]); // was: + {time}, + {save}
    expect(game.applied).toBe(1); // the own action, applied once in the loaded world
    expect(game.time()).toBeGreaterThan(Number(own!.stamp));
    const modLog = readFileSync(file('mod.log'), 'utf8');
    expect(modLog).toContain('loaded again in the same session and world');
    expect(modLog).toContain('own Action 1:1 made before the resync load: the host\'s copy');
    expect(again.errors).toBe(0);
    again.close();
  });
});
