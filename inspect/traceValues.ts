// JSON-safe, bounded copies of what actors carry (events, contexts, outputs) for the trace (inspect/traceEncoder.ts):
// byte arrays as their length, actor refs by name, cycles, Maps and Sets marked, and everything cut to a budget.
// Pure, like the encoder.
import type { SafeEvent } from './traceFormat.ts';

export const MAX_DEPTH = 8;
export const MAX_ITEMS = 64;
export const MAX_STRING = 1024;
export const CUT = '$…';

/** What the trace reads of an actor ref. */
export interface RefLike {
  sessionId: string;
  id?: string;
  systemId?: string;
  options?: { systemId?: string };
  _parent?: RefLike;
  logic?: { config?: unknown; root?: unknown };
}

/** Room left for a value (about JSON bytes); `cut` once something did not fit. */
export interface Budget {
  left: number;
  cut: boolean;
}

/** Copies values within a budget; actor refs are written by the name `nameOf` gives them. */
export class SafeCopier {
  private readonly nameOf: (ref: RefLike) => string;

  constructor(nameOf: (ref: RefLike) => string) {
    this.nameOf = nameOf;
  }

  event(event: unknown, budget: Budget): SafeEvent {
    const e = event as { type?: unknown } | null | undefined;
    const type = e && typeof e === 'object' && typeof e.type === 'string' ? e.type : '';
    if (!e || typeof e !== 'object') return { type };
    const out: SafeEvent = { type };
    let n = 0;
    let keys: string[];
    try {
      keys = Object.keys(e);
    } catch {
      return { type, $unreadable: true };
    }
    for (const key of keys) {
      if (key === 'type') continue;
      if (n++ >= MAX_ITEMS || budget.left <= 0) {
        out.$more = keys.length - n + 1;
        budget.cut = true;
        break;
      }
      budget.left -= key.length + 4;
      out[key] = this.value(read(e, key), budget, 1, [e]);
    }
    return out;
  }

  /**
   * A JSON-safe copy of `v` within `budget` (about JSON bytes). Byte arrays become their length only (they may be
   * keys, nonces or save chunks, and traces travel in bug reports); bigint → {$bigint}; functions → {$fn}; actor refs
   * → {$actor: name}; cycles → {$cycle}; Map/Set → {$map}/{$set}; deeper than 8, longer than 64 items or 1024
   * characters, or past the budget → cut (`$…`, `$more`), and `budget.cut` is set.
   */
  value(v: unknown, budget: Budget, depth: number, stack: unknown[]): unknown {
    if (budget.left <= 0) {
      budget.cut = true;
      return CUT;
    }
    switch (typeof v) {
      case 'string':
        if (v.length > MAX_STRING || v.length > budget.left) {
          const keep = Math.max(0, Math.min(MAX_STRING, budget.left));
          budget.cut = true;
          budget.left -= keep + 2;
          return `${v.slice(0, keep)}${CUT}`;
        }
        budget.left -= v.length + 2;
        return v;
      case 'number':
        budget.left -= 8;
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        budget.left -= 5;
        return v;
      case 'undefined':
        return undefined;
      case 'bigint':
        budget.left -= 16;
        return { $bigint: v.toString() };
      case 'function':
        budget.left -= 16;
        return { $fn: v.name || 'anonymous' };
      case 'symbol':
        budget.left -= 16;
        return { $symbol: v.description ?? '' };
    }
    if (v === null) {
      budget.left -= 4;
      return null;
    }
    const o = v as object;
    if (stack.includes(o)) {
      budget.left -= 12;
      return { $cycle: true };
    }
    budget.left -= 2;
    try {
      if (isActorRef(o)) return { $actor: this.nameOf(o) };
      if (ArrayBuffer.isView(o)) return { $bytes: o.byteLength };
      if (o instanceof ArrayBuffer) return { $bytes: o.byteLength };
      if (o instanceof Date) return Number.isNaN(o.getTime()) ? 'Invalid Date' : o.toISOString();
      if (o instanceof Error) return errorOf(o, 256);
      if (depth >= MAX_DEPTH) {
        budget.cut = true;
        return CUT;
      }
      stack.push(o);
      try {
        if (Array.isArray(o)) return this.items(o, o.length, budget, depth, stack);
        if (o instanceof Map) return { $map: this.items([...o.entries()].slice(0, MAX_ITEMS + 1), o.size, budget, depth, stack) };
        if (o instanceof Set) return { $set: this.items([...o.values()].slice(0, MAX_ITEMS + 1), o.size, budget, depth, stack) };
        if (o instanceof Promise || o instanceof WeakMap || o instanceof WeakSet) return { $object: o.constructor.name };
        const out: Record<string, unknown> = {};
        const keys = Object.keys(o);
        let n = 0;
        for (const key of keys) {
          if (n >= MAX_ITEMS || budget.left <= 0) {
            out.$more = keys.length - n;
            budget.cut = true;
            break;
          }
          n++;
          budget.left -= key.length + 4;
          const value = this.value(read(o, key), budget, depth + 1, stack);
          if (value !== undefined) out[key] = value;
        }
        return out;
      } finally {
        stack.pop();
      }
    } catch {
      return { $unreadable: true };
    }
  }

  private items(list: readonly unknown[], size: number, budget: Budget, depth: number, stack: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < list.length && i < size; i++) {
      if (i >= MAX_ITEMS || budget.left <= 0) {
        out.push({ $more: size - i });
        budget.cut = true;
        break;
      }
      const value = this.value(list[i], budget, depth + 1, stack);
      out.push(value === undefined ? null : value);
      budget.left -= 1;
    }
    return out;
  }

  /** The JSON text of `line`, at most maxLineBytes: else the line keeps only its identifying fields. */
}

export function isActorRef(o: object): o is RefLike {
  const r = o as { sessionId?: unknown; send?: unknown; getSnapshot?: unknown };
  return typeof r.sessionId === 'string' && typeof r.send === 'function' && typeof r.getSnapshot === 'function';
}

export function read(o: object, key: string): unknown {
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return { $unreadable: true };
  }
}

export function errorOf(err: unknown, stackChars = 2000): unknown {
  if (err instanceof Error) {
    const out: Record<string, string> = { $error: err.name, message: err.message.slice(0, 1024) };
    if (stackChars > 256 && err.stack) out.stack = err.stack.slice(0, stackChars);
    return out;
  }
  return { $error: 'thrown', message: String(err).slice(0, 1024) };
}
