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

/**
 * Any JSON value, copied into fresh plain objects and arrays (keys as own data properties, so `__proto__` stays
 * an ordinary key, as JSON.parse makes it), bounded in depth and size. Non-JSON values (undefined, functions,
 * NaN, class instances) are refused.
 */
export function json(options: JsonOptions): Schema<JsonValue> {
  const { maxDepth, maxBytes } = options;
  return {
    check(v, path) {
      let budget = maxBytes;
      let problem: string | undefined;
      /** Records why the value is refused; `undefined` unwinds the copy. */
      const refuse = (why: string): undefined => {
        problem = why;
        return undefined;
      };
      const tooLarge = `larger than ${maxBytes} bytes`;
      const copy = (x: unknown, depth: number): JsonValue | undefined => {
        if (x === null) {
          budget -= 4;
          return null;
        }
        if (typeof x === 'boolean') {
          budget -= 5;
          return x;
        }
        if (typeof x === 'number') {
          budget -= 8;
          return Number.isFinite(x) ? x : refuse('has a number JSON cannot carry');
        }
        if (typeof x === 'string') {
          budget -= x.length + 2;
          return budget < 0 ? refuse(tooLarge) : x;
        }
        if (typeof x !== 'object') return refuse(`has a value of type ${typeof x}, not JSON`);
        if (depth >= maxDepth) return refuse(`nested deeper than ${maxDepth}`);
        if (Array.isArray(x)) {
          budget -= 2 + x.length;
          if (budget < 0) return refuse(tooLarge);
          const out: JsonValue[] = [];
          for (let i = 0; i < x.length; i++) {
            const item = copy(x[i], depth + 1);
            if (item === undefined) return undefined;
            out.push(item);
          }
          return out;
        }
        const proto: unknown = Object.getPrototypeOf(x);
        if (!isPlainObject(x) || (proto !== Object.prototype && proto !== null)) {
          return refuse('has an object that is not plain JSON');
        }
        const out: { [key: string]: JsonValue } = {};
        for (const key of Object.keys(x)) {
          budget -= key.length + 4;
          if (budget < 0) return refuse(tooLarge);
          const item = copy(own(x, key), depth + 1);
          if (item === undefined) return undefined;
          put(out, key, item);
        }
        return out;
      };
      const value = copy(v, 0);
      if (value === undefined || budget < 0) return fail(path, problem ?? tooLarge);
      return ok(value);
    },
    toJson: (v) => v,
  };
}
