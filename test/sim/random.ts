// The simulator's one source of chance: a seeded generator (mulberry32, the memory network's own) with the draws a
// plan needs. Everything random in a simulated session comes from here or from generators seeded from here.
import { seededRandom } from '../../adapters/transport/memorySocket.ts';

export class SimRandom {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = seededRandom(seed >>> 0);
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi] (both included). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A 32-bit seed for a generator of its own. */
  seed(): number {
    return Math.floor(this.next() * 0x1_0000_0000) >>> 0;
  }
}
