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
    // every workload but an outsider's own actions (a known fork, docs/SIMULATOR.md "Known forks"): players still
    // join the started session, as outsiders that do not click, and every start waits for every player's Hello
    workloads: { outsidersAct: false, startEarly: false },
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
  },
};
