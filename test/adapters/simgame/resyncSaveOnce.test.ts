// A mod loaded again (a new Lua state, same session and world) reads to_game.log again from the session's start; that
// backlog holds every ResyncSave the previous Lua state carried out. Read again, a ResyncSave must not save again
// (mod/feverlink3_resync.lua `save`): the second save wrote the CURRENT world over the round's file (while the host's
// launcher may be hashing and sending it: the players get a file that mixes two worlds or fails its SHA-256) and sent a
// second SaveDone for a round that had its answer. Before the fix the backlog's last ResyncSave was carried out again
// at the backlog's end.
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
const saveFile = (name: string): Buffer => readFileSync(join(tmp.dir, 'saves', name));
const toGame = (kind: string, payload: unknown): void => appendFileSync(file('to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`);
const saveDones = (): { id: number; ok: boolean }[] =>
  readFileSync(file('from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith('SaveDone\t')).map((l) => JSON.parse(l.slice(9)));

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

describe('a mod loaded again after it saved for resync rounds', () => {
  it('carries out no ResyncSave of its backlog again: the rounds’ files keep their worlds, one SaveDone per round', async () => {
    writeFileSync(file('identity.txt'), 'name=Host\nid=0\nrole=host\nstart=1:0\n');
    writeFileSync(file('to_game.log'), '');
    const game = new SimGame({ world: createWorld(7), now: clock.now, savesDir: join(tmp.dir, 'saves') });
    const saves: string[] = [];
    const save = game.save.bind(game);
    game.save = (name) => {
      saves.push(name);
      return save(name);
    };
    const first = await loadMod(game);
    toGame('Session', RUNNING);
    frames(game, 20);
    // round 1: the host's game saves and loads its own save (the host reloads)
    toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    frames(game, 3);
    const sha256 = createHash('sha256').update(saveFile('feverlink3-resync-1')).digest('hex');
    toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256 });
    writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`);
    toGame('Session', RUNNING);
    frames(game, 40);
    // round 2: saved; the launcher is still sending the file (Transferring), its load line not written yet
    toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    frames(game, 3);
    frames(game, 40); // the world runs on past the save
    const round1File = saveFile('feverlink3-resync-1');
    const round2File = saveFile('feverlink3-resync-2');
    expect(saves).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']);
    expect(saveDones()).toEqual([{ id: 1, ok: true }, { id: 2, ok: true }]);

    game.attach(null);
    first.close();
    const again = await loadMod(game);
    frames(game, 10);

    const modLog = readFileSync(file('mod.log'), 'utf8');
    expect(modLog).toContain('loaded again in the same session and world');
    expect(modLog).toContain('backlog read again');
    expect(saves).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']); // was: feverlink3-resync-2 saved again
    expect(saveFile('feverlink3-resync-2').equals(round2File)).toBe(true); // still round 2's world
    expect(saveFile('feverlink3-resync-1').equals(round1File)).toBe(true);
    expect(saveDones()).toEqual([{ id: 1, ok: true }, { id: 2, ok: true }]); // no second answer for round 2
    // both ResyncSave lines were met in the backlog (the scenario) and left alone
    expect(modLog).toContain('resync 1: ResyncSave read again in the backlog');
    expect(modLog).toContain('resync 2: ResyncSave read again in the backlog');
    expect(again.errors).toBe(0);
    again.close();
  });
});
