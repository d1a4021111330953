// The simulated game's loop, driven frame by frame with a manual clock and the fixture mod (real Lua):
// whole steps at speed × wall time, beforeStep before every step, never a step at or past the limit,
// bots through feverlink3.command, status.json, engine.save/load.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bot } from '../../../adapters/simgame/bots.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { FIXTURE_MOD, gameWithMod, manualClock, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof manualClock>;
let game: SimGame;
let host: LuaHost;
let logs: string[];

beforeEach(async () => {
  tmp = tempDir();
  clock = manualClock();
  ({ game, host, logs } = await gameWithMod({ modDir: FIXTURE_MOD, sessionDir: tmp.dir, now: clock.now }));
});
afterEach(() => {
  host.close();
  tmp.cleanup();
});

function frames(n: number, ms = 16): void {
  for (let i = 0; i < n; i++) {
    clock.advance(ms);
    game.frame();
  }
}

/** The times beforeStep was called with, read from the fixture mod. */
const stepsSeen = (): number[] => JSON.parse(host.run(`
  local out = {} for i, t in ipairs(feverlink3.steps) do out[i] = string.format('%.0f', t) end
  return '[' .. table.concat(out, ',') .. ']'`) as string) as number[];

const range = (from: number, to: number): number[] => {
  const out: number[] = [];
  for (let t = from; t < to; t += 200) out.push(t);
  return out;
};

describe('game loop', () => {
  it('runs whole 200 game-ms steps at speed × wall time, calling beforeStep before each', () => {
    game.frame();
    frames(1000); // 16 s of wall time at speed 1
    expect(game.time()).toBe(16_000);
    expect(stepsSeen()).toEqual(range(0, 16_000));
    expect(game.steps).toBe(80);
  });

  it('runs at speed 2 and 4, stands still at 0, and ignores a speed that does not exist', () => {
    host.run('feverlink3.speed = 4');
    frames(101); // the first frame has no wall time behind it
    expect(game.time()).toBe(6_400);
    host.run('feverlink3.speed = 0');
    frames(100);
    expect(game.time()).toBe(6_400);
    expect(game.speed()).toBe(0);
    host.run('feverlink3.speed = 2');
    frames(100);
    expect(game.time()).toBe(9_600);
    host.run('feverlink3.speed = 3');
    frames(1);
    expect(logs.some((l) => l.includes('engine.setSpeed(3) ignored'))).toBe(true);
    expect(game.speed()).toBe(2);
  });

  it('never executes a step at or past the limit, stands exactly there, and goes on when it moves', () => {
    host.run('feverlink3.limit = 1000; feverlink3.speed = 4');
    frames(300);
    expect(game.time()).toBe(1_000);
    expect(game.speed()).toBe(0);
    expect(stepsSeen()).toEqual(range(0, 1_000));
    // A limit between two steps: the step that starts before it runs, none after.
    host.run('feverlink3.limit = 1100');
    frames(100);
    expect(game.time()).toBe(1_200);
    host.run('feverlink3.limit = 2000');
    frames(100);
    expect(game.time()).toBe(2_000);
    expect(stepsSeen()).toEqual(range(0, 2_000));
    host.run('feverlink3.limit = nil; engine.setLimit(nil)');
    frames(10);
    expect(game.time()).toBeGreaterThan(2_000);
    expect(stepsSeen()).toEqual(range(0, game.time()));
  });

  it('gets only its share of wall time when throttled, and never races after a stall', async () => {
    const slow = new SimGame({ world: createWorld(1), now: clock.now, throttle: 0.5 });
    slow.frame();
    for (let i = 0; i < 125; i++) {
      clock.advance(16);
      slow.frame();
    }
    expect(slow.time()).toBe(1_000); // 2 s of wall time, half of it given to the game
    clock.advance(60_000);
    slow.frame();
    expect(slow.time()).toBe(1_000); // 250 ms at most count, × 0.5: no step yet (125 game-ms)
  });

  it('applies bot commands natively in solo play (no identity: the mod says false)', () => {
    const solo = new SimGame({
      world: createWorld(2),
      now: clock.now,
      bots: [new Bot({ seed: 1, ratePerMin: 600 })],
      statusPath: join(tmp.dir, 'status.json'),
    });
    solo.attach(host);
    solo.frame();
    for (let i = 0; i < 500; i++) {
      clock.advance(16);
      solo.frame();
    }
    expect(solo.applied + solo.refused).toBeGreaterThan(40);
    expect(solo.applied).toBeGreaterThan(0);
    expect(solo.actions).toBe(0);
    expect(existsSync(join(tmp.dir, 'from_game.log'))).toBe(false);
    const status = JSON.parse(readFileSync(join(tmp.dir, 'status.json'), 'utf8')) as Record<string, unknown>;
    expect(status).toMatchObject({ speed: 1, actions: 0, late: 0, active: false, final: false });
    expect(status.t).toBeGreaterThan(0);
    expect(status.worldHash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('hands bot commands to an active mod, which applies them at their stamp through engine.apply', async () => {
    writeFileSync(join(tmp.dir, 'identity.txt'), 'name=Ann\nid=3\nrole=player\nstart=1:0\n');
    const bot = new Bot({ seed: 9, ratePerMin: 600 });
    const live = new SimGame({ world: createWorld(2), now: clock.now, bots: [bot] });
    const env = { FEVERLINK3_SESSION_DIR: tmp.dir };
    const mod = await LuaHost.create({ modDir: FIXTURE_MOD, env, engine: live, wallMs: clock.now });
    live.attach(mod);
    live.frame();
    for (let i = 0; i < 500; i++) {
      clock.advance(16);
      live.frame();
    }
    const lines = readFileSync(join(tmp.dir, 'from_game.log'), 'utf8').trim().split('\n');
    expect(live.actions).toBe(lines.length);
    expect(lines[0]).toMatch(/^Action\t\{"seq":1,"category":"(build|bulldoze|spend|other)"/);
    const queued = (mod.status()?.queued as number) ?? 0;
    // Every taken command was applied by the mod at its stamp (or still waits for it).
    expect(live.applied + live.refused + queued).toBe(live.actions);
    expect(live.applied).toBeGreaterThan(0);
    // Keys of what the bot made carry the player id the mod reports.
    const keys = [...live.world.lines.values(), ...live.world.vehicles.values()]
      .map((e) => e.key)
      .filter((k) => !k.startsWith('s:'));
    for (const k of keys) expect(k).toMatch(/^3:\d+$/);
    mod.close();
  });

  it('keeps running when a mod callback fails, and says so', () => {
    host.run('feverlink3.failFrame = true');
    frames(20);
    expect(game.time()).toBeGreaterThan(0);
    expect(host.errors).toBe(20);
    expect(logs.some((l) => l.includes('feverlink3.frame failed') && l.includes('on purpose'))).toBe(true);
  });

  it('saves and loads the world through engine.save / engine.load, and refuses bad names', () => {
    frames(100);
    const hash = worldHash(game.world);
    const lua = (code: string): unknown => host.run(code);
    expect(lua(`local ok, d = engine.save('resync 1.json') return tostring(ok) .. ' ' .. d`))
      .toBe(`true ${join(tmp.dir, 'resync 1.json')}`);
    frames(100);
    expect(worldHash(game.world)).not.toBe(hash);
    expect(lua(`local ok, d = engine.load('resync 1.json') return tostring(ok)`)).toBe('true');
    expect(worldHash(game.world)).toBe(hash);
    expect(lua(`local ok, d = engine.save('../x') return tostring(ok) .. ' ' .. d`)).toMatch(/^false bad save name/);
    expect(lua(`local ok, d = engine.load('missing.json') return tostring(ok)`)).toBe('false');
    writeFileSync(join(tmp.dir, 'bad.json'), '{"format":"feverlink3-simgame","version":9}');
    expect(lua(`local ok, d = engine.load('bad.json') return tostring(ok) .. ' ' .. d`)).toMatch(/^false .*version 9/);
    expect(worldHash(game.world)).toBe(hash);
  });

  it('gives the engine table to Lua: time, speed, apply with several results, checksum parts', () => {
    frames(50);
    expect(host.run('return engine.time()')).toBe(game.time());
    expect(host.run(`return math.type(engine.time())`)).toBe('integer');
    expect(host.run('return engine.speed()')).toBe(1);
    const apply = (cmd: string): unknown =>
      host.run(`local ok, c, d = engine.apply(${cmd}) return tostring(ok) .. ' ' .. tostring(c) .. ' ' .. tostring(d)`);
    expect(apply(`{ type = 'spend', amount = 1000 }`)).toBe('true nil nil');
    expect(apply(`{ type = 'spend', amount = -1 }`)).toMatch(/^false decode amount/);
    expect(apply(`{ type = 'createLine', key = '0:1', stops = { { x = 0, y = 0 }, { x = 5, y = 5 } } }`))
      .toMatch(/^false engine /);
    const parts = `local n = 0
      for k, v in pairs(engine.checksum()) do assert(type(v) == 'string') n = n + 1 end
      return n`;
    expect(host.run(parts)).toBe(Object.keys(game.checksum()).length); // the spec's parts (world/checksumLanes.ts)
    expect(game.applied).toBe(1);
    expect(game.refused).toBe(2);
  });
});
