// The simulator checked itself (issue 9 items 1 and 4): a seed replays byte for byte, and the checker reports a fork
// with its seed. The seeded sessions of npm test are in sim.shard*.test.ts (test/sim/ciShard.ts).
import { describe, expect, it } from 'vitest';
import { failureText, runSeed, type SimOptions } from './runSeed.ts';
import { CI_SIM } from './ciOptions.ts';

describe('the session simulator', () => {
  it('a seed replays exactly: the same apply log hash; another seed gives another', async () => {
    const a = await runSeed(3, CI_SIM.options as SimOptions);
    const b = await runSeed(3, CI_SIM.options as SimOptions);
    const c = await runSeed(4, CI_SIM.options as SimOptions);
    const applied = a.run.slots.reduce((n, s) => n + (s.game?.appliedItems ?? 0), 0);
    expect(applied).toBeGreaterThan(10);
    // a session with a resync round (its save written, streamed and loaded as real files) replays exactly too
    expect(a.happened).toEqual(expect.arrayContaining(['loaded', 'resyncVerified']));
    expect(b.hash).toBe(a.hash);
    expect(c.hash).not.toBe(a.hash);
  }, 60_000);

  it('the checker can fail: one game applying one action one step late is reported with its seed', async () => {
    const seeds = [1, 2, 3, 4, 5];
    const results = [];
    for (const seed of seeds) results.push(await runSeed(seed, { ...(CI_SIM.options as SimOptions), fault: 'fork' }));
    // every run in which the faulty game met another player's action must fail, naming the late apply
    const met = results.filter((r) => r.run.slots[1]?.game?.records.some((x) => x.what === 'apply' && x.from !== r.run.slots[1]!.id && x.kind === 'action'));
    expect(met.length).toBeGreaterThanOrEqual(3);
    for (const r of met) {
      expect(r.failures.map((f) => f.invariant)).toContain('notLate');
      expect(failureText(r)).toMatch(new RegExp(`^seed ${r.seed}: `));
    }
  }, 120_000);
});
