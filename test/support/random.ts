// A seeded random source for the tests that shuffle, split or delay (the file link's writers, the fault proxy),
// so a failing run can be replayed from its seed.

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
