// The simulator's run in `npm test` (test/sim/sim.shard*.test.ts): how many seeds, how long and how large the
// sessions are, and the coverage each shard of them must reach. Sized to run in under 90 s on the 2-core machine
// (docs/SIMULATOR.md "Speed" has the measurement); `npm run sim -- --sessions 10000` is the long run before a release.
import type { SimOptions } from './runSeed.ts';

export const CI_SIM = {
  firstSeed: 1,
  // 200 sessions in 4 test files of 50 consecutive seeds (test/sim/ciShard.ts), which vitest spreads over both cores
  sessions: 200,
  shards: 4,
  options: {
    // runs of 0.8–2 s before the end (0.25 until 2026-12-01: docs/DECISIONS.md "The simulator's CI sizes")
    lengthScale: 0.2,
    playerCounts: [2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8],
    freezeChance: 0.15,
    // freezes of 1¼–10 s: a frozen stretch costs as much as any other, and the stall of a long one (over 20 s) has its
    // own full-length seed test (forks.test.ts)
    freezeScale: 0.25,
    // the repair policy's cooldown scaled like the sessions (120 s → 30 s): a repair decided just after a hot join's
    // round otherwise held a quarter-length session for two simulated minutes
    repairCooldownSeconds: 30,
    // every workload (the forks they made are fixed; docs/SIMULATOR.md "Known forks")
    workloads: {},
  } satisfies SimOptions,
  /**
   * The share of each shard's sessions that must have gone through each workload: about 70 % of the lowest share the
   * four shards of seeds 1–200 reach (a floor of at least one session where that is rare).
   */
  coverageShares: {
    paused: 0.55,
    playerSpeedRequest: 0.34,
    speedChange: 0.3,
    burst: 0.5,
    freeze: 0.06,
    stalled: 0.18,
    pauseStorm: 0.06,
    lateJoin: 0.18,
    reload: 0.06,
    leave: 0.08,
    cut: 0.08,
    // an outsider sent actions (each must be refused everywhere, its own game included); a start without every Hello
    outsiderActed: 0.04,
    startEarly: 0.02,
    // a player's connection dropped mid-session and its launcher's reconnect loop resumed it (issue 12): caught up, or
    // not (a `player returned` round)
    drop: 0.38,
    resumed: 0.2,
    resumedNotCaughtUp: 0.14,
    // held strict builds made by the bots (issue 9 item 5)
    heldBuilds: 0.25,
    // checksum rounds compared identical; resync rounds loaded and verified (hot joins, returns, repairs; issue 11)
    checksumIdentical: 0.68,
    loaded: 0.38,
    resyncVerified: 0.38,
    // an injected divergence (issue 10): found and repaired; money corrected by Authority; differing verdicts and
    // parts differing two rounds in a row asked for a repair
    divergence: 0.3,
    'divergence:edges': 0.08,
    'divergence:verdicts': 0.02,
    repaired: 0.3,
    authority: 0.12,
    'repair:parts': 0.04,
    'repair:verdicts': 0.06,
    // a partial apply on the host's game (issue 11 item 7): repaired from a player's save
    'divergence:partial': 0.08,
    repairSource: 0.06,
    // the host's reload modes (issue 11 item 3): a round verified with a host that does not reload (3–4 a shard of seeds
    // 1–200), the host's game loading with the late order (2–4 a shard)
    hostKeptWorld: 0.04,
    hostLoadedLate: 0.02,
  },
};
