// The simulator's run in `npm test` (test/sim/sim.test.ts): how many seeds, how long and how large the sessions
// are, and the coverage floors those seeds must reach. Sized to run in about two minutes on the 2-core machine
// (docs/SIMULATOR.md has the measurement); `npm run sim -- --sessions 10000` is the long run before a release.
import type { SimOptions } from './runSeed.ts';

export const CI_SIM = {
  firstSeed: 1,
  // 100, not 200, since every session runs checksum and resync rounds (about 1.3 s a session instead of 0.43 s); even
  // so `npm test` takes about 11½ minutes on a clean clone here, over the 10 it should (docs/SIMULATOR.md "Speed")
  sessions: 100,
  options: {
    lengthScale: 0.25,
    playerCounts: [2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8],
    freezeChance: 0.15,
    // every workload (the forks they made are fixed; docs/SIMULATOR.md "Known forks")
    workloads: {},
  } satisfies SimOptions,
  /** Sessions (of `sessions`) that must have gone through each workload (about 70 % of what seeds 1–100 reach). */
  coverageFloors: {
    paused: 55,
    playerSpeedRequest: 35,
    speedChange: 32,
    burst: 53,
    freeze: 8,
    stalled: 20,
    pauseStorm: 8,
    lateJoin: 28,
    reload: 15,
    leave: 10,
    cut: 9,
    // an outsider sent actions (each must be refused everywhere, its own game included); a start without every Hello
    outsiderActed: 7,
    startEarly: 3,
    // a player's connection dropped mid-session and its launcher's reconnect loop resumed it (issue 12): caught up, or
    // not (a `player returned` round)
    drop: 40,
    resumed: 23,
    resumedNotCaughtUp: 12,
    // held strict builds made by the bots (issue 9 item 5)
    heldBuilds: 24,
    // checksum rounds compared identical; resync rounds loaded and verified (hot joins, returns, repairs; issue 11)
    checksumIdentical: 65,
    loaded: 35,
    resyncVerified: 35,
    // an injected divergence (issue 10): found and repaired; money corrected by Authority; differing verdicts and
    // parts differing two rounds in a row asked for a repair
    divergence: 24,
    'divergence:edges': 12,
    'divergence:money': 6,
    'divergence:verdicts': 4,
    repaired: 24,
    authority: 9,
    'repair:parts': 5,
    'repair:verdicts': 2,
  },
};
