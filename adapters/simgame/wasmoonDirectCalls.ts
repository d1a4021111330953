// wasmoon binds every Lua C API function through emscripten's `ccall`: per call it looks the export up by name
// ("_" + name), checks an assertion, builds an argument array and a closure for the result. For a function whose
// arguments and result are all numbers that does nothing but cost: the export itself takes and gives the very same
// numbers. The simulator spends about a tenth of its time there (the mod's callbacks every frame, each pushing and
// reading values), so such functions are bound to the export directly. Functions with a string argument or result
// keep wasmoon's wrapper (it converts and frees the string). Installed once, before the first LuaFactory.
import { LuaWasm } from 'wasmoon';

type ArgType = 'number' | 'string' | 'string|number' | 'array' | 'boolean' | null;
type Cwrap = (this: LuaWasm, name: string, returnType: ArgType, argTypes: ArgType[]) => unknown;

let installed = false;
/** How many bindings went direct (tests read it: proof the patch took, and took only number-only functions). */
export const directBindings: string[] = [];

/** Binds wasmoon's number-only C API functions to the wasm exports directly; later calls do nothing. */
export function installDirectCalls(): void {
  if (installed) return;
  installed = true;
  const proto = LuaWasm.prototype as unknown as { cwrap: Cwrap };
  const viaCcall = proto.cwrap;
  proto.cwrap = function (name, returnType, argTypes) {
    const numbersOnly = argTypes.every((t) => t === 'number') && (returnType === 'number' || returnType === null);
    const exported = (this.module as unknown as Record<string, unknown>)[`_${name}`];
    if (numbersOnly && typeof exported === 'function') {
      if (!directBindings.includes(name)) directBindings.push(name);
      return exported;
    }
    return viaCcall.call(this, name, returnType, argTypes);
  };
}
