// The in-memory network's link conditions (latency, jitter, bandwidth, window, held) and its seeded random
// numbers: each direction of each link draws from its own stream of one seed (adapters/transport/memorySocket.ts).

/** The conditions of one direction of a link. */
export interface LinkConditions {
  /** One-way delay in ms added to every piece of data (default 0: next event, never synchronous). */
  latencyMs: number;
  /** Extra delay, uniform in [0, jitterMs), seeded per direction; bytes still arrive in order (default 0). */
  jitterMs: number;
  /** Bytes per second on the wire; `Infinity` (default) for no limit. */
  bytesPerSecond: number;
  /** Bytes in flight plus bytes received but not read before the sender's queue grows (default 1 MiB). */
  windowBytes: number;
  /** Nothing arrives while held (kept and delivered, in order, once released). */
  held: boolean;
}

export const DEFAULT_LINK: Readonly<LinkConditions> = Object.freeze({
  latencyMs: 0,
  jitterMs: 0,
  bytesPerSecond: Infinity,
  windowBytes: 1_048_576,
  held: false,
});

/** The defaults with `changes` applied; throws RangeError for a value that cannot work (our own code's mistake). */
export function resolveConditions(base: LinkConditions, changes: Partial<LinkConditions> = {}): LinkConditions {
  const out: LinkConditions = { ...base };
  for (const [name, value] of Object.entries(changes) as [keyof LinkConditions, unknown][]) {
    if (value !== undefined) (out as unknown as Record<string, unknown>)[name] = value;
  }
  const finite = (name: string, value: number, min: number): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new RangeError(`link ${name} must be a number ≥ ${min}, got ${String(value)}`);
    }
  };
  finite('latencyMs', out.latencyMs, 0);
  finite('jitterMs', out.jitterMs, 0);
  finite('windowBytes', out.windowBytes, 1);
  if (typeof out.bytesPerSecond !== 'number' || Number.isNaN(out.bytesPerSecond) || !(out.bytesPerSecond > 0)) {
    throw new RangeError(`link bytesPerSecond must be > 0 (Infinity for no limit), got ${String(out.bytesPerSecond)}`);
  }
  if (typeof out.held !== 'boolean') throw new RangeError('link held must be a boolean');
  return out;
}

/** A small seeded generator (mulberry32): floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit mix of a seed and a stream number, so each direction of each link has its own sequence. */
export function mixSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
