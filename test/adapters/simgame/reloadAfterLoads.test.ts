// The real mod in the simulated game, loaded again (a script reload) after its game loaded two resync rounds' saves
// (simulator seed 724): the continuing Lua state reads to_game.log's backlog again from the session's start, where
// both rounds' ResyncLoad lines lie. Neither may be loaded again: round 2's is the save this world came from, round
// 1's belongs to a world round 2 replaced (mod/feverlink3_resync.lua `replacedLoad`, `loadedFrom` in mod_state.txt).
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

describe('the mod loaded again after two resync loads', () => {
  it('loads neither round’s save from the backlog again: the world, the Hellos and the reading go on', async () => {
    const saves = join(tmp.dir, 'saves');
    writeFileSync(join(tmp.dir, 'identity.txt'), 'name=Ada\nid=1\nrole=player\nstart=1:0\n');
    writeFileSync(join(tmp.dir, 'to_game.log'), '');
    // The two rounds' saves, made by another game (the host's): two different worlds.
    const round1 = new SimGame({ world: createWorld(99), now: clock.now, savesDir: saves });
    expect(round1.save('feverlink3-resync-1').ok).toBe(true);
    const round2 = new SimGame({ world: createWorld(98), now: clock.now, savesDir: saves });
    expect(round2.save('feverlink3-resync-2').ok).toBe(true);
    expect(worldHash(round1.world)).not.toBe(worldHash(round2.world));

    const game = new SimGame({ world: createWorld(7), now: clock.now, savesDir: saves });
    const startMod = async () => {
      const mod = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now });
      game.attach(mod);
      return mod;
    };
    const frames = (count: number) => {
      for (let i = 0; i < count; i++) {
        clock.advance(20);
        game.frame();
      }
    };
    const toGame = (kind: string, payload: unknown) => appendFileSync(join(tmp.dir, 'to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`);
    const load = (id: number) => {
      toGame('ResyncLoad', { id, name: `feverlink3-resync-${id}`, sha256: 'ab'.repeat(32) });
      writeFileSync(join(tmp.dir, 'resync_cursor.txt'), `1:${statSync(join(tmp.dir, 'to_game.log')).size}\n`);
      frames(5);
    };
    const hellos = () => readFileSync(join(tmp.dir, 'from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith('Hello\t')).map((l) => JSON.parse(l.slice(6)));

    const first = await startMod();
    frames(3);
    load(1);
    expect(worldHash(game.world)).toBe(worldHash(round1.world));
    load(2);
    expect(worldHash(game.world)).toBe(worldHash(round2.world));
    toGame('Chat', { text: 'after the second load', from: 0, name: 'host' });
    frames(3);
    expect(hellos()).toEqual([{ time: 0 }, { time: 0, save: 'feverlink3-resync-1' }, { time: 0, save: 'feverlink3-resync-2' }]);

    first.close();
    const again = await startMod();
    frames(10);
    const modLog = readFileSync(join(tmp.dir, 'mod.log'), 'utf8');
    expect(modLog).toContain('loaded again in the same session and world');
    expect(worldHash(game.world)).toBe(worldHash(round2.world)); // was: round 1's world loaded again
    expect(hellos()).toHaveLength(3); // no Hello of a load (the host would make the game an outsider)
    expect(modLog.split('resync 1: load feverlink3-resync-1 once').length - 1).toBe(1); // only the first time
    expect(modLog).toContain('backlog read again');
    expect(again.errors).toBe(0);
    again.close();
  });
});
