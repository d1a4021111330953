// The game's side of a resync round with the real mod in the simulated game (mod/feverlink3_resync.lua, the session
// controller, engine.save / engine.load): ResyncSave saves and answers SaveDone; ResyncLoad waits for the launcher's
// resync_cursor.txt, then loads, and the mod starts again like a fresh Lua state: a new Hello at the loaded time,
// reading to_game.log from the cursor (the line after the load is read by the loaded world, once).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { injectDivergence } from '../../../adapters/simgame/desync.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import type { Command } from '../../../adapters/simgame/world/commands.ts';
import { modSession } from './modSession.ts';
import { REAL_MOD } from './support.ts';

const s = modSession();

async function start() {
  s.begin();
  const logs: string[] = [];
  const game = new SimGame({ world: createWorld(7), now: s.clock.now, savesDir: s.file('saves'), log: (level, text) => logs.push(`${level}: ${text}`) });
  const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: s.dir }, engine: game, wallMs: s.clock.now, log: (l, t) => logs.push(`${l}: ${t}`) });
  game.attach(host);
  const frames = (count: number) => s.frames(game, count);
  const fromGame = () =>
    readFileSync(s.file('from_game.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => ({ kind: l.slice(0, l.indexOf('\t')), payload: JSON.parse(l.slice(l.indexOf('\t') + 1)) }));
  return { game, host, frames, toGame: s.toGame, fromGame, modLog: s.modLog, logs };
}

describe('the mod in a resync round', () => {
  it('saves on ResyncSave, loads on ResyncLoad once the cursor names the line after it, and says hello again', async () => {
    const g = await start();
    g.frames(5);
    expect(g.fromGame().filter((l) => l.kind === 'Hello')).toEqual([{ kind: 'Hello', payload: { time: 0 } }]);

    const road = { type: 'buildRoad', from: { x: 0, y: 0 }, to: { x: 40, y: 0 } } as unknown as Command;
    g.game.issue(road); // own action 1:1, before the load
    g.toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    g.frames(3);
    expect(g.fromGame().filter((l) => l.kind === 'SaveDone')).toEqual([{ kind: 'SaveDone', payload: { id: 1, ok: true } }]);
    const saved = join(s.dir, 'saves', 'feverlink3-resync-1');
    const savedHash = worldHash(g.game.world);
    const sha256 = createHash('sha256').update(readFileSync(saved)).digest('hex');

    // This world forks after the save; the load must bring back the saved one.
    injectDivergence(g.game.world);
    expect(worldHash(g.game.world)).not.toBe(savedHash);
    // An action of the host's for a later stamp waits here; every game holds it at its load line: it waits on after.
    g.toGame('Action', { stamp: 5000, seq: 1, from: 0, body: { type: 'buildRoad', from: { x: 0, y: 0 }, to: { x: 0, y: 40 } }, allowed: true });
    g.frames(2);
    expect(g.host.status()).toMatchObject({ queued: 2 }); // with the own action 1:1
    g.toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256 });
    const afterLoad = statSync(s.file('to_game.log')).size;
    g.toGame('Chat', { text: 'for the loaded world', from: 0, name: 'host' });
    g.frames(10);
    // No cursor yet: the world stands, nothing loaded, the line after the load not read by this world.
    expect(worldHash(g.game.world)).not.toBe(savedHash);
    expect(g.fromGame().filter((l) => l.kind === 'Hello')).toHaveLength(1);
    expect(g.modLog()).not.toContain('for the loaded world');

    writeFileSync(s.file('resync_cursor.txt'), `1:${afterLoad}\n`);
    g.frames(5);
    expect(worldHash(g.game.world)).toBe(savedHash);
    expect(g.fromGame().filter((l) => l.kind === 'Hello')).toEqual([
      { kind: 'Hello', payload: { time: 0 } },
      { kind: 'Hello', payload: { time: g.game.time(), save: 'feverlink3-resync-1' } }, // the load's hello names the save
    ]);
    expect(g.modLog()).toContain('resuming to_game.log at the resync cursor 1:' + afterLoad);
    g.game.issue(road); // after the load the own action numbers go on: 1:2, never 1:1 again
    g.frames(2);
    expect(g.fromGame().filter((l) => l.kind === 'Action').map((l) => l.payload.seq)).toEqual([1, 2]);
    expect(readFileSync(s.file('resync_load.txt'), 'utf8')).toBe(''); // the marker is read once
    // the host's action is carried over into the loaded world, and 1:2 waits; the own action 1:1 the host had not
    // confirmed is not (the host sends its copy after the load line if it relayed it: DECISIONS "After a resync load,
    // own actions the host had not confirmed are dropped")
    expect(g.host.status()).toMatchObject({ queued: 2 });
    expect(g.modLog()).toContain('resync load: 1 waiting items carried over, own actions go on after 1');
    expect(g.modLog().split('for the loaded world').length - 1).toBe(1); // read once, by the loaded world
    expect(g.host.errors).toBe(0);
    g.host.close();
  });

  it('a game that starts after its load line was written reads from the session start and loads (a late joiner)', async () => {
    writeFileSync(s.file('identity.txt'), 'name=Ada\nid=1\nrole=player\nstart=1:0\n');
    // Another game's save stands for the host's (the joiner's own world is createWorld(7)).
    const other = s.newGame(99);
    expect(other.save('feverlink3-resync-4').ok).toBe(true);
    const lines = `Session\t${JSON.stringify({ started: true, speed: 0, lead: 2, pauseAt: 0 })}\nResyncLoad\t${JSON.stringify({ id: 4, name: 'feverlink3-resync-4', sha256: 'ab'.repeat(32) })}\n`;
    writeFileSync(s.file('to_game.log'), lines);
    writeFileSync(s.file('resync_cursor.txt'), `1:${Buffer.byteLength(lines)}\n`);
    const logs: string[] = [];
    const game = new SimGame({ world: createWorld(7), now: s.clock.now, savesDir: s.file('saves'), log: (l, t) => logs.push(`${l}: ${t}`) });
    const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: s.dir }, engine: game, wallMs: s.clock.now, log: (l, t) => logs.push(`${l}: ${t}`) });
    game.attach(host);
    s.frames(game, 5);
    expect(worldHash(game.world)).toBe(worldHash(other.world));
    const hellos = readFileSync(s.file('from_game.log'), 'utf8').split('\n').filter((l) => l.startsWith('Hello\t'));
    expect(hellos.map((l) => JSON.parse(l.slice(6)))).toEqual([{ time: 0 }, { time: 0, save: 'feverlink3-resync-4' }]);
    host.close();
  });

  it('answers SaveDone not ok for a save the engine refuses, and goes on when a load fails', async () => {
    const g = await start();
    g.frames(3);
    g.toGame('ResyncSave', { id: 2, name: '../outside' });
    g.frames(3);
    expect(g.fromGame().find((l) => l.kind === 'SaveDone')?.payload).toMatchObject({ id: 2, ok: false, detail: expect.stringContaining('bad save name') });
    g.toGame('ResyncLoad', { id: 2, name: 'feverlink3-resync-2', sha256: 'ab'.repeat(32) });
    const afterLoad = statSync(s.file('to_game.log')).size;
    g.toGame('Chat', { text: 'still this world', from: 0, name: 'host' });
    writeFileSync(s.file('resync_cursor.txt'), `1:${afterLoad}\n`);
    g.frames(5);
    expect(existsSync(join(s.dir, 'saves', 'feverlink3-resync-2'))).toBe(false);
    expect(g.modLog()).toContain('resync 2: loading feverlink3-resync-2 FAILED');
    expect(g.modLog()).toContain('still this world');
    expect(g.fromGame().filter((l) => l.kind === 'Hello')).toHaveLength(1); // no new world, no new hello
    g.host.close();
  });
});
