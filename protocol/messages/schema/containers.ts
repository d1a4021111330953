// Container schemas of the validator kit: objects with named fields (unknown ones ignored), optional, default and
// lenient fields, arrays, maps and checks across fields. Results are built afresh, field by field.

import { fail, isPlainObject, ok, own, put, showKey } from './core.ts';
import type { ObjOf, OptionalSchema, Schema, Shape } from './core.ts';

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
  // The fields' paths ("Action.hop.g") for the last parent path seen: a payload's fields are checked under the
  // same path every time, so they are built once, not once per field per message.
  let lastPath: string | undefined;
  let ats: string[] = [];
  return {
    check(v, path) {
      if (!isPlainObject(v)) return fail(path, 'expected an object');
      if (path !== lastPath) {
        ats = entries.map(([key]) => `${path}.${key}`);
        lastPath = path;
      }
      const fieldPaths = ats;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < entries.length; i++) {
        const [key, field] = entries[i]!;
        const raw = own(v, key);
        const at = fieldPaths[i]!;
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
