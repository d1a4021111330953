// The Lua host with the real mod (mod/*.lua, loaded through package.preload from the real files):
// solo it stays inactive and the game applies natively; in a started session it takes the bots'
// commands, writes them as Action lines and applies them at their stamps through engine.apply.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bot } from '../../../adapters/simgame/bots.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, ownActionEcho, REAL_MOD, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof manualClock>;
beforeEach(() => {
  tmp = tempDir();
  clock = manualClock();
});
afterEach(() => {
  tmp.cleanup();
});

async function start(bots: Bot[]): Promise<{ game: SimGame; host: LuaHost; logs: string[] }> {
  const logs: string[] = [];
  const log = (level: string, text: string): void => {
    logs.push(`${level}: ${text}`);
  };
  const statusPath = join(tmp.dir, 'status.json');
  const game = new SimGame({ world: createWorld(5), now: clock.now, bots, log, statusPath });
  const env = { FEVERLINK3_SESSION_DIR: tmp.dir };
  const host = await LuaHost.create({ modDir: REAL_MOD, env, engine: game, wallMs: clock.now, log });
  game.attach(host);
  return { game, host, logs };
}

/** Frames; `echo`: the launcher's copies of the game's own Actions (the host relays each to its origin too). */
function run(game: SimGame, frames: number, ms = 20, echo?: () => number): void {
  for (let i = 0; i < frames; i++) {
    clock.advance(ms);
    game.frame();
    echo?.();
  }
}

describe('Lua host with the real mod', () => {
  it('stays inactive without an identity: the game runs and applies the bots\' commands itself', async () => {
    const { game, host } = await start([new Bot({ seed: 1, ratePerMin: 3_000 })]);
    run(game, 100);
    expect(host.status()).toMatchObject({ active: false });
    expect(game.time()).toBe(1_800); // 99 × 20 ms of wall time at speed 1 (the first frame has none behind it)
    expect(game.actions).toBe(0);
    expect(game.applied + game.refused).toBeGreaterThan(20);
    expect(host.errors).toBe(0);
    host.close();
  });

  it('in a started session, sends the bots\' commands and applies each at its stamp', async () => {
    writeFileSync(join(tmp.dir, 'identity.txt'), 'name=Host\nid=0\nrole=host\nstart=1:0\n');
    writeFileSync(join(tmp.dir, 'to_game.log'), '');
    const { game, host, logs } = await start([new Bot({ seed: 2, ratePerMin: 3_000 })]);
    run(game, 50);
    // Not started: the mod holds the world where it stands, and the bots wait.
    expect(game.time()).toBe(0);
    expect(game.speed()).toBe(0);
    expect(game.actions + game.applied + game.refused).toBe(0);
    writeFileSync(join(tmp.dir, 'to_game.log'), 'Session\t{"started":true,"speed":1,"lead":2}\n');
    run(game, 200, 20, ownActionEcho(tmp.dir, 0));
    expect(game.time()).toBeGreaterThan(3_000);
    const status = host.status()!;
    expect(status).toMatchObject({ active: true, id: 0, started: true });
    expect(game.actions).toBeGreaterThan(20);
    // Every command the mod took was applied (or refused) at its stamp, except those still waiting.
    expect(game.applied + game.refused + (status.queued as number)).toBe(game.actions);
    const out = readFileSync(join(tmp.dir, 'from_game.log'), 'utf8').trim().split('\n');
    expect(out[0]).toMatch(/^Hello\t/);
    const actions = out.filter((l) => l.startsWith('Action\t'))
      .map((l) => JSON.parse(l.slice(7)) as { stamp: number; body: unknown });
    expect(actions).toHaveLength(game.actions);
    for (const a of actions) expect(a.stamp % 200).toBe(0);
    expect(host.errors).toBe(0);
    expect(logs.filter((l) => l.startsWith('error'))).toEqual([]);
    game.writeStatus(true);
    const written = JSON.parse(readFileSync(join(tmp.dir, 'status.json'), 'utf8')) as Record<string, unknown>;
    expect(written).toMatchObject({ active: true, final: true, actions: game.actions, queued: status.queued });
    host.close();
  });

  it('statusField gives one plain field of the status as status() has it, and nothing for a table or a missing one', async () => {
    const { game, host } = await start([]);
    run(game, 3);
    const status = host.status()!;
    for (const name of ['active', 'stop', 'outbox', 'queued']) expect(host.statusField(name)).toEqual(status[name]);
    expect(host.statusField('noSuchField')).toBeUndefined();
    host.run('local s = feverlink3.status feverlink3.status = function() local t = s() t.nested = { 1 } return t end');
    expect(host.statusField('nested')).toBeUndefined();
    expect(host.errors).toBe(0);
    host.close();
  });

  it('fails to load, with the reason, a mod that gives no table', async () => {
    const dir = join(tmp.dir, 'badmod');
    mkdirSync(dir);
    writeFileSync(join(dir, 'feverlink3.lua'), 'return 42\n');
    const game = new SimGame({ world: createWorld(1), now: clock.now });
    await expect(LuaHost.create({ modDir: dir, env: {}, engine: game }))
      .rejects.toThrow(/no table and no global feverlink3/);
    writeFileSync(join(dir, 'feverlink3.lua'), 'local x = require("feverlink3_missing")\n');
    await expect(LuaHost.create({ modDir: dir, env: {}, engine: game })).rejects.toThrow(/feverlink3_missing/);
  });
});
