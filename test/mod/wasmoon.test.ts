// The Lua mod in wasmoon (Lua 5.4) and in Debian's lua5.2 (the game's Lua; every block runs in both) with a TEST
// DOUBLE engine and real files in a temp session folder: Hello, Clock lines and the promise, the barrier (setLimit),
// stamps and apply order, verdicts and late items (spec/lockstep.md; docs/ENGINE.md). Pause, the link and random:
// wasmoon.pause.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { T0, STEP, setup, tick, expectActionsBeforeClocks, echoOwn, started, disposers, LUA_FLAVOURS, useLua } from './support/modScenario.ts';
import { loadGame } from './support/luaMod.ts';
import { makeSessionFolder } from './support/sessionFolder.ts';

describe.each(LUA_FLAVOURS)('mod in Lua %s: start', (lua) => {
  useLua(lua);
  it('stays inactive without FEVERLINK3_SESSION_DIR: command false, no limit, math.random untouched', async () => {
    const g = await loadGame({ t0: T0, lua });
    disposers.push(() => g.close());
    g.run('__orig = math.random');
    expect(g.init()).toBe(false);
    expect(g.command({ op: 'x' })).toBe(false);
    g.frame();
    expect(g.engine().limit).toBeUndefined();
    expect(g.run('return math.random == __orig')).toBe(true);
    expect(g.status().active).toBe(false);
  });

  it('stays inactive without identity.txt', async () => {
    const s = makeSessionFolder(1);
    writeFileSync(join(s.dir, 'identity.txt'), 'name=x\n');
    const g = await loadGame({ sessionDir: s.dir, t0: T0, lua });
    disposers.push(() => g.close(), () => s.cleanup());
    expect(g.init()).toBe(false);
    expect(s.modLog()).toContain('identity.txt has no valid id');
  });

  it('says Hello {time} first, logs the official api probe, stands still until the session starts', async () => {
    const { s, g } = await setup(2);
    expect(g.init()).toBe(true);
    expect(s.out()[0]).toEqual({ kind: 'Hello', payload: { time: T0 } });
    expect(s.modLog()).toContain('official api probe: io=true os.getenv=true os.clock=true');
    s.send('Session', { started: false, speed: 1, lead: 2 });
    expect(tick(g, 20, 5)).toBe(0);
    expect(g.engine().limit).toBe(T0);
    expect(g.engine().wanted).toBe(0);
    const clock = s.outOf('Clock')[0]!;
    expect(clock).toEqual({ t: T0, speed: 0, ahead: 2, safe: T0 + 2 * STEP });
    expect(readFileSync(join(s.dir, 'from_game.log'), 'utf8')).toContain('"t":3000000000');
  });

  it('ends a torn tail of from_game.log with a newline before writing (restart after a crash)', async () => {
    const s = makeSessionFolder(0);
    writeFileSync(join(s.dir, 'from_game.log'), 'Clock\t{"t":12\n' + 'Clock\t{"t":1');
    const g = await loadGame({ sessionDir: s.dir, t0: T0, lua });
    disposers.push(() => g.close(), () => s.cleanup());
    g.init();
    const text = readFileSync(join(s.dir, 'from_game.log'), 'utf8');
    expect(text).toBe('Clock\t{"t":12\nClock\t{"t":1\nHello\t{"time":3000000000}\n');
  });
});

describe.each(LUA_FLAVOURS)('mod in Lua %s: clock, promise and barrier', (lua) => {
  useLua(lua);
  it('alone: runs freely; Clock at most every 100 wall ms while t moves, safe rising and exact', async () => {
    const { s, g } = await setup(0);
    g.init();
    s.send('Session', { started: true, speed: 2, lead: 3 });
    tick(g, 0, 0);
    expect(g.engine().limit).toBeUndefined();
    expect(g.engine().wanted).toBe(2);
    for (let i = 0; i < 20; i++) tick(g, 40, 1);
    const clocks = s.outOf('Clock');
    // 20 frames of 40 ms = 800 ms: one at the start, then at most one per 100 ms
    expect(clocks.length).toBeGreaterThanOrEqual(6);
    expect(clocks.length).toBeLessThanOrEqual(10);
    let prev = 0;
    for (const c of clocks) {
      expect(Number(c.safe)).toBeGreaterThanOrEqual(prev);
      expect(Number(c.safe) % STEP).toBe(0);
      expect(Number(c.safe)).toBeGreaterThanOrEqual(Number(c.t) + 3 * STEP);
      prev = Number(c.safe);
    }
    expect(Number(clocks.at(-1)!.t)).toBeGreaterThanOrEqual(T0 + 17 * STEP); // at most ~100 ms old
  });

  it('writes a heartbeat Clock every second while nothing changes, and at once when stop changes', async () => {
    const { s, g } = await setup(0);
    g.init();
    s.send('Session', started);
    tick(g, 0);
    const n0 = s.outOf('Clock').length;
    for (let i = 0; i < 10; i++) tick(g, 50); // t does not move (no steps): 500 ms, no line
    expect(s.outOf('Clock').length).toBe(n0);
    for (let i = 0; i < 11; i++) tick(g, 50);
    expect(s.outOf('Clock').length).toBe(n0 + 1);
    s.send('Session', { ...started, pauseAt: T0 });
    tick(g, 1);
    const last = s.outOf('Clock').at(-1)!;
    expect(last.stop).toBe(true);
  });

  it('never steps past the lowest promise of the pacing peers; stands exactly at it', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', { started: true, speed: 4, lead: 2 });
    s.send('PeerClock', { from: 0, t: T0, ahead: 2, safe: T0 + 1000 });
    s.send('PeerClock', { from: 2, t: T0, ahead: 2, safe: T0 + 1400 });
    expect(tick(g, 20, 50)).toBe(5);
    expect(g.engine().t).toBe(T0 + 1000);
    expect(g.engine().limit).toBe(T0 + 1000);
    expect(g.status().barrier).toBe(T0 + 1000);
    s.send('PeerClock', { from: 0, t: T0 + 800, ahead: 2, safe: T0 + 2000, need: T0 + 1200 });
    expect(tick(g, 20, 50)).toBe(1);
    expect(g.engine().t).toBe(T0 + 1200);
    s.send('PeerClock', { from: 0, t: T0 + 800, ahead: 2, safe: T0 + 2000 });
    tick(g, 20, 50);
    expect(g.engine().t).toBe(T0 + 1400);
  });

  it('a stalled peer bounds it by the host’s promise; left peers and outsiders do not (lockstep.md "Stalls")', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    s.send('PeerClock', { from: 0, t: T0, ahead: 2, safe: T0 + 4000 });
    // 2 is stalled: the host's promise (its relayed safe) stands in, its own need no longer counts
    s.send('PeerClock', { from: 2, t: T0, ahead: 2, safe: T0 + 1200, need: T0 + 200, stalled: true });
    s.send('PeerClock', { from: 3, t: T0, ahead: 2, safe: T0 + 200 });
    s.send('PlayerLeft', { id: 3, name: 'gone' });
    // 4 is an outsider: relayed stalled with no safe
    s.send('PeerClock', { from: 4, t: T0, ahead: 2, stalled: true });
    tick(g, 20);
    expect(g.engine().limit).toBe(T0 + 1200);
    expect(tick(g, 20, 50)).toBe(6);
    expect(g.engine().t).toBe(T0 + 1200);
    // 2 paces again with a fresh clock: its own min(safe, need)
    s.send('PeerClock', { from: 2, t: T0 + 200, ahead: 2, safe: T0 + 2000, need: T0 + 1600 });
    tick(g, 20);
    expect(g.engine().limit).toBe(T0 + 1600);
    // listed in Session.stalled before its stalled PeerClock is read: its own last promise still holds
    s.send('Session', { ...started, stalled: [2] });
    tick(g, 20);
    expect(g.engine().limit).toBe(T0 + 1600);
    // a peer that left stays out, whatever it last promised
    s.send('PeerClock', { from: 3, t: T0 + 5000, ahead: 2, safe: T0 + 200 });
    tick(g, 20);
    expect(g.engine().limit).toBe(T0 + 1600);
  });
});

describe.each(LUA_FLAVOURS)('mod in Lua %s: actions', (lua) => {
  useLua(lua);
  it('stamps its own action, writes it before the Clock that passes it, applies it at the stamp once the host’s copy came', async () => {
    const { s, g } = await setup(0);
    g.init();
    s.send('Session', { started: true, speed: 1, lead: 3 });
    tick(g, 0, 0);
    for (let i = 0; i < 4; i++) tick(g, 100, 1);
    const t = g.engine().t;
    const safe = g.status().safe;
    expect(g.command({ op: 'build', tag: 'a1' }, 'build')).toBe(true);
    const stamp = Math.max(safe, Math.ceil((t + 3 * STEP) / STEP) * STEP);
    // unconfirmed, it holds the limit at its stamp at once (the engine may step before the next frame)
    expect(g.engine().limit).toBe(stamp);
    expect(g.status()).toMatchObject({ unconfirmed: 1, barrier: stamp });
    // without the host's copy the game stands at the stamp, applying nothing
    for (let i = 0; i < 10; i++) tick(g, 100, 1);
    expect(g.engine().t).toBe(stamp);
    expect(g.engine().applied).toEqual([]);
    const action = s.outOf('Action')[0]!;
    expect(action).toEqual({ stamp, seq: 1, body: { op: 'build', tag: 'a1' }, category: 'build' });
    expectActionsBeforeClocks(s.out());
    // the host's copy comes back: applied at its stamp, and the game runs on
    echoOwn(s, 0);
    for (let i = 0; i < 3; i++) tick(g, 100, 1);
    expect(g.status().unconfirmed).toBe(0);
    expect(g.engine().t).toBeGreaterThan(stamp);
    const applied = g.engine().applied;
    expect(applied).toEqual([{ t: stamp, cmd: { op: 'build', tag: 'a1' } }]);
    expect(s.outOf('ActionRefused')).toEqual([{ seq: 1, from: 0, applied: true }]);
    expect(s.modLog()).toContain('own Action 0:1 confirmed by the host (allowed)');
  });

  it('says once when it stands at the stamp of an own action whose copy does not come', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    g.command({ tag: 'lost' });
    for (let i = 0; i < 40; i++) tick(g, 100, 1);
    expect(g.engine().t).toBe(T0 + 2 * STEP);
    expect(g.engine().applied).toEqual([]);
    const said = s.modLog().split('\n').filter((l) => l.includes('own action 1:1 waits for the host'));
    expect(said).toHaveLength(1);
  });

  it('applies the actions of one stamp in (from, seq) order, whatever the arrival order; logs MARGIN', async () => {
    const { s, g } = await setup(2);
    g.init();
    s.send('Session', started);
    const st = T0 + 1000;
    for (const [from, seq] of [[3, 2], [1, 5], [3, 1], [0, 9], [1, 4]] as const) {
      s.send('Action', { stamp: st, seq, body: { tag: `${from}:${seq}` }, from, allowed: true });
    }
    s.send('Action', { stamp: st - STEP, seq: 7, body: { tag: '4:7' }, from: 4, allowed: true });
    tick(g, 20, 20);
    tick(g, 20);
    expect(g.engine().applied.map((a) => `${a.cmd.tag}@${a.t - T0}`)).toEqual([
      '4:7@800', '0:9@1000', '1:4@1000', '1:5@1000', '3:1@1000', '3:2@1000',
    ]);
    expect(s.modLog()).toMatch(/MARGIN 1:5 stamp 3000001000 t 3000000000 margin 1000 game-ms/);
    expect(s.outOf('ActionRefused')).toHaveLength(6);
  });

  it('applies a late item at once, counts it, logs LATE and says so in the verdict', async () => {
    const { s, g } = await setup(2);
    g.init();
    s.send('Session', started);
    tick(g, 20, 10);
    expect(g.engine().t).toBe(T0 + 10 * STEP);
    s.send('Action', { stamp: T0 + 4 * STEP, seq: 1, body: { tag: 'late' }, from: 1, allowed: true });
    tick(g, 20);
    expect(g.engine().applied).toEqual([{ t: T0 + 10 * STEP, cmd: { tag: 'late' } }]);
    expect(g.status().late).toBe(1);
    expect(s.modLog()).toContain('LATE 1:1 late by 1200 game-ms');
    expect(s.outOf('ActionRefused')[0]).toEqual({
      seq: 1, from: 1, applied: true, detail: 'late by 1200 game-ms (stamp 3000000800, applied at 3000002000)',
    });
  });

  it('reports refusals: engine class and detail, a throw as partial, not allowed, no body', async () => {
    const { s, g } = await setup(0);
    g.init();
    s.send('Session', started);
    const st = T0 + 400;
    s.send('Action', { stamp: st, seq: 1, body: { refuse: true }, from: 1, allowed: true });
    s.send('Action', { stamp: st, seq: 2, body: { throw: true }, from: 1, allowed: true });
    s.send('Action', { stamp: st, seq: 3, body: { ok: 1 }, category: 'bulldoze', from: 1, allowed: false });
    s.send('Action', { stamp: st, seq: 4, body: 'not an object', from: 1, allowed: true });
    s.send('Action', { stamp: st, seq: 5, body: { object: true }, from: 1, allowed: true });
    tick(g, 20, 5);
    tick(g, 20);
    const verdicts = s.outOf('ActionRefused');
    expect(verdicts[0]).toEqual({ seq: 1, from: 1, class: 'engine', detail: 'refused by the double' });
    expect(verdicts[1]).toMatchObject({ seq: 2, from: 1, class: 'engine', partial: true });
    expect(String(verdicts[1]!.detail)).toContain('the double threw');
    expect(verdicts[2]).toEqual({ seq: 3, from: 1, class: 'module', detail: 'not allowed: bulldoze' });
    expect(verdicts[3]).toEqual({ seq: 4, from: 1, class: 'decode', detail: 'the action has no body object' });
    expect(verdicts[4]).toEqual({ seq: 5, from: 1, applied: true });
  });

  it('refuses its own action at the stamp when the host’s copy says not allowed (the host’s permissions decide)', async () => {
    const { s, g } = await setup(2);
    g.init();
    s.send('Session', started);
    // the Permissions this game holds allow build: the host's `allowed` on the copy decides all the same
    s.send('Permissions', { build: 'everyone', bulldoze: 'everyone', spend: { only: [2] }, speed: 'everyone' });
    tick(g, 20);
    g.command({ tag: 'b' }, 'build');
    g.command({ tag: 's' }, 'spend');
    tick(g, 20);
    echoOwn(s, 2, (p) => p.category !== 'build');
    tick(g, 100, 10);
    tick(g, 20);
    expect(g.engine().applied.map((a) => a.cmd.tag)).toEqual(['s']);
    expect(s.outOf('ActionRefused')).toEqual([
      { seq: 1, from: 2, class: 'module', detail: 'not allowed: build' },
      { seq: 2, from: 2, applied: true },
    ]);
  });

  it('drops a vetoed action with a refused verdict; skips a copy of an own action it never made', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    s.send('Action', { stamp: T0 + 1000, seq: 3, body: { tag: 'v' }, from: 2, allowed: true });
    s.send('BuildVeto', { seq: 3, owner: 2, why: 'no node', from: 0, name: 'host', host: true });
    s.send('Action', { stamp: T0 + 1000, seq: 1, body: { tag: 'echo' }, from: 1, allowed: true });
    tick(g, 20, 10);
    expect(g.engine().applied).toEqual([]);
    expect(s.outOf('ActionRefused')).toEqual([
      { seq: 3, from: 2, class: 'module', detail: 'vetoed by the host: no node' },
    ]);
    expect(s.modLog()).toContain('own Action 1:1 came back although this game made none above 0, skipped');
  });

  it('drops its own action the host vetoes before its copy, unapplied; a copy after the veto changes nothing', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    g.command({ tag: 'outsider' }, 'build');
    tick(g, 20, 1);
    expect(g.engine().limit).toBe(T0 + 2 * STEP); // held at its stamp
    s.send('BuildVeto', { seq: 1, owner: 1, why: "the game's world is not the session's yet", from: 0, name: 'host', host: true });
    tick(g, 20);
    expect(g.status().unconfirmed).toBe(0);
    expect(g.engine().limit).toBeUndefined(); // alone: nothing holds it any more
    // a copy arriving after all (not what the host does: it vetoes or relays) is not applied
    echoOwn(s, 1);
    tick(g, 20, 10);
    tick(g, 20);
    expect(g.engine().t).toBeGreaterThan(T0 + 2 * STEP);
    expect(g.engine().applied).toEqual([]);
    expect(s.outOf('ActionRefused')).toEqual([
      { seq: 1, from: 1, class: 'module', detail: "vetoed by the host: the game's world is not the session's yet" },
    ]);
  });

  it('a copy of its own action confirms it once: another copy is no duplicate and applies nothing twice', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    g.command({ tag: 'twice' });
    tick(g, 20);
    const [copy] = echoOwn(s, 1);
    s.send('Action', copy); // the same from:seq again
    tick(g, 20, 10);
    tick(g, 20);
    s.send('Action', copy); // and after it was applied
    tick(g, 20, 2);
    expect(g.engine().applied).toEqual([{ t: T0 + 2 * STEP, cmd: { tag: 'twice' } }]);
    expect(s.outOf('ActionRefused')).toEqual([{ seq: 1, from: 1, applied: true }]);
    expect(s.modLog()).not.toContain('duplicate');
    expect(s.modLog()).not.toContain('skipped');
  });

  it('loaded again mid-session: a confirmed own action stays confirmed, an unconfirmed one waits for its copy', async () => {
    const { s, g } = await setup(1, '1:0');
    g.init();
    s.send('Session', started);
    tick(g, 20);
    g.command({ tag: 'confirmed' });
    tick(g, 20);
    echoOwn(s, 1);
    tick(g, 20);
    g.command({ tag: 'waiting' });
    tick(g, 20);
    expect(g.status()).toMatchObject({ unconfirmed: 1, queued: 2 });
    const saved = readFileSync(join(s.dir, 'mod_state.txt'), 'utf8');
    expect(saved).toMatch(/^own=.*"seq":1/m);
    expect(saved).not.toMatch(/^own=.*"seq":1.*unconfirmed/m);
    expect(saved).toMatch(/^own=.*"seq":2.*"unconfirmed":true/m);
    g.close();
    // a new Lua state in the same session and world: it reads the backlog again, the copy of 1:1 included
    const again = await loadGame({ sessionDir: s.dir, t0: T0, lua });
    disposers.push(() => again.close());
    expect(again.init()).toBe(true);
    for (let i = 0; i < 5; i++) tick(again, 20, 2);
    expect(again.status()).toMatchObject({ unconfirmed: 1, queued: 2 });
    expect(again.engine().t).toBe(T0 + 2 * STEP); // 1:2 holds it at its stamp
    expect(again.engine().applied).toEqual([]);
    echoOwn(s, 1); // the copy of 1:2 comes after the reload
    for (let i = 0; i < 3; i++) tick(again, 20, 2);
    expect(again.engine().applied.map((a) => `${String(a.cmd.tag)}@${a.t - T0}`)).toEqual(['confirmed@400', 'waiting@400']);
    expect(s.modLog()).not.toContain('duplicate');
  });

  it('applies its own action as the host relayed it: the host’s stamp, body and category', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    tick(g, 20);
    g.command({ tag: 'mine' }, 'terraform');
    tick(g, 20);
    const [sent] = s.outOf('Action');
    expect(sent).toMatchObject({ stamp: T0 + 2 * STEP, category: 'other' });
    s.send('Action', { ...sent, body: { tag: 'as relayed' }, stamp: T0 + 4 * STEP, from: 1, allowed: true });
    tick(g, 20, 10);
    tick(g, 20);
    expect(g.engine().applied).toEqual([{ t: T0 + 4 * STEP, cmd: { tag: 'as relayed' } }]);
    expect(s.modLog()).toContain('own Action 1:1 came back stamped 3000000800 (sent stamped 3000000400)');
  });

  it('parks a build with commit = true until its BuildCommit, then applies it at the commit stamp', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    s.send('Action', { stamp: T0 + 400, seq: 1, body: { tag: 'held', commit: true }, from: 2, allowed: true });
    s.send('Action', { stamp: T0 + 1200, seq: 2, body: { tag: 'plain' }, from: 2, allowed: true });
    tick(g, 20, 3);
    expect(g.engine().applied).toEqual([]);
    s.send('BuildCommit', { seq: 1, owner: 2, stamp: T0 + 1200, from: 2 });
    tick(g, 20, 10);
    expect(g.engine().applied.map((a) => `${a.cmd.tag}@${a.t - T0}`)).toEqual(['held@1200', 'plain@1200']);
  });

  it('sends SpeedRequest for the local player; rejects a speed that is not 0/1/2/4', async () => {
    const { s, g } = await setup(1);
    g.init();
    expect(g.requestSpeed(0)).toBe(true);
    expect(g.requestSpeed(3)).toBe(false);
    tick(g, 20);
    expect(s.outOf('SpeedRequest')).toEqual([{ speed: 0 }]);
  });
});

