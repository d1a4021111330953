// The Lua side of the simulated game: one wasmoon state that loads the real mod from mod/, with the
// `engine` table bound to the game and io/os backed by the real files and clock, or by the ones given
// (an in-memory session folder and a simulated clock: the simulator).
// Spec: docs/ENGINE.md (the engine interface, authoritative), engine-contract, architecture.txt §2.
import { readdirSync, readFileSync } from 'node:fs';
import { LuaFactory, LuaMultiReturn, LuaReturn, type LuaEngine } from 'wasmoon';
import { luaWasmPath } from '../runtime.ts';
import { installChunks } from './luaChunks.ts';
import { createLuaFs, type LuaFileBackend } from './luaFs.ts';
import { LUA_IO_PRELUDE, LUA_PRELOAD } from './luaPrelude.ts';
import { installDirectCalls } from './wasmoonDirectCalls.ts';
import type { ApplyResult } from './world/commands.ts';

/** What the `engine` table does: the game behind it (game.ts implements it). */
export interface EngineBackend {
  time(): number;
  speed(): number;
  setSpeed(speed: number): void;
  setLimit(limit: number | null): void;
  apply(cmd: unknown): ApplyResult;
  checksum(): Record<string, string>;
  /**
   * A spread round's start (optional): the parts hashed whole, each heavy lane's entity count, and a handle on the
   * entity lists the game keeps for the round (checksumRead reads them, checksumDone forgets them).
   */
  checksumLists?(withKeys: boolean): { parts: Record<string, string>; lanes: Record<string, number>; list: number; keys?: Record<string, string[]> };
  /** Entities `from`..`from + count - 1` (1-based) of heavy lane `lane` of list `list`, read as the world stands. */
  checksumRead?(list: number, lane: string, from: number, count: number, withKeys: boolean): { sum: number; count: number; keys?: string[] };
  /** The lists of `list` are no longer needed. */
  checksumDone?(list: number): void;
  /** Authority values (money, loan); optional for a game that has none. */
  authority?(): Record<string, number>;
  /** Applies the host's Authority values. */
  correct?(values: Record<string, number>): void;
  save(name: string): { ok: boolean; detail: string };
  load(name: string): { ok: boolean; detail: string };
  notify(level: string, text: string): void;
  /** Optional: would `cmd` apply now? Answers like apply, changes nothing (a held strict build's dry run). */
  dryRun?(cmd: unknown): ApplyResult;
  /** Optional: the game's wall clock, ms since 1970 (the hop's `g`). */
  wallClock?(): number;
}

/** The mod's callbacks as the game loop calls them (ENGINE.md §3). */
export interface ModHooks {
  frame(): void;
  beforeStep(t: number): void;
  /** True: the mod took the command (the game must not apply it now). strict: a held strict build (ENGINE.md §3). */
  command(cmd: unknown, category: string, strict?: boolean): boolean;
  /** The mod's status table, or null when it has none. */
  status(): Record<string, unknown> | null;
}

export interface LuaHostOptions {
  /** The folder of the mod's files (`<repo>/mod`); or, instead, */
  readonly modDir?: string;
  /** the mod's files as name (without `.lua`) → source (the single binary carries them as an asset). */
  readonly modSources?: Readonly<Record<string, string>>;
  /** The module `require`d first (default `feverlink3`). */
  readonly entry?: string;
  /** What os.getenv sees: the session environment given to the game. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly engine: EngineBackend;
  /** Wall milliseconds (monotonic) for os.clock; default performance.now. */
  readonly wallMs?: () => number;
  /** The files the mod's io sees (default node:fs; luaMemoryFiles.ts: an in-memory session folder). */
  readonly files?: LuaFileBackend;
  /** Seconds since 1970 for os.time() (default the real clock). */
  readonly epochSeconds?: () => number;
  /** Where the host reports a failing mod callback. */
  readonly log?: (level: 'info' | 'warn' | 'error', text: string) => void;
}

let factory: LuaFactory | undefined;

/**
 * Requires the entry module (its table, or the global `feverlink3` it set) and defines
 * `__fl3dispatch(name, ...)`, which calls a callback by name on that live table: a mod that replaces
 * a callback is followed and no table is copied to JS per call. A missing callback answers nil.
 */
const LUA_DISPATCH = String.raw`
local entry = __fl3entry
__fl3entry = nil
local m = require(entry)
if type(m) ~= 'table' then m = feverlink3 end
if type(m) ~= 'table' then error('mod ' .. entry .. ': require gave no table and no global feverlink3') end
function __fl3dispatch(name, ...)
  local f = m[name]
  if f == nil then return nil end
  return f(...)
end
-- one field of the mod's status (a number, string or boolean), without its whole table crossing into JS
function __fl3statusField(name)
  local f = m.status
  if f == nil then return nil end
  local st = f()
  if type(st) ~= 'table' then return nil end
  local v = st[name] -- (not \`and … or nil\`: that turns a false into nil)
  if type(v) == 'table' or type(v) == 'function' then return nil end
  return v
end
`;

/**
 * A loaded mod. Every callback is guarded: an error in the mod is logged and counted, never thrown
 * into the game loop (a broken mod must not stop the game); `command` then answers false so the
 * command is applied natively, as in solo play.
 */
export class LuaHost implements ModHooks {
  /** Errors raised by mod callbacks so far. */
  errors = 0;
  private readonly lua: LuaEngine;
  private readonly closeFiles: () => void;
  private readonly log: NonNullable<LuaHostOptions['log']>;

  private constructor(lua: LuaEngine, closeFiles: () => void, log: LuaHostOptions['log']) {
    this.lua = lua;
    this.closeFiles = closeFiles;
    this.log = log ?? ((level, text) => console.error(`[simgame ${level}] ${text}`));
  }

  /** Creates the Lua state, installs io/os and `engine`, loads the mod and calls its init(). */
  static async create(options: LuaHostOptions): Promise<LuaHost> {
    installDirectCalls();
    factory ??= new LuaFactory(luaWasmPath());
    const lua = await factory.createEngine({ enableProxy: false, injectObjects: false });
    const fs = createLuaFs({
      env: options.env,
      wallMs: options.wallMs ?? (() => performance.now()),
      ...(options.files ? { files: options.files } : {}),
      ...(options.epochSeconds ? { epochSeconds: options.epochSeconds } : {}),
    });
    try {
      lua.global.set('__fl3fs', fs.api);
      lua.doStringSync(LUA_IO_PRELUDE);
      // every file compiled once per process (luaChunks.ts); a file without a chunk is compiled from its source
      const { dir, sources } = modFiles(options);
      const names = Object.keys(sources).sort();
      const chunked = installChunks(lua, sources, '__fl3chunks');
      const rest = options.modSources ? Object.fromEntries(names.filter((n) => !chunked.has(n)).map((n) => [n, sources[n]])) : undefined;
      lua.global.set('__fl3preload', { dir, names, ...(rest ? { sources: rest } : {}) });
      lua.doStringSync(LUA_PRELOAD);
      lua.global.set('engine', engineTable(options.engine));
      lua.global.set('__fl3entry', options.entry ?? 'feverlink3');
      lua.doStringSync(LUA_DISPATCH);
      const host = new LuaHost(lua, fs.closeAll, options.log);
      host.call('init');
      return host;
    } catch (e) {
      fs.closeAll();
      lua.global.close();
      throw e;
    }
  }

  /**
   * Calls a global Lua function of the host's (`__fl3dispatch(name, ...)`, `__fl3statusField(name)`) with a protected
   * call on the main Lua thread. wasmoon's own wrapper of a Lua function makes a new Lua thread per call, which costs
   * twice as much, every frame.
   */
  private invoke(fn: '__fl3dispatch' | '__fl3statusField', args: readonly unknown[]): unknown {
    const g = this.lua.global;
    const top = g.getTop();
    try {
      g.lua.lua_getglobal(g.address, fn);
      for (const arg of args) g.pushValue(arg);
      const status = g.lua.lua_pcallk(g.address, args.length, 1, 0, 0, null);
      const value: unknown = g.getValue(-1);
      if (status !== LuaReturn.Ok) throw new Error(value instanceof Error ? value.message : String(value));
      return value;
    } finally {
      g.setTop(top);
    }
  }

  /** `invoke`, guarded: an error is counted and logged as feverlink3.<name>'s (the first ten, then every 1000th). */
  private guarded(name: string, fn: '__fl3dispatch' | '__fl3statusField', args: readonly unknown[]): { ok: true; value: unknown } | { ok: false } {
    try {
      return { ok: true, value: this.invoke(fn, args) };
    } catch (e) {
      this.errors += 1;
      if (this.errors <= 10 || this.errors % 1000 === 0) {
        this.log('error', `feverlink3.${name} failed (${this.errors} so far): ${(e as Error).message}`);
      }
      return { ok: false };
    }
  }

  private call(name: string, ...args: unknown[]): { ok: true; value: unknown } | { ok: false } {
    return this.guarded(name, '__fl3dispatch', [name, ...args]);
  }

  frame(): void {
    this.call('frame');
  }

  beforeStep(t: number): void {
    this.call('beforeStep', t);
  }

  command(cmd: unknown, category: string, strict = false): boolean {
    const r = strict ? this.call('command', cmd, category, true) : this.call('command', cmd, category);
    return r.ok && r.value === true;
  }

  status(): Record<string, unknown> | null {
    const r = this.call('status');
    return r.ok && typeof r.value === 'object' && r.value !== null ? (r.value as Record<string, unknown>) : null;
  }

  /**
   * One plain field of the mod's status (undefined when the mod has no status, or the field is a table): what a
   * caller that polls one flag asks, without the whole table crossing into JS (that costs about 200 µs).
   */
  statusField(name: string): string | number | boolean | undefined {
    const r = this.guarded('status', '__fl3statusField', [name]);
    const value = r.ok ? r.value : undefined;
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  }

  /** Sets a global of the mod's state (a JS function the simulator's hooks call, a flag). */
  setGlobal(name: string, value: unknown): void {
    this.lua.global.set(name, value);
  }

  /** Runs Lua code in the mod's state (tests, diagnostics). */
  run(code: string): unknown {
    return this.lua.doStringSync(code);
  }

  /** Closes every file the mod left open and the Lua state. */
  close(): void {
    this.closeFiles();
    this.lua.global.close();
  }
}

/** The mod's files by name (without `.lua`): the sources given, or those read from the folder. */
function modFiles(options: LuaHostOptions): { dir: string; sources: Readonly<Record<string, string>> } {
  if (options.modSources) return { dir: '', sources: options.modSources };
  if (options.modDir === undefined) throw new Error('LuaHost: neither modDir nor modSources given');
  const dir = options.modDir;
  const names = readdirSync(dir).filter((f) => f.endsWith('.lua')).map((f) => f.slice(0, -4));
  return { dir, sources: Object.fromEntries(names.map((n) => [n, readFileSync(`${dir}/${n}.lua`, 'utf8')])) };
}

/** Authority values as Lua hands them over: finite numbers by name, the rest dropped. */
function authorityTable(values: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (values === null || typeof values !== 'object') return out;
  for (const name of ['money', 'loan']) {
    const v = (values as Record<string, unknown>)[name];
    if (typeof v === 'number' && Number.isFinite(v)) out[name] = v;
  }
  return out;
}

/** The global `engine` table (ENGINE.md §2); apply/save/load return several values. */
function engineTable(engine: EngineBackend): Record<string, unknown> {
  return {
    time: () => engine.time(),
    speed: () => engine.speed(),
    setSpeed: (s: unknown) => engine.setSpeed(Number(s)),
    setLimit: (t: unknown) => engine.setLimit(t === undefined || t === null ? null : Number(t)),
    apply: (cmd: unknown) => {
      const r = engine.apply(cmd);
      return LuaMultiReturn.from(r.ok ? [true] : [false, r.class, r.detail]);
    },
    checksum: () => engine.checksum(),
    ...(engine.checksumLists && engine.checksumRead
      ? {
          checksumLists: (withKeys: unknown) => engine.checksumLists!(withKeys === true),
          checksumRead: (list: unknown, lane: unknown, from: unknown, count: unknown, withKeys: unknown) =>
            engine.checksumRead!(Number(list), String(lane), Number(from), Number(count), withKeys === true),
          checksumDone: (list: unknown) => engine.checksumDone?.(Number(list)),
        }
      : {}),
    authority: () => engine.authority?.() ?? {},
    correct: (values: unknown) => engine.correct?.(authorityTable(values)),
    save: (name: unknown) => {
      const r = engine.save(String(name));
      return LuaMultiReturn.from([r.ok, r.detail]);
    },
    load: (name: unknown) => {
      const r = engine.load(String(name));
      return LuaMultiReturn.from([r.ok, r.detail]);
    },
    notify: (level: unknown, text: unknown) => engine.notify(String(level), String(text)),
    ...(engine.dryRun
      ? {
          dryRun: (cmd: unknown) => {
            const r = engine.dryRun!(cmd);
            return LuaMultiReturn.from(r.ok ? [true] : [false, r.class, r.detail]);
          },
        }
      : {}),
    ...(engine.wallClock ? { wallClock: () => engine.wallClock!() } : {}),
  };
}
