// wasmoon binds every Lua C API function through emscripten's `ccall`: per call it looks the export up by name
// ("_" + name), checks an assertion, builds an argument array and a closure for the result. For a function whose
// arguments and result are all numbers that does nothing but cost: the export itself takes and gives the very same
// numbers. The simulator spends about a tenth of its time there (the mod's callbacks every frame, each pushing and
// reading values), so such functions are bound to the export directly. Functions with a string argument or result
// keep wasmoon's wrapper (it converts and frees the string), except those that take a name (below). Installed once,
// before the first LuaFactory.
import { LuaWasm } from 'wasmoon';

type ArgType = 'number' | 'string' | 'string|number' | 'array' | 'boolean' | null;
type Cwrap = (this: LuaWasm, name: string, returnType: ArgType, argTypes: ArgType[]) => unknown;

let installed = false;
/** How many bindings went direct (tests read it: proof the patch took, and took only number-only functions). */
export const directBindings: string[] = [];

/**
 * Functions whose one string argument is a NAME (a global, a field, a metatable): wasmoon calls them with the same
 * few names over and over (luaL_checkudata on every call of a JS function from Lua). Each name is written into wasm
 * memory once and kept; its address is passed from then on. Lua copies what it keeps of a string it is given.
 */
const NAME_FUNCTIONS = new Set([
  'lua_getglobal', 'lua_setglobal', 'lua_getfield', 'lua_setfield', 'luaL_checkudata', 'luaL_testudata',
  'luaL_newmetatable', 'luaL_setmetatable', 'luaL_getmetafield',
]);
/** Names kept (bounded: a long or the 4097th name takes wasmoon's way, converted and freed per call). */
const MAX_NAMES = 4096;
const MAX_NAME_LENGTH = 128;
const names = new Map<string, number>();

interface Module {
  stringToNewUTF8(text: string): number;
}

function nameAddress(module: Module, name: string): number | undefined {
  let at = names.get(name);
  if (at === undefined) {
    if (names.size >= MAX_NAMES || name.length > MAX_NAME_LENGTH) return undefined;
    at = module.stringToNewUTF8(name);
    names.set(name, at);
  }
  return at;
}

/** Binds wasmoon's number-only C API functions to the wasm exports directly; later calls do nothing. */
export function installDirectCalls(): void {
  if (installed) return;
  installed = true;
  const proto = LuaWasm.prototype as unknown as { cwrap: Cwrap };
  const viaCcall = proto.cwrap;
  proto.cwrap = function (name, returnType, argTypes) {
    const module = this.module as unknown as Module & Record<string, unknown>;
    const exported = module[`_${name}`];
    const wrapped = viaCcall.call(this, name, returnType, argTypes) as (...args: unknown[]) => unknown;
    if (typeof exported !== 'function' || (returnType !== 'number' && returnType !== null)) return wrapped;
    const direct = exported as (...args: unknown[]) => unknown;
    if (argTypes.every((t) => t === 'number')) {
      if (!directBindings.includes(name)) directBindings.push(name);
      return direct;
    }
    const at = argTypes.indexOf('string');
    const oneName = NAME_FUNCTIONS.has(name) && at >= 0 && argTypes.every((t, i) => i === at || t === 'number');
    if (!oneName) return wrapped;
    if (!directBindings.includes(name)) directBindings.push(name);
    return (...args: unknown[]) => {
      const text = args[at];
      const address = typeof text === 'string' ? nameAddress(module, text) : undefined;
      if (address === undefined) return wrapped(...args);
      args[at] = address;
      return direct(...args);
    };
  };
}
