// The mod's files compiled once per process, not once per Lua state. Every simulated game makes a Lua state and
// loads the whole mod (27 files, about 140 KB): parsing it took about 6 of the 14 ms a state costs, and the simulator
// makes hundreds of states (a game per player, again after every reload and resync load). All states of the one
// LuaFactory share one wasm memory, so each file's bytecode (string.dump, debug info kept: errors and tracebacks name
// the same files and lines) is copied once into memory of its own there, and every later state loads it from that
// address with luaL_loadbufferx — no parse, no copy through JS. A file that does not compile gets no chunk: the
// loader then compiles its source as before and raises the same error at its `require`.
import type { LuaEngine } from 'wasmoon';

/** The emscripten module under wasmoon: the exports used here (all numbers: pointers, sizes, states). */
interface WasmModule {
  _malloc(size: number): number;
  _lua_tolstring(L: number, index: number, lenOut: number): number;
  _luaL_loadbufferx(L: number, buffer: number, size: number, name: number, mode: number): number;
  stringToNewUTF8(text: string): number;
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
}

interface Chunk {
  readonly ptr: number;
  readonly len: number;
  /** The chunk name '@mod/<name>.lua' as a C string. */
  readonly name: number;
}

/** Compiled chunks by name and source; bounded (tests that load many variants of a file compile the rest each time). */
const compiled = new Map<string, Chunk>();
const MAX_CHUNKS = 512;
let binaryMode = 0;
let lenOut = 0;

const LUA_OK = 0;

/**
 * Sets the global `global` of `lua` to a table: module name → the function its source compiles to (loaded from the
 * process's bytecode of that exact source, compiled in this state the first time it is seen). Returns the names
 * that got a chunk.
 */
export function installChunks(lua: LuaEngine, sources: Readonly<Record<string, string>>, global: string): Set<string> {
  const installed = new Set<string>();
  const g = lua.global;
  const wasm = g.lua.module as unknown as WasmModule;
  if (binaryMode === 0) {
    binaryMode = wasm.stringToNewUTF8('b');
    lenOut = wasm._malloc(4);
  }
  // compiled first: the compiling runs Lua code on this state's stack, where the table is built next
  const chunks = Object.entries(sources).map(([name, source]) => [name, chunkOf(lua, wasm, name, source)] as const);
  g.lua.lua_createtable(g.address, 0, chunks.length);
  for (const [name, chunk] of chunks) {
    if (!chunk) continue;
    if (wasm._luaL_loadbufferx(g.address, chunk.ptr, chunk.len, chunk.name, binaryMode) !== LUA_OK) {
      g.pop(); // the error message: the loader compiles the source instead
      continue;
    }
    g.lua.lua_setfield(g.address, -2, name);
    installed.add(name);
  }
  g.lua.lua_setglobal(g.address, global);
  return installed;
}

/** The chunk of this exact source, compiled (in `lua`) and copied into wasm memory the first time. */
function chunkOf(lua: LuaEngine, wasm: WasmModule, name: string, source: string): Chunk | undefined {
  const key = `${name}\n${source}`;
  const known = compiled.get(key);
  if (known || compiled.size >= MAX_CHUNKS) return known;
  const g = lua.global;
  const top = g.getTop();
  g.set('__fl3src', source);
  g.set('__fl3chunkname', `@mod/${name}.lua`);
  try {
    // a syntax error: no chunk (the loader's own load raises it, with its message, at the require)
    const ok = lua.doStringSync(`local f = load(__fl3src, __fl3chunkname)
      __fl3src, __fl3chunkname = nil, nil
      if f then __fl3bin = string.dump(f) end
      return f ~= nil`) as boolean;
    if (!ok) return undefined;
    g.lua.lua_getglobal(g.address, '__fl3bin');
    const at = wasm._lua_tolstring(g.address, -1, lenOut);
    const len = wasm.HEAPU32[lenOut >> 2]!;
    const ptr = wasm._malloc(len);
    wasm.HEAPU8.copyWithin(ptr, at, at + len); // HEAPU8 read after the malloc: a grown memory has a new view
    const chunk = { ptr, len, name: wasm.stringToNewUTF8(`@mod/${name}.lua`) };
    compiled.set(key, chunk);
    return chunk;
  } finally {
    lua.doStringSync('__fl3bin = nil');
    g.setTop(top);
  }
}
