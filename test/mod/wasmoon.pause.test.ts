// The Lua mod in wasmoon (Lua 5.4) and in Debian's lua5.2 (every block runs in both) with a TEST DOUBLE engine and
// real files in a temp session folder: pause and the pause order, the link (bad lines, file replacement, identity),
// random (spec/lockstep.md; docs/ENGINE.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { T0, STEP, setup, tick, expectActionsBeforeClocks, echoOwn, started, flushItem, LUA_FLAVOURS, useLua } from './support/modScenario.ts';

describe.each(LUA_FLAVOURS)('mod in Lua %s: pause and the pause order', (lua) => {
  useLua(lua);
  it('stops exactly at pauseAt, reports stop, sends a pause action without stamp while standing', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', { started: true, speed: 4, lead: 2 });
    tick(g, 20, 3);
    s.send('Session', { started: true, speed: 4, lead: 2, pauseAt: T0 + 2000 });
    tick(g, 20, 100);
    expect(g.engine().t).toBe(T0 + 2000);
    tick(g, 20);
    const clock = s.outOf('Clock').at(-1)!;
    expect(clock).toMatchObject({ t: T0 + 2000, speed: 0, stop: true });
    expect(g.command({ tag: 'p1' }, 'build')).toBe(true);
    tick(g, 20, 10);
    expect(s.outOf('Action').at(-1)).toEqual({ seq: 1, body: { tag: 'p1' }, category: 'build', pause: true });
    expect(g.engine().applied).toEqual([]);
    expect(g.engine().t).toBe(T0 + 2000);
  });

  it('a game already past pauseAt stands where it is and reports its real t', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20, 10);
    s.send('Session', { ...started, pauseAt: T0 + 1000 });
    tick(g, 20, 5);
    tick(g, 20);
    expect(g.engine().t).toBe(T0 + 2000);
    expect(s.outOf('Clock').at(-1)).toMatchObject({ t: T0 + 2000, stop: true });
  });

  it('treats a pauseAt before the time its world was loaded at as that time (G5, L.loadedAt)', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', { ...started, pauseAt: T0 - 600 });
    tick(g, 20, 5);
    tick(g, 20);
    expect(g.engine().t).toBe(T0);
    expect(g.status().pauseAt).toBe(T0);
    expect(s.outOf('Clock').at(-1)).toMatchObject({ t: T0, stop: true });
    expect(s.modLog()).toContain('pauseAt 2999999400 lies before this world was loaded at 3000000000');
  });

  it('stamps an action made before the session started (no pause action), applied after the start', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', { started: false, speed: 1, lead: 2, pauseAt: T0 });
    tick(g, 20);
    expect(g.command({ tag: 'early' })).toBe(true);
    tick(g, 20, 5);
    expect(s.outOf('Action')).toEqual([{ stamp: T0 + 2 * STEP, seq: 1, body: { tag: 'early' }, category: 'other' }]);
    echoOwn(s, 1); // the host's copy (the host relays every Action to its origin too)
    s.send('Session', started);
    tick(g, 20, 5);
    expect(g.engine().applied).toEqual([{ t: T0 + 2 * STEP, cmd: { tag: 'early' } }]);
  });

  it('applies a flush only once pauseUpto is read, in pauseSeq order, at its stamp, then stands again', async () => {
    const { s, g } = await setup(1);
    g.init();
    const pauseAt = T0 + 1000;
    s.send('Session', { ...started, pauseAt });
    tick(g, 20, 20);
    expect(g.engine().t).toBe(pauseAt);
    // a flush at the stop: item 2 of 3 arrives first... the host relays in order, but the game must wait for 3
    s.send('Action', flushItem(pauseAt, 1, 1, 'f1', 1, 2));
    tick(g, 20, 5);
    expect(g.engine().applied).toEqual([]);
    expect(s.outOf('Clock').at(-1)).toMatchObject({ pause: 1 });
    s.send('Action', flushItem(pauseAt, 0, 4, 'f2', 2, 2));
    tick(g, 20, 5);
    expect(g.engine().applied.map((a) => `${a.cmd.tag}@${a.t - T0}`)).toEqual(['f1@1000', 'f2@1000']);
    expect(g.engine().t).toBe(pauseAt);
    // a later flush ahead of the stop: run at speed 1 to it, apply there, stand still again
    s.send('Action', flushItem(pauseAt + 600, 0, 5, 'f3', 3, 3));
    tick(g, 20);
    expect(g.engine().wanted).toBe(1);
    expect(g.engine().limit).toBe(pauseAt + 600);
    g.step(10);
    tick(g, 20, 10);
    expect(g.engine().t).toBe(pauseAt + 600);
    expect(g.engine().applied.map((a) => `${a.cmd.tag}@${a.t - T0}`)).toEqual(['f1@1000', 'f2@1000', 'f3@1600']);
    tick(g, 20);
    expect(s.outOf('Clock').at(-1)).toMatchObject({ t: pauseAt + 600, stop: true, pause: 3 });
    // unpause: the ordinary action stamped at the stop comes after the flush items there
    s.send('Action', { stamp: pauseAt + 600, seq: 9, body: { tag: 'a' }, from: 2, allowed: true });
    s.send('Session', started);
    tick(g, 20, 3);
    expect(g.engine().applied.map((a) => a.cmd.tag)).toEqual(['f1', 'f2', 'f3', 'a']);
  });

  it('an incomplete flush holds the barrier even when not paused', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    s.send('Action', flushItem(T0 + 600, 0, 1, 'f', 1, 2));
    tick(g, 20, 20);
    expect(g.engine().t).toBe(T0 + 600);
    s.send('Action', flushItem(T0 + 600, 0, 2, 'g', 2, 2));
    tick(g, 20, 20);
    expect(g.engine().applied.map((a) => `${a.cmd.tag}@${a.t - T0}`)).toEqual(['f@600', 'g@600']);
    expect(g.engine().t).toBeGreaterThan(T0 + 600);
  });
});

describe.each(LUA_FLAVOURS)('mod in Lua %s: the link', (lua) => {
  useLua(lua);
  it('skips lines that do not parse and payloads that do not fit, and keeps working', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.sendRaw('no tab here\n');
    s.sendRaw('Session\t{"started": tru\n');
    s.sendRaw('Session\t[1,2]\n');
    s.sendRaw('Mystery\t{"a":1}\n');
    s.send('PeerClock', { from: 'x', t: 5 });
    s.send('PeerClock', { from: 1, t: T0 });
    s.send('Action', { stamp: -5, seq: 1, from: 2, body: {} });
    s.send('Action', { stamp: T0, seq: 0, from: 2, body: {} });
    s.send('Action', { stamp: T0, seq: 1, from: 70000, body: {} });
    s.send('Action', { seq: 1, from: 2, body: {}, pause: true });
    s.send('Chat', { text: 'hello\nworld', from: 0, name: 'Host' });
    s.send('Session', started);
    tick(g, 20, 3);
    expect(g.engine().t).toBe(T0 + 3 * STEP);
    const log = s.modLog();
    expect(log).toContain('to_game.log@0: no tab, line skipped');
    expect(log).toContain('to_game.log@12: Session payload is not a JSON object');
    expect(log).toContain('lines of kind Mystery are not handled yet');
    expect(log).toContain('PeerClock without a valid from and t');
    expect(log).toContain('PeerClock about this game itself');
    expect(log).toContain('Action 2:1 without a valid stamp');
    expect(log).toContain('Action without a valid from and seq');
    expect(log).toContain('without pauseSeq (not stamped by the host)');
    expect(log).toContain('CHAT Host (0): hello world');
    expect(g.engine().applied).toEqual([]);
  });

  it('never takes an incomplete line; takes it once completed', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.sendRaw('Session\t{"started":true,"speed":1,');
    tick(g, 20, 3);
    expect(g.engine().t).toBe(T0);
    s.sendRaw('"lead":2}\n');
    tick(g, 20, 3);
    expect(g.engine().t).toBe(T0 + 3 * STEP);
  });

  it('starts reading at identity start=<gen>:<offset>', async () => {
    const pre = 'Session\t{"started":true,"speed":1,"lead":2}\n';
    const { s, g } = await setup(1, `1:${pre.length}`);
    s.sendRaw(pre);
    s.send('Session', { started: false, speed: 1, lead: 2 });
    g.init();
    tick(g, 20, 3);
    expect(g.engine().t).toBe(T0);
    expect(g.status().started).toBe(false);
  });

  it('reads a replaced (shorter) to_game.log again from byte 0', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', { started: true, speed: 1, lead: 2, pauseAt: T0 + 400 });
    s.send('Chat', { text: 'x'.repeat(200), from: 0, name: 'Host' });
    tick(g, 20, 10);
    expect(g.engine().t).toBe(T0 + 400);
    writeFileSync(join(s.dir, 'to_game.log'), 'Session\t{"started":true,"speed":1,"lead":2}\n');
    tick(g, 20, 3);
    expect(s.modLog()).toContain('to_game.log is shorter than what was read');
    expect(g.engine().t).toBe(T0 + 400 + 3 * STEP);
  });

  it('starts again when identity.txt names a new start (a new launcher session in the folder)', async () => {
    const { s, g } = await setup(1, '1:0');
    g.init();
    s.send('Session', started);
    s.send('PeerClock', { from: 0, t: T0, ahead: 2, safe: T0 + 600 });
    tick(g, 20, 10);
    expect(g.engine().t).toBe(T0 + 600);
    tick(g, 1500, 0); // identity unchanged: nothing happens
    expect(s.outOf('Hello')).toHaveLength(1);
    writeFileSync(join(s.dir, 'to_game.log'), '');
    writeFileSync(join(s.dir, 'identity.txt'), 'name=game1\nid=1\nrole=player\nstart=2:0\n');
    s.send('Session', started);
    tick(g, 1500, 5);
    expect(s.outOf('Hello')).toEqual([{ time: T0 }, { time: T0 + 600 }]);
    expect(s.modLog()).toContain('identity.txt names a new start 2:0 (was 1:0)');
    expect(g.engine().t).toBe(T0 + 600 + 5 * STEP); // the old peer is forgotten: alone in the new session
  });

  it('writes every batch as complete lines (no torn line, one line per payload)', async () => {
    const { s, g } = await setup(0);
    g.init();
    s.send('Session', started);
    for (let i = 0; i < 30; i++) {
      g.command({ tag: `c${i}`, text: 'line\nbreak "quoted" \\ é' });
      tick(g, 35, 1);
    }
    const raw = readFileSync(join(s.dir, 'from_game.log'), 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = s.out();
    expect(lines.filter((l) => l.kind === 'Action')).toHaveLength(30);
    const first = lines.find((l) => l.kind === 'Action')!.payload.body as { text: string };
    expect(first.text).toBe('line\nbreak "quoted" \\ é');
    expectActionsBeforeClocks(lines);
  });
});

describe.each(LUA_FLAVOURS)('mod in Lua %s: random', (lua) => {
  useLua(lua);
  it('reseeds from the game time each step: two games draw the same numbers at the same t', async () => {
    const a = await setup(0);
    const b = await setup(1);
    for (const { s, g } of [a, b]) {
      g.init();
      s.send('Session', started);
      tick(g, 20, 12);
    }
    const da = a.g.engine().draws;
    const db = b.g.engine().draws;
    expect(da).toHaveLength(12);
    expect(da).toEqual(db);
    expect(new Set(da.map((d) => d.r)).size).toBe(12);
    expect(da.every((d) => Number.isInteger(d.k) && d.k >= 1 && d.k <= 1000)).toBe(true);
    const seededTwice = a.g.run(`
      local R = require('feverlink3_random')
      R.seed(5); local x = math.random()
      R.seed(5); math.randomseed(123456); local y = math.random()
      return x == y`);
    expect(seededTwice).toBe(true);
    a.g.frame();
    expect(a.s.modLog()).toContain('math.randomseed ignored');
  });
});
