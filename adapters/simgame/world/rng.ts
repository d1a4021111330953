// Deterministic integer randomness for the simulated world and its bots: a hash of integers and a
// small seeded generator. No Math.random anywhere in the world (architecture.txt §7: every game
// must draw the same numbers at the same step).

/** murmur3's 32-bit finaliser: spreads every input bit over the whole word. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Hashes a list of non-negative integers (each up to 2^53) to an unsigned 32-bit value.
 * Used to seed draws from (world seed, time, entity), so growth never depends on draw order.
 */
export function hashInts(...values: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    const lo = v >>> 0;
    const hi = Math.floor(v / 0x1_0000_0000) >>> 0;
    h = fmix32(Math.imul(h ^ lo, 0x01000193) + 0x7f4a7c15);
    h = fmix32(Math.imul(h ^ hi, 0x01000193) + 0x6c8e9cf5);
  }
  return h;
}

/** A seeded generator (mulberry32); its whole state is one 32-bit number. */
export class Rng {
  state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next unsigned 32-bit value. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n) (n ≥ 1). */
  int(n: number): number {
    return Math.floor((this.nextU32() / 0x1_0000_0000) * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.nextU32() / 0x1_0000_0000 < p;
  }
}
