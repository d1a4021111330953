// The simulator's run in `npm test` (test/sim/sim.test.ts): how many seeds, how long and how large the sessions
// are, and the coverage floors those seeds must reach. Sized to run in about a minute on the 2-core machine
// (docs/SIMULATOR.md has the measurement); `npm run sim -- --sessions 10000` is the long run before a release.
import type { SimOptions } from './runSeed.ts';

export const CI_SIM = {
  firstSeed: 1,
  sessions: 200,
  options: {
    lengthScale: 0.25,
    playerCounts: [2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8],
    freezeChance: 0.15,
    // every workload, outsiders that click and starts without every Hello included (the fork they made is fixed:
    // the originator applies its own action only with the host's copy; docs/SIMULATOR.md "Known forks")
    workloads: {},
  } satisfies SimOptions,
  /** Sessions (of `sessions`) that must have gone through each workload. */
  coverageFloors: {
    paused: 60,
    playerSpeedRequest: 40,
    speedChange: 40,
    burst: 80,
    freeze: 15,
    stalled: 3,
    pauseStorm: 15,
    lateJoin: 15,
    reload: 20,
    leave: 15,
    cut: 15,
    // an outsider sent actions (each must be refused everywhere, its own game included); a start without every Hello
    outsiderActed: 10,
    startEarly: 5,
    // a player's connection dropped mid-session and its launcher's reconnect loop resumed it, caught up (issue 12)
    drop: 25,
    resumed: 25,
  },
};
