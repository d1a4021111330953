// One shard of the simulator's run in `npm test` (issue 9 items 3 and 7): CI_SIM.sessions seeds in CI_SIM.shards
// test files of consecutive seeds, so vitest runs them on both cores beside the other files. Each shard: no invariant
// fails, every invariant was checked, and its sessions went through what they are there for (CI_SIM.coverageShares,
// a share of the shard's sessions each).
import { describe, expect, it } from 'vitest';
import { CI_SIM } from './ciOptions.ts';
import { INVARIANTS } from './invariants.ts';
import { addToSummary, emptySummary, failureText, runSeed, type SimOptions } from './runSeed.ts';

/** The seeds of shard `shard` (1-based). */
export function shardSeeds(shard: number): { from: number; count: number } {
  const count = Math.ceil(CI_SIM.sessions / CI_SIM.shards);
  const from = CI_SIM.firstSeed + (shard - 1) * count;
  return { from, count: Math.min(count, CI_SIM.firstSeed + CI_SIM.sessions - from) };
}

/** The test of shard `shard` (one test file each: sim.shard1.test.ts …). */
export function simShardTest(shard: number): void {
  const { from, count } = shardSeeds(shard);
  describe(`the session simulator, seeds ${from}–${from + count - 1}`, () => {
    it(`${count} seeded sessions: no invariant fails, and the workloads happened`, async () => {
      const summary = emptySummary();
      const failures: string[] = [];
      for (let seed = from; seed < from + count; seed++) {
        const r = await runSeed(seed, CI_SIM.options as SimOptions);
        addToSummary(summary, r);
        if (r.failures.length > 0) failures.push(failureText(r));
      }
      // one line for the record: what the shard covered (docs/SIMULATOR.md quotes the sums)
      console.log(`simulator seeds ${from}–${from + count - 1}: ${JSON.stringify({ ...summary, failingSeeds: summary.failingSeeds.slice(0, 10) })}`);
      expect(failures).toEqual([]);
      expect(summary.sessions).toBe(count);
      for (const name of INVARIANTS) expect(summary.checks[name], `checks of ${name}`).toBeGreaterThan(0);
      for (const [what, share] of Object.entries(CI_SIM.coverageShares)) {
        const floor = Math.floor(share * count);
        expect(summary.coverage[what] ?? 0, `sessions that went through ${what} (at least ${floor} of ${count})`).toBeGreaterThanOrEqual(floor);
      }
    }, 600_000);
  });
}
