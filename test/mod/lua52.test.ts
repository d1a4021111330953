// The mod under the Lua the game embeds (Lua 5.2, Debian's lua5.2): every mod file compiles with `luac5.2 -p`,
// the plain-Lua unit tests pass under lua5.2 AND under wasmoon (Lua 5.4), and both give the same random numbers
// and the same JSON text (architecture §7 item 2: the same sequence on every game).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLuaSummary, declaredLuaTests, luaSources, modDir, newLuaState, repoRoot } from './support/luaMod.ts';
import { installLuaFs } from './support/luaFs.ts';
import { makeSessionFolder, type SessionFolder } from './support/sessionFolder.ts';

const INSTALL = "install Debian's lua5.2 (apt-get install -y lua5.2)";

function requireLua52(): void {
  for (const bin of ['lua5.2', 'luac5.2']) {
    const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
    if (r.error) throw new Error(`${bin} is missing: ${INSTALL}`);
  }
}

const luaFiles = [
  ...readdirSync(modDir).filter((f) => f.endsWith('.lua')).map((f) => join('mod', f)),
  ...readdirSync(join(modDir, 'tests')).filter((f) => f.endsWith('.lua')).map((f) => join('mod', 'tests', f)),
  join('test', 'mod', 'support', 'engine_double.lua'),
  join('test', 'mod', 'support', 'session_drive.lua'),
];

const DRIVE = join(import.meta.dirname, 'support', 'session_drive.lua');

/** A session folder with the peers' lines the drive script meets: a Session and two actions of player 1. */
function driveFolder(): SessionFolder {
  const s = makeSessionFolder(0);
  s.send('Session', { started: true, speed: 1, lead: 2 });
  s.send('Action', { stamp: 3000000600, seq: 2, body: { tag: 'p2', n: -7 }, from: 1, allowed: true });
  s.send('Action', { stamp: 3000000600, seq: 1, body: { tag: 'p1' }, from: 1, allowed: true });
  return s;
}

/** from_game.log without the Clock lines (their number follows the wall clock, which differs between runs). */
function noClocks(s: SessionFolder): string[] {
  return readFileSync(join(s.dir, 'from_game.log'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('Clock\t'));
}

// Numbers of the generator and JSON texts, printed the same way by both Lua versions.
const CROSS_SCRIPT = `
local R = require('feverlink3_random')
local J = require('feverlink3_json')
local out = {}
for _, t in ipairs({ 0, 200, 10341800, 3000000000, 9007199254740000 }) do
  R.seed(t)
  for _ = 1, 5 do
    out[#out + 1] = J.num(R.random()) .. ' ' .. J.num(R.random(1, 1000000)) .. ' ' .. J.num(R.random(6))
  end
end
out[#out + 1] = J.encode({ a = 3000000000, b = 1.5, c = { 1, 2.25, -0.0, 1e300, 1 / 3 },
  d = J.decode('[1e3, 7.0, -2]') })
out[#out + 1] = J.encode(J.decode('{"t":9007199254740991,"s":"\\\\u00e9\\\\n","x":[],"y":{}}'))
return table.concat(out, '\\n')
`;

describe('mod under Lua 5.2', () => {
  it('has lua5.2 and luac5.2', () => {
    requireLua52();
  });

  it.each(luaFiles)('luac5.2 -p %s', (file) => {
    requireLua52();
    const r = spawnSync('luac5.2', ['-p', file], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(luaFiles)('%s never formats with %%d (Lua 5.2.2 in TF3 throws above 2^31)', (file) => {
    const src = readFileSync(join(repoRoot, file), 'utf8');
    expect(src).not.toMatch(/format\s*\(?\s*['"][^'"\n]*%[-+ #0-9.]*[di]/);
  });

  it('passes the plain-Lua unit tests (lua5.2 mod/tests/run.lua)', () => {
    requireLua52();
    const r = spawnSync('lua5.2', ['mod/tests/run.lua'], { cwd: repoRoot, encoding: 'utf8', timeout: 20_000 });
    expect(checkLuaSummary(r.stdout + r.stderr, '5.2', declaredLuaTests()).passed).toBeGreaterThanOrEqual(40);
    expect(r.status).toBe(0);
  });

  it('fails the run (exit status 1) when a unit test fails', () => {
    requireLua52();
    const dir = mkdtempSync(join(tmpdir(), 'fl3-lua-'));
    try {
      const script = join(dir, 'failing.lua');
      writeFileSync(script, `package.path = '${join(modDir, 'tests')}/?.lua;' .. package.path
        local T = require('testlib'); T.test('fails', function() T.eq(1, 2) end); T.report()`);
      const r = spawnSync('lua5.2', [script], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('FAIL');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the run (exit status 1) when no unit test ran, and the pass check refuses it', () => {
    requireLua52();
    const dir = mkdtempSync(join(tmpdir(), 'fl3-lua-'));
    try {
      const script = join(dir, 'empty.lua');
      writeFileSync(script, `package.path = '${join(modDir, 'tests')}/?.lua;' .. package.path
        local T = require('testlib'); T.report()`);
      const r = spawnSync('lua5.2', [script], { encoding: 'utf8' });
      expect(r.stdout).toContain('0 passed, 0 failed (Lua 5.2)');
      expect(r.status).toBe(1);
      expect(() => checkLuaSummary(r.stdout + r.stderr, '5.2')).toThrow(/only 0 Lua unit test\(s\) passed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the pass check refuses 0 passed, a missing or doubled summary, a failure, the wrong Lua, too few passed', () => {
    const ok = '48 passed, 0 failed (Lua 5.2)';
    expect(checkLuaSummary(`x\n${ok}\n`, '5.2', 48)).toEqual({ passed: 48 });
    for (const [output, why] of [
      ['0 passed, 0 failed (Lua 5.2)', /only 0/],
      ['', /found 0/],
      ['all good', /found 0/],
      ['48 passed, 0 failed', /found 0/],
      [`${ok}\n${ok}`, /found 2/],
      ['47 passed, 1 failed (Lua 5.2)', /1 Lua unit test\(s\) failed/],
      ['48 passed, 0 failed (Lua 5.4)', /under Lua 5\.4/],
      ['47 passed, 0 failed (Lua 5.2)', /only 47/],
    ] as const) {
      expect(() => checkLuaSummary(output, '5.2', 48), JSON.stringify(output)).toThrow(why);
    }
  });

  it('passes the same unit tests under Lua 5.4 (wasmoon)', async () => {
    const lua = await newLuaState(luaSources(true));
    try {
      const printed: string[] = [];
      lua.global.set('print', (...args: unknown[]) => void printed.push(args.map(String).join('\t')));
      let failure = '';
      try {
        lua.doStringSync("require('run')");
      } catch (err) {
        failure = String(err);
      }
      expect(failure).toBe('');
      expect(checkLuaSummary(printed.join('\n'), '5.4', declaredLuaTests()).passed).toBeGreaterThanOrEqual(40);
    } finally {
      lua.global.close();
    }
  });

  it('runs the whole session controller the same way in lua5.2 and in wasmoon', async () => {
    requireLua52();
    const a = driveFolder();
    const b = driveFolder();
    const lua = await newLuaState(luaSources());
    try {
      const script = `package.path = '${modDir}/?.lua;${join(import.meta.dirname, 'support')}/?.lua;' .. package.path
        print(dofile('${DRIVE}'))`;
      const dir = mkdtempSync(join(tmpdir(), 'fl3-lua-'));
      writeFileSync(join(dir, 'drive.lua'), script);
      const env = { ...process.env, FEVERLINK3_SESSION_DIR: a.dir };
      const r = spawnSync('lua5.2', [join(dir, 'drive.lua')], { encoding: 'utf8', env });
      rmSync(dir, { recursive: true, force: true });
      expect(r.stderr).toBe('');
      const wall = { ms: 1000 };
      const closeFs = installLuaFs(lua, { FEVERLINK3_SESSION_DIR: b.dir }, wall);
      lua.global.set('__drive', readFileSync(DRIVE, 'utf8'));
      const in54 = String(lua.doStringSync("return assert(load(__drive, '@session_drive.lua'))()"));
      closeFs();
      expect(r.stdout.trimEnd()).toBe(in54);
      const snapshot = JSON.parse(in54) as { applied: { t: number; cmd: { tag: string } }[] };
      expect(snapshot.applied.map((x) => `${x.cmd.tag}@${x.t}`)).toEqual([
        'own@3000000400',
        'p1@3000000600',
        'p2@3000000600',
      ]);
      expect(noClocks(a)).toEqual(noClocks(b));
      const body = '{"big":3000000001,"empty":{},"f":0.5,"list":[1,2.5,"x"],"tag":"own"}';
      expect(noClocks(a)).toContain(`Action\t{"body":${body},"category":"build","seq":1,"stamp":3000000400}`);
      expect(noClocks(a).filter((l) => l.startsWith('ActionRefused'))).toHaveLength(3);
    } finally {
      lua.global.close();
      a.cleanup();
      b.cleanup();
    }
  });

  it('gives the same random numbers and JSON text in lua5.2 and in wasmoon', async () => {
    requireLua52();
    const dir = mkdtempSync(join(tmpdir(), 'fl3-lua-'));
    const lua = await newLuaState(luaSources());
    try {
      const script = join(dir, 'cross.lua');
      const wrapped = `package.path = '${modDir}/?.lua;' .. package.path\nprint((function() ${CROSS_SCRIPT} end)())`;
      writeFileSync(script, wrapped);
      const r = spawnSync('lua5.2', [script], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      const in54 = String(lua.doStringSync(CROSS_SCRIPT));
      expect(r.stdout.trimEnd()).toBe(in54);
      expect(in54).not.toMatch(/\d\.0\b/); // no integer printed as a float
      expect(in54).toContain('"a":3000000000');
    } finally {
      lua.global.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
