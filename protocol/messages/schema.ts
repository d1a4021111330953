// A tiny declarative validator kit for the JSON payloads (spec: Frame, "Payloads are UTF-8 JSON, camelCase,
// nulls omitted, byte arrays base64 … Unknown fields are ignored"). A schema checks a parsed JSON value and
// builds a fresh result field by field (no prototype pollution), and turns a typed value back into JSON.
// Checks never throw; a failure is a reason that names the field: "Chat.text: longer than 500 characters".

import { fromBase64, toBase64 } from '../bytes.ts';

/** The outcome of a check: the validated value, or a reason naming the field. */
export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A validator and encoder for one JSON value of type `T`. */
export interface Schema<T> {
  /** Validates `value` (parsed JSON) found at `path` ("Join.resume.mac"); never throws. */
  check(value: unknown, path: string): DecodeResult<T>;
  /** The JSON-ready form of a valid `T`: byte arrays become base64, absent optional fields are left out. */
  toJson(value: T): unknown;
  /** How a field of this schema behaves when it is absent (undefined or null) in an object. */
  readonly absent?: 'optional' | 'default' | 'lenient';
  /** The value a `dflt` field takes when absent. */
  readonly fallback?: T;
}

/** A schema whose field may be left out of its object (`opt`, `lenient`). */
export interface OptionalSchema<T> extends Schema<T> {
  readonly absent: 'optional' | 'lenient';
}

/** The type a schema validates to. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? K : never }[keyof S];
/** The object type an `obj` shape describes: `opt` fields become optional properties. */
export type ObjOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };

const ok = <T>(value: T): DecodeResult<T> => ({ ok: true, value });
const fail = (path: string, message: string): { ok: false; reason: string } => ({
  ok: false,
  reason: `${path}: ${message}`,
});

/** Reads an own property only: inherited or polluted prototype properties never count as fields. */
function own(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
}

/** Defines an own data property, so a key such as `__proto__` stays data and never touches a prototype. */
function put(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A key as it appears in a reason: quoted, control characters escaped, at most 40 characters. */
export function showKey(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

// ---- scalars -------------------------------------------------------------------------------------------------

/** `true` or `false`. */
export function bool(): Schema<boolean> {
  return {
    check: (v, path) => (typeof v === 'boolean' ? ok(v) : fail(path, 'expected true or false')),
    toJson: (v) => v,
  };
}

/** An integer from `min` to `max` (both within the safe integers, so JSON gives it back exactly). */
export function int(min: number, max: number): Schema<number> {
  const range = `expected an integer from ${min} to ${max}`;
  return {
    check: (v, path) =>
      typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? ok(v) : fail(path, range),
    toJson: (v) => v,
  };
}

/** A non-negative safe integer (counters, stamps, ids of rounds): 0 ..= 2^53 − 1. */
export function uint(max: number = Number.MAX_SAFE_INTEGER): Schema<number> {
  return int(0, max);
}

/** A finite number (a double; JSON text gives back the same double), optionally with a lower bound. */
export function num(min?: number): Schema<number> {
  const floor = min ?? -Infinity;
  const what = min === undefined ? 'expected a finite number' : `expected a finite number, at least ${min}`;
  return {
    check: (v, path) => (typeof v === 'number' && Number.isFinite(v) && v >= floor ? ok(v) : fail(path, what)),
    toJson: (v) => v,
  };
}

/** One of a few literal values (numbers or strings). */
export function oneOf<const T extends readonly (string | number)[]>(...values: T): Schema<T[number]> {
  const allowed = new Set<unknown>(values);
  const what = `expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}`;
  return {
    check: (v, path) => (allowed.has(v) ? ok(v as T[number]) : fail(path, what)),
    toJson: (v) => v,
  };
}

// ---- strings -------------------------------------------------------------------------------------------------

/** Lone surrogates: `\ud800` in JSON parses to a string that has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** C0 controls, DEL and C1 controls. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/u;

/** Code points in `text`, counting no further than `limit + 1` (enough to say "too long"). */
export function codePoints(text: string, limit: number = Infinity): number {
  let n = 0;
  for (const _ of text) if (++n > limit) break;
  return n;
}

export interface StrOptions {
  /** Fewest code points (default 0). */
  min?: number;
  /** Most code points. */
  max: number;
  /** Refuse control characters (U+0000–U+001F, U+007F–U+009F): names, tokens, file names. */
  noControl?: boolean;
  /** A pattern the whole string must match, with the reason when it does not. */
  pattern?: RegExp;
  patternReason?: string;
}

/**
 * A well-formed string (no lone surrogates) of `min..max` code points. Lengths count code points, so an
 * emoji is one character wherever the text is shown or counted.
 */
export function str(options: StrOptions): Schema<string> {
  const { min = 0, max, noControl = false, pattern, patternReason = 'has a character that is not allowed' } = options;
  return {
    check(v, path) {
      if (typeof v !== 'string') return fail(path, 'expected a string');
      // Each code point is 1 or 2 UTF-16 units: count exactly only where the unit count cannot decide.
      if (v.length > 2 * max || (v.length > max && codePoints(v, max) > max)) {
        return fail(path, `longer than ${max} characters`);
      }
      if (v.length < min || (v.length < 2 * min && codePoints(v, min) < min)) {
        return fail(path, min === 1 ? 'empty' : `shorter than ${min} characters`);
      }
      if (LONE_SURROGATE.test(v)) return fail(path, 'has a lone surrogate (not Unicode text)');
      if (noControl && CONTROL.test(v)) return fail(path, 'has a control character');
      if (pattern && !pattern.test(v)) return fail(path, patternReason);
      return ok(v);
    },
    toJson: (v) => v,
  };
}

/**
 * Free text that is cut, not refused, when it is longer than `max` code points (details a game or host writes
 * for people: losing a ReplayFailed or a verdict over a long message would cost more than a shorter message).
 */
export function clip(max: number): Schema<string> {
  return {
    check(v, path) {
      if (typeof v !== 'string') return fail(path, 'expected a string');
      if (LONE_SURROGATE.test(v)) return fail(path, 'has a lone surrogate (not Unicode text)');
      if (v.length <= max || codePoints(v, max) <= max) return ok(v);
      let cut = '';
      let n = 0;
      for (const c of v) {
        if (++n > max) break;
        cut += c;
      }
      return ok(cut);
    },
    toJson: (v) => v,
  };
}

/** Exactly 64 hex digits (a SHA-256); either case is accepted and the value is given back in lower case. */
export function sha256Hex(): Schema<string> {
  return {
    check(v, path) {
      if (typeof v !== 'string') return fail(path, 'expected a string of 64 hex digits');
      if (v.length !== 64 || !/^[0-9a-fA-F]{64}$/.test(v)) return fail(path, 'expected exactly 64 hex digits');
      return ok(v.toLowerCase());
    },
    toJson: (v) => v,
  };
}

export interface BytesOptions {
  /** Fewest bytes (default 0). */
  min?: number;
  /** Most bytes. */
  max: number;
}

/** A byte array, canonical padded base64 in JSON (RFC 4648 §4), a `Uint8Array` in TypeScript. */
export function bytes(options: BytesOptions): Schema<Uint8Array> {
  const { min = 0, max } = options;
  const maxChars = 4 * Math.ceil(max / 3);
  const size = min === max ? `exactly ${max} bytes` : `${min} to ${max} bytes`;
  return {
    check(v, path) {
      if (typeof v !== 'string') return fail(path, 'expected a base64 string');
      if (v.length > maxChars) return fail(path, `longer than ${max} bytes`);
      const decoded = fromBase64(v);
      if (decoded === undefined) return fail(path, 'not canonical base64');
      if (decoded.length > max) return fail(path, `longer than ${max} bytes`);
      if (decoded.length < min) return fail(path, `expected ${size}`);
      return ok(decoded);
    },
    toJson: (v) => toBase64(v),
  };
}

// ---- containers ----------------------------------------------------------------------------------------------

/** A field that may be absent (undefined or null in JSON; left out when encoding). */
export function opt<T>(schema: Schema<T>): OptionalSchema<T> {
  return { check: schema.check, toJson: schema.toJson, absent: 'optional' };
}

/** A field that takes `fallback` when absent ("a missing field means everyone"). */
export function dflt<T>(schema: Schema<T>, fallback: T): Schema<T> {
  return { check: schema.check, toJson: schema.toJson, absent: 'default', fallback };
}

/** An optional field that is dropped, not refused, when it does not validate (logs-only data such as `hop`). */
export function lenient<T>(schema: Schema<T>): OptionalSchema<T> {
  return { check: schema.check, toJson: schema.toJson, absent: 'lenient' };
}

/**
 * An object with the named fields. Unknown fields are ignored; the result is a fresh object holding only the
 * named fields, read as own properties. Absent (undefined or null) required fields are "missing".
 */
export function obj<S extends Shape>(shape: S): Schema<ObjOf<S>> {
  const entries = Object.entries(shape);
  return {
    check(v, path) {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const out: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        const raw = own(v, key);
        const at = `${path}.${key}`;
        if (raw === undefined || raw === null) {
          if (field.absent === 'optional' || field.absent === 'lenient') continue;
          if (field.absent === 'default') {
            out[key] = field.fallback;
            continue;
          }
          return fail(at, 'missing');
        }
        const r = field.check(raw, at);
        if (!r.ok) {
          if (field.absent === 'lenient') continue;
          return r;
        }
        out[key] = r.value;
      }
      return ok(out as ObjOf<S>);
    },
    toJson(value) {
      const out: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        const x = (value as Record<string, unknown>)[key];
        if (x === undefined || x === null) continue;
        out[key] = field.toJson(x);
      }
      return out;
    },
  };
}

export interface ArrOptions {
  /** Most items. */
  max: number;
  /** Fewest items (default 0). */
  min?: number;
}

/**
 * An array of items. An empty JSON object `{}` is accepted as an empty array: the Lua mod's encoder cannot tell
 * an empty array from an empty table (docs/DECISIONS.md).
 */
export function arr<T>(item: Schema<T>, options: ArrOptions): Schema<T[]> {
  const { max, min = 0 } = options;
  return {
    check(v, path) {
      if (isPlainObject(v) && Object.keys(v).length === 0) v = [];
      if (!Array.isArray(v)) return fail(path, 'expected an array');
      if (v.length > max) return fail(path, `more than ${max} items`);
      if (v.length < min) return fail(path, min === 1 ? 'empty' : `fewer than ${min} items`);
      const out: T[] = [];
      for (let i = 0; i < v.length; i++) {
        const r = item.check(v[i], `${path}[${i}]`);
        if (!r.ok) return r;
        out.push(r.value);
      }
      return ok(out);
    },
    toJson: (v) => v.map((x) => item.toJson(x)),
  };
}

/** A JSON object used as a map. Keys are checked by `key` (a reason or undefined). */
export interface RecOptions {
  /** Most entries. */
  max: number;
  /** Checks one key; returns why it is refused, or undefined. */
  key: (key: string) => string | undefined;
}

/**
 * A map from string keys to values. The result has no prototype, so no key (not even `__proto__`) can reach
 * one. An empty JSON array `[]` is accepted as an empty map (see `arr`).
 */
export function rec<T>(value: Schema<T>, options: RecOptions): Schema<Record<string, T>> {
  return {
    check(v, path) {
      if (Array.isArray(v) && v.length === 0) v = {};
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      const keys = Object.keys(v);
      if (keys.length > options.max) return fail(path, `more than ${options.max} entries`);
      const out = Object.create(null) as Record<string, T>;
      for (const key of keys) {
        const at = `${path}[${showKey(key)}]`;
        const bad = options.key(key);
        if (bad !== undefined) return fail(at, bad);
        const r = value.check(own(v, key), at);
        if (!r.ok) return r;
        put(out, key, r.value);
      }
      return ok(out);
    },
    toJson(v) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const key of Object.keys(v)) put(out, key, value.toJson(v[key] as T));
      return out;
    },
  };
}

/** Adds a check across fields (say "index below count") after `schema` accepted the value. */
export function refine<T>(schema: Schema<T>, rule: (value: T, path: string) => string | undefined): Schema<T> {
  return {
    check(v, path) {
      const r = schema.check(v, path);
      if (!r.ok) return r;
      const bad = rule(r.value, path);
      return bad === undefined ? r : { ok: false, reason: bad };
    },
    toJson: schema.toJson,
  };
}

// ---- arbitrary JSON ------------------------------------------------------------------------------------------

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
