// Loads the Lua mod into a wasmoon (Lua 5.4) state with the TEST DOUBLE engine (engine_double.lua) and the io/os
// shim of luaFs.ts, the way docs/ENGINE.md §1 says a game loads it (package.preload by base name) — or into a
// Debian lua5.2 process (the game's Lua) with real io and os, driven over two FIFOs (`loadGame({ lua: '5.2' })`).
// Gives the tests synchronous handles: frame, step, command, status, the double's snapshot.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LuaFactory, type LuaEngine } from 'wasmoon';
import { installLuaFs, type WallClock } from './luaFs.ts';

export const repoRoot = resolve(import.meta.dirname, '../../..');
export const modDir = join(repoRoot, 'mod');

let factory: LuaFactory | undefined;

/** Every mod/*.lua (base name → source), plus the test double and the Lua unit tests when asked. */
export function luaSources(withTests = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(modDir)) {
    if (name.endsWith('.lua')) out[name.slice(0, -4)] = readFileSync(join(modDir, name), 'utf8');
  }
  out.engine_double = readFileSync(join(import.meta.dirname, 'engine_double.lua'), 'utf8');
  if (withTests) {
    for (const name of readdirSync(join(modDir, 'tests'))) {
      if (name.endsWith('.lua')) out[name.slice(0, -4)] = readFileSync(join(modDir, 'tests', name), 'utf8');
    }
  }
  return out;
}

/** A fresh wasmoon state with every source requireable by its base name (no real io/os yet). */
export async function newLuaState(sources: Record<string, string>): Promise<LuaEngine> {
  factory ??= new LuaFactory();
  const lua = await factory.createEngine();
  // one file at a time: a JS object handed to Lua is a proxy whose pairs() wasmoon cannot finish
  for (const [name, src] of Object.entries(sources)) {
    lua.global.set('__fl3name', name);
    lua.global.set('__fl3src', src);
    lua.doStringSync(`
      local name, src = __fl3name, __fl3src
      package.preload[name] = function(...) return assert(load(src, '@' .. name .. '.lua'))(...) end
      __fl3name, __fl3src = nil, nil
    `);
  }
  return lua;
}

/** What the double engine holds, as the test reads it. */
export interface DoubleState {
  t: number;
  wanted: number;
  limit?: number;
  applied: { t: number; cmd: Record<string, unknown> }[];
  draws: { t: number; r: number; k: number }[];
  notes: string[];
}

/** The mod's status() table. */
export interface ModStatus {
  active: boolean;
  id?: number;
  t?: number;
  safe: number;
  ahead: number;
  barrier?: number;
  limit?: number;
  speed: number;
  started: boolean;
  pauseAt?: number;
  stop: boolean;
  late: number;
  queued: number;
  seq: number;
  pause: number;
  /** Own actions waiting for the host's copy (each holds the barrier at its stamp). */
  unconfirmed: number;
  /** Peers' builds parked until their BuildCommit. */
  parked?: number;
  /** The stamp of the held build of a pause announced as the Clock's `need` (absent: none). */
  need?: number;
  /** The seq of this game's held build of a pause waiting for its BuildCommit. */
  holding?: number;
}

/** The Lua a scenario runs in: wasmoon's Lua 5.4, or Debian's lua5.2 (the game's Lua). */
export type LuaFlavour = '5.4' | '5.2';
export const LUA_FLAVOURS: readonly LuaFlavour[] = ['5.4', '5.2'];

/** One game: the mod in a wasmoon state (or a lua5.2 process), driven by the test. */
export interface ModGame {
  /** The wasmoon state (undefined under lua5.2). */
  lua: LuaEngine | undefined;
  flavour: LuaFlavour;
  wall: WallClock;
  init(): boolean;
  frame(): void;
  /** Runs up to k steps (the double never steps at or past the limit); returns how many ran. */
  step(k: number): number;
  command(cmd: Record<string, unknown>, category?: string): boolean;
  requestSpeed(s: number): boolean;
  status(): ModStatus;
  engine(): DoubleState;
  /** Runs Lua code and returns its first result. */
  run(code: string): unknown;
  close(): void;
}

/** Loads the mod with the double engine standing at t0; sessionDir undefined = no FEVERLINK3_SESSION_DIR. */
export async function loadGame(opts: { sessionDir?: string; t0: number; wallMs?: number; lua?: LuaFlavour }): Promise<ModGame> {
  if (opts.lua === '5.2') return loadGame52(opts);
  const lua = await newLuaState(luaSources());
  const wall: WallClock = { ms: opts.wallMs ?? 1000 };
  const closeFs = installLuaFs(lua, { FEVERLINK3_SESSION_DIR: opts.sessionDir }, wall);
  lua.doStringSync(`
    __json = require('feverlink3_json')
    __double = require('engine_double')
    __double.t = ${opts.t0}
    require('feverlink3')
  `);
  const run = (code: string): unknown => lua.doStringSync(code);
  const str = (code: string): string => String(run(code));
  return {
    lua,
    flavour: '5.4',
    wall,
    init: () => run('return feverlink3.init()') === true,
    frame: () => void run('feverlink3.frame()'),
    step: (k) => Number(run(`return __double.step(${k})`)),
    command: (cmd, category = 'other') => {
      lua.global.set('__arg', JSON.stringify(cmd));
      return run(`return feverlink3.command(__json.decode(__arg), '${category}')`) === true;
    },
    requestSpeed: (s) => run(`return feverlink3.requestSpeed(${s})`) === true,
    status: () => JSON.parse(str('return __json.encode(feverlink3.status())')) as ModStatus,
    engine: () => JSON.parse(str('return __double.snapshot()')) as DoubleState,
    run,
    close: () => {
      closeFs();
      lua.global.close();
    },
  };
}

/** The unit tests `mod/tests/test_*.lua` declare (`T.test(` calls): a run must pass at least this many. */
export function declaredLuaTests(): number {
  let n = 0;
  for (const name of readdirSync(join(modDir, 'tests'))) {
    if (!/^test_.*\.lua$/.test(name)) continue;
    n += readFileSync(join(modDir, 'tests', name), 'utf8').match(/\bT\.test\(/g)?.length ?? 0;
  }
  return n;
}

/**
 * The pass check of a Lua unit-test run (mod/tests/testlib.lua's summary line "N passed, M failed (Lua 5.x)"):
 * throws unless the output holds exactly one summary line of the expected Lua version, with 0 failed and at
 * least `minPassed` (≥ 1) passed. A run that printed no summary, or passed nothing, is a failure.
 */
export function checkLuaSummary(output: string, version: '5.2' | '5.4', minPassed = 1): { passed: number } {
  const lines = [...output.matchAll(/^(\d+) passed, (\d+) failed \(Lua (\d\.\d)\)$/gm)];
  if (lines.length !== 1) throw new Error(`expected one summary line "N passed, M failed (Lua ${version})", found ${lines.length}:\n${output}`);
  const [, passed, failed, got] = lines[0]!;
  if (got !== version) throw new Error(`the tests ran under Lua ${got}, not ${version}`);
  if (Number(failed) !== 0) throw new Error(`${failed} Lua unit test(s) failed:\n${output}`);
  if (Number(passed) < Math.max(1, minPassed)) throw new Error(`only ${passed} Lua unit test(s) passed, expected at least ${Math.max(1, minPassed)}`);
  return { passed: Number(passed) };
}

// ---- the mod in Debian's lua5.2, driven synchronously --------------------------------------------------------------

/**
 * The lua5.2 side of the drive: reads one chunk per line from the command FIFO ("<wall ms>\t<escaped code>"), runs
 * it with os.clock() at that wall time, and writes one line back: "ok\t<type>\t<value>" or "err\t<message>". The mod
 * gets Lua 5.2's own io and os (the game's), only os.clock follows the test's wall clock like luaFs.ts's shim.
 */
const DRIVER_LUA = `
local cmdPath, resPath, modDir, supportDir, t0 = ...
package.path = modDir .. '/?.lua;' .. supportDir .. '/?.lua;' .. package.path
local wallMs = 0
os.clock = function() return wallMs / 1000 end
local function unescape(s) return (s:gsub('\\\\(.)', function(c) if c == 'n' then return '\\n' end return c end)) end
local function escape(s) return (s:gsub('\\\\', '\\\\\\\\'):gsub('\\n', '\\\\n')) end
__json = require('feverlink3_json')
__double = require('engine_double')
__double.t = tonumber(t0)
require('feverlink3')
local cin = assert(io.open(cmdPath, 'r'))
local cout = assert(io.open(resPath, 'w'))
cout:write('ready\\n')
cout:flush()
while true do
  local line = cin:read('*l')
  if line == nil then break end
  local wall, code = line:match('^([^\\t]*)\\t(.*)$')
  wallMs = tonumber(wall)
  local fn, err = load(unescape(code), '=scenario')
  local ok, res
  if fn then ok, res = pcall(fn) else ok, res = false, err end
  local out
  if ok then out = 'ok\\t' .. type(res) .. '\\t' .. tostring(res) else out = 'err\\t' .. tostring(res) end
  cout:write(escape(out), '\\n')
  cout:flush()
end
`;

const escapeLine = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const unescapeLine = (s: string): string => s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
/** A Lua long-bracket-free string literal of `s`. */
const luaString = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;

const sleep = new Int32Array(new SharedArrayBuffer(4));
/** How long one chunk may run in lua5.2 before the test gives up on the process. */
const REPLY_MS = 10_000;

/** The mod in a lua5.2 process with the double engine (test/mod/support/engine_double.lua), driven line by line. */
async function loadGame52(opts: { sessionDir?: string; t0: number; wallMs?: number }): Promise<ModGame> {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-lua52-'));
  const cmdPath = join(dir, 'cmd');
  const resPath = join(dir, 'res');
  const driver = join(dir, 'driver.lua');
  writeFileSync(driver, DRIVER_LUA);
  const made = spawnSync('mkfifo', [cmdPath, resPath]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr}`);
  // Both ends opened without blocking: the command FIFO read-write (it never sees EOF), the reply FIFO non-blocking.
  const cmdFd = openSync(cmdPath, constants.O_RDWR);
  const resFd = openSync(resPath, constants.O_RDONLY | constants.O_NONBLOCK);
  const errPath = join(dir, 'stderr');
  const errFd = openSync(errPath, 'w');
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.FEVERLINK3_SESSION_DIR;
  if (opts.sessionDir !== undefined) env.FEVERLINK3_SESSION_DIR = opts.sessionDir;
  const child = spawn('lua5.2', [driver, cmdPath, resPath, modDir, import.meta.dirname, String(opts.t0)], {
    env,
    stdio: ['ignore', 'ignore', errFd],
  });
  closeSync(errFd);
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = `lua5.2 exited (${code ?? signal})`));
  child.on('error', (err) => (exited = `lua5.2 did not start: ${err.message}`));
  let buffered = '';
  const chunk = Buffer.alloc(65536);
  const readLine = (): string => {
    const deadline = Date.now() + REPLY_MS;
    for (;;) {
      const nl = buffered.indexOf('\n');
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return unescapeLine(line);
      }
      let got = 0;
      try {
        got = readSync(resFd, chunk, 0, chunk.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      }
      if (got > 0) {
        buffered += chunk.subarray(0, got).toString('utf8');
        continue;
      }
      if (Date.now() > deadline) {
        let stderr = '';
        try {
          stderr = readFileSync(errPath, 'utf8');
        } catch {}
        throw new Error(`no answer from lua5.2 in ${REPLY_MS} ms${exited ? ` (${exited})` : ''}: ${stderr}`);
      }
      Atomics.wait(sleep, 0, 0, 1);
    }
  };
  const wall: WallClock = { ms: opts.wallMs ?? 1000 };
  const ready = readLine();
  if (ready !== 'ready') throw new Error(`lua5.2 driver: ${ready}`);
  const run = (code: string): unknown => {
    writeSync(cmdFd, `${wall.ms}\t${escapeLine(code)}\n`);
    const reply = readLine();
    const [status, type, ...rest] = reply.split('\t');
    if (status === 'err') throw new Error(`lua5.2: ${reply.slice(4)}`);
    const value = rest.join('\t');
    if (type === 'nil') return undefined;
    if (type === 'boolean') return value === 'true';
    if (type === 'number') return Number(value);
    if (type === 'string') return value;
    return `${type}: ${value}`;
  };
  const str = (code: string): string => String(run(code));
  let closed = false;
  return {
    lua: undefined,
    flavour: '5.2',
    wall,
    init: () => run('return feverlink3.init()') === true,
    frame: () => void run('feverlink3.frame()'),
    step: (k) => Number(run(`return __double.step(${k})`)),
    command: (cmd, category = 'other') =>
      run(`return feverlink3.command(__json.decode(${luaString(JSON.stringify(cmd))}), '${category}')`) === true,
    requestSpeed: (s) => run(`return feverlink3.requestSpeed(${s})`) === true,
    status: () => JSON.parse(str('return __json.encode(feverlink3.status())')) as ModStatus,
    engine: () => JSON.parse(str('return __double.snapshot()')) as DoubleState,
    run,
    close: () => {
      if (closed) return;
      closed = true;
      child.kill();
      closeSync(cmdFd);
      closeSync(resFd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
