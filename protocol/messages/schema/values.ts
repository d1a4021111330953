// Scalar and string schemas of the validator kit: booleans, bounded integers and doubles, literals, Unicode text
// counted in code points, SHA-256 hex and base64 byte arrays (spec: Frame JSON conventions).

import { pureBase64 } from '../../base64.ts';
import type { Base64 } from '../../base64.ts';
import { fail, ok } from './core.ts';
import type { Schema } from './core.ts';

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
  /** The base64 implementation (default the pure one; the save path passes Node's, protocol/base64.ts). */
  base64?: Base64;
}

/** A byte array, canonical padded base64 in JSON (RFC 4648 §4), a `Uint8Array` in TypeScript. */
export function bytes(options: BytesOptions): Schema<Uint8Array> {
  const { min = 0, max, base64 = pureBase64 } = options;
  const maxChars = 4 * Math.ceil(max / 3);
  const size = min === max ? `exactly ${max} bytes` : `${min} to ${max} bytes`;
  return {
    check(v, path) {
      if (typeof v !== 'string') return fail(path, 'expected a base64 string');
      if (v.length > maxChars) return fail(path, `longer than ${max} bytes`);
      const decoded = base64.decode(v);
      if (decoded === undefined) return fail(path, 'not canonical base64');
      if (decoded.length > max) return fail(path, `longer than ${max} bytes`);
      if (decoded.length < min) return fail(path, `expected ${size}`);
      return ok(decoded);
    },
    toJson: (v) => base64.encode(v),
  };
}
