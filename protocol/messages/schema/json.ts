// The arbitrary-JSON schema of the validator kit (Action.body): any JSON value, copied into fresh objects with
// `__proto__` kept as an ordinary key, bounded in depth and size.

import { fail, isPlainObject, ok, own, put } from './core.ts';
import type { Schema } from './core.ts';

export interface JsonOptions {
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
  /** Most bytes of the value's JSON text (counted approximately from below, UTF-16 units). */
  maxBytes: number;
}

/** A JSON value of any shape. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One check's running state: the bytes left and why the value was refused. */
interface CopyState {
  budget: number;
  problem: string | undefined;
  readonly maxDepth: number;
  readonly maxBytes: number;
}

/** Records why the value is refused; `undefined` unwinds the copy. */
function refuse(state: CopyState, why: string): undefined {
  state.problem = why;
  return undefined;
}

const tooLarge = (state: CopyState): string => `larger than ${state.maxBytes} bytes`;

/**
 * Sets an own data property like `put`, without the cost of a property descriptor where a plain assignment is the
 * same thing: on a fresh plain object, a key that Object.prototype does not have (not `__proto__`, not a polluted
 * or inherited name) can only become an own data property.
 */
function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key in Object.prototype) put(target, key, value);
  else target[key] = value;
}

// A module-level function (not a closure made per check): the hot path of every Action's body.
function copy(x: unknown, depth: number, state: CopyState): JsonValue | undefined {
  if (x === null) {
    state.budget -= 4;
    return null;
  }
  if (typeof x === 'boolean') {
    state.budget -= 5;
    return x;
  }
  if (typeof x === 'number') {
    state.budget -= 8;
    return Number.isFinite(x) ? x : refuse(state, 'has a number JSON cannot carry');
  }
  if (typeof x === 'string') {
    state.budget -= x.length + 2;
    return state.budget < 0 ? refuse(state, tooLarge(state)) : x;
  }
  if (typeof x !== 'object') return refuse(state, `has a value of type ${typeof x}, not JSON`);
  if (depth >= state.maxDepth) return refuse(state, `nested deeper than ${state.maxDepth}`);
  if (Array.isArray(x)) {
    state.budget -= 2 + x.length;
    if (state.budget < 0) return refuse(state, tooLarge(state));
    const out: JsonValue[] = [];
    for (let i = 0; i < x.length; i++) {
      const item = copy(x[i], depth + 1, state);
      if (item === undefined) return undefined;
      out.push(item);
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(x);
  if (!isPlainObject(x) || (proto !== Object.prototype && proto !== null)) {
    return refuse(state, 'has an object that is not plain JSON');
  }
  const out: { [key: string]: JsonValue } = {};
  for (const key of Object.keys(x)) {
    state.budget -= key.length + 4;
    if (state.budget < 0) return refuse(state, tooLarge(state));
    const item = copy(own(x, key), depth + 1, state);
    if (item === undefined) return undefined;
    setOwn(out, key, item);
  }
  return out;
}

/**
 * Any JSON value, copied into fresh plain objects and arrays (keys as own data properties, so `__proto__` stays
 * an ordinary key, as JSON.parse makes it), bounded in depth and size. Non-JSON values (undefined, functions,
 * NaN, class instances) are refused.
 */
export function json(options: JsonOptions): Schema<JsonValue> {
  const { maxDepth, maxBytes } = options;
  return {
    check(v, path) {
      const state: CopyState = { budget: maxBytes, problem: undefined, maxDepth, maxBytes };
      const value = copy(v, 0, state);
      if (value === undefined || state.budget < 0) return fail(path, state.problem ?? tooLarge(state));
      return ok(value);
    },
    toJson: (v) => v,
  };
}
