// The sizes seed tests were found at, kept apart from test/sim/ciOptions.ts: the CI sizes may change, and a seed test
// must keep running the session it names (a changed size draws another session from the same seed).
import type { SimOptions } from './runSeed.ts';

/** The CI sizes of 2026-12-01 until the evening (test/sim/ciOptions.ts then): seeds 21 (repairs) and 82 (detected). */
export const CI_SIZES_2026_12_01: SimOptions = {
  lengthScale: 0.25,
  playerCounts: [2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8],
  freezeChance: 0.15,
  freezeScale: 0.25,
  repairCooldownSeconds: 30,
  workloads: {},
};

/** The same with runs at 0.2 of the full length (the CI sizes since): seed 113, then 9 (forks). */
export const CI_SIZES_SHORTER: SimOptions = { ...CI_SIZES_2026_12_01, lengthScale: 0.2 };
