// The mod's bounds with real files in a temp session folder (docs/ENGINE.md §7): an outbox that cannot be
// appended keeps its lines in order, stands the world still when full and drops new commands on every game alike,
// then writes everything once from_game.log takes lines again; an over-long to_game.log line is skipped without
// holding it (in wasmoon and in lua5.2), and a line that names a JSON key twice is refused; the next good line
// still counts.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { T0, setup, tick, echoOwn, expectActionsBeforeClocks, started, LUA_FLAVOURS, useLua } from './support/modScenario.ts';
import { modDir } from './support/luaMod.ts';
import { makeSessionFolder } from './support/sessionFolder.ts';

const SUPPORT = join(import.meta.dirname, 'support');

describe.each(LUA_FLAVOURS)('mod bounds in Lua %s: the outbox while from_game.log takes no lines', (lua) => {
  useLua(lua);
  it('keeps lines in order, stands still when full, drops new commands everywhere alike, then writes all', async () => {
    const { s, g } = await setup(1);
    g.init();
    s.send('Session', started);
    s.send('PeerClock', { from: 0, t: T0, ahead: 2, safe: T0 + 100 * 200 });
    tick(g, 0, 0);
    g.run("require('feverlink3_outbox').MAX_LINES = 12");
    const fromGame = join(s.dir, 'from_game.log');
    const before = readFileSync(fromGame, 'utf8');
    // from_game.log replaced by a folder: every append fails (also for root)
    rmSync(fromGame);
    mkdirSync(fromGame);
    const carried: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      carried.push(g.command({ op: 'build', i }, 'build'));
      tick(g, 50, 1);
    }
    expect(carried.every((c) => c)).toBe(true); // never applied natively
    const status = g.status() as unknown as Record<string, unknown>;
    expect(status.outbox).toBe(12);
    expect(status.held).toBe(true);
    expect(Number(status.dropped)).toBeGreaterThan(0);
    expect(Number(status.appendFailures)).toBeGreaterThan(5);
    expect(g.engine().limit).toBe(g.engine().t); // stands where it is
    const t = g.engine().t;
    expect(tick(g, 50, 3)).toBe(0);
    expect(g.engine().t).toBe(t);
    expect(s.modLog()).toContain('cannot append to from_game.log');
    expect(s.modLog()).toContain('standing still');
    expect(s.modLog()).toContain('command dropped');

    // The folder goes, the file comes back: everything kept is written, in order, and the game runs on.
    rmSync(fromGame, { recursive: true });
    writeFileSync(fromGame, before);
    for (let i = 0; i < 30; i++) {
      echoOwn(s, 1); // the host's copies of the own actions written so far
      tick(g, 50, 1);
    }
    expect(g.status() as unknown as Record<string, unknown>).toMatchObject({ held: false, outbox: 0 });
    expect(g.engine().t).toBeGreaterThan(t);
    const actions = s.outOf('Action');
    const seqs = actions.map((a) => Number(a.seq));
    expect(seqs).toEqual(seqs.map((_, k) => k + 1)); // no gap: a dropped command took no seq
    expectActionsBeforeClocks(s.out());
    // every own action the world applied was sent, and nothing dropped was applied
    const applied = g.engine().applied.map((a) => Number(a.cmd.i));
    const sent = actions.map((a) => Number((a.body as { i: number }).i));
    expect(applied.length).toBeGreaterThan(0);
    expect(applied).toEqual(sent.slice(0, applied.length));
    expect(s.modLog()).toContain('from_game.log takes lines again');
  });
});

describe.each(LUA_FLAVOURS)('mod bounds in Lua %s: hostile to_game.log lines', (lua) => {
  useLua(lua);
  it('skips a line longer than 1 MiB without holding it, refuses a duplicate key, applies the next good line', async () => {
    const { s, g } = await setup(2);
    g.init();
    s.sendRaw(`Chat\t{"text":"${'x'.repeat(1024 * 1024 + 10)}"}\n`);
    s.send('Session', { started: false, speed: 1, lead: 2 });
    s.sendRaw('Session\t{"started":true,"started":false,"speed":1,"lead":2}\n');
    for (let i = 0; i < 4; i++) tick(g, 20, 0);
    expect(g.status().started).toBe(false);
    expect(s.modLog()).toContain('line longer than 1048576 bytes, skipped');
    expect(s.modLog()).toContain('duplicate key "started"');
    s.send('Session', started);
    tick(g, 20, 0);
    expect(g.status().started).toBe(true);
  });

  // A plain lua5.2 script (no driver): once, in the Lua 5.2 block.
  if (lua === '5.2') it('lua5.2 reads the same lines the same way (an over-long line skipped in pieces)', () => {
    const folder = makeSessionFolder(2);
    const dir = mkdtempSync(join(tmpdir(), 'fl3-lua-'));
    try {
      folder.send('Session', { started: false, speed: 1, lead: 2 });
      folder.sendRaw(`Chat\t{"text":"${'y'.repeat(3 * 1024 * 1024)}"}\n`);
      folder.sendRaw('PlayerJoined\t{"player":{"id":4,"name":"a","name":"b","ready":true}}\n');
      folder.send('Session', started);
      const script = join(dir, 'read.lua');
      writeFileSync(
        script,
        `package.path = '${modDir}/?.lua;${SUPPORT}/?.lua;' .. package.path
        local D = require('engine_double')
        D.t = ${T0}
        local fl3 = require('feverlink3')
        assert(fl3.init(), 'inactive')
        for _ = 1, 8 do fl3.frame() end
        print(tostring(fl3.status().started))`,
      );
      const r = spawnSync('lua5.2', [script], { encoding: 'utf8', env: { ...process.env, FEVERLINK3_SESSION_DIR: folder.dir } });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('true');
      const log = folder.modLog();
      expect(log.match(/line longer than 1048576 bytes, skipped/g)).toHaveLength(1);
      expect(log).toContain('duplicate key "name"');
      expect(log).not.toContain('player joined');
    } finally {
      folder.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a launcher writing bad lines in a loop leaves mod.log bounded', async () => {
    const { s, g } = await setup(2);
    g.init();
    let text = '';
    for (let i = 0; i < 3000; i++) text += `no tab ${i}\nSession\t{bad ${i}\nAction\t{"from":1}\n`;
    appendFileSync(join(s.dir, 'to_game.log'), text);
    s.send('Session', started);
    for (let i = 0; i < 5; i++) tick(g, 20, 0);
    expect(g.status().started).toBe(true);
    const lines = s.modLog().split('\n');
    expect(lines.filter((l) => l.includes('skipped')).length).toBeLessThan(40);
    expect(s.modLog()).toContain('1000 lines skipped so far for: no tab');
  });
});
