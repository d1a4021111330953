// Loads the Lua mod into a wasmoon (Lua 5.4) state with the TEST DOUBLE engine (engine_double.lua) and the io/os
// shim of luaFs.ts, the way docs/ENGINE.md §1 says a game loads it (package.preload by base name).
// Gives the tests synchronous handles: frame, step, command, status, the double's snapshot.
import { readFileSync, readdirSync } from 'node:fs';
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
}

/** One game: the mod in a wasmoon state, driven by the test. */
export interface ModGame {
  lua: LuaEngine;
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
export async function loadGame(opts: { sessionDir?: string; t0: number; wallMs?: number }): Promise<ModGame> {
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
