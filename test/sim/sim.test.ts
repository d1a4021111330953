// The simulator in CI (issue 9 item 7): 200 seeded whole sessions (host + 2–8 players, real sessions, bridges and
// mod, one simulated clock) with every invariant checked; no failure allowed, and the sessions must have gone
// through what they are there for (coverage floors). The seeds and the invariants are docs/SIMULATOR.md's.
import { describe, expect, it } from 'vitest';
import { INVARIANTS } from './invariants.ts';
import { addToSummary, emptySummary, failureText, runSeed, type SimOptions } from './runSeed.ts';
import { CI_SIM } from './ciOptions.ts';

describe('the session simulator', () => {
  it(`${CI_SIM.sessions} seeded sessions: no invariant fails, and the workloads happened`, async () => {
    const summary = emptySummary();
    const failures: string[] = [];
    for (let seed = CI_SIM.firstSeed; seed < CI_SIM.firstSeed + CI_SIM.sessions; seed++) {
      const r = await runSeed(seed, CI_SIM.options as SimOptions);
      addToSummary(summary, r);
      if (r.failures.length > 0) failures.push(failureText(r));
    }
    // one line for the record: what the run covered (docs/SIMULATOR.md quotes it)
    console.log(`simulator: ${JSON.stringify({ ...summary, failingSeeds: summary.failingSeeds.slice(0, 10) })}`);
    expect(failures).toEqual([]);
    expect(summary.sessions).toBe(CI_SIM.sessions);
    for (const name of INVARIANTS) expect(summary.checks[name], `checks of ${name}`).toBeGreaterThan(0);
    for (const [what, floor] of Object.entries(CI_SIM.coverageFloors)) {
      expect(summary.coverage[what] ?? 0, `sessions that went through ${what}`).toBeGreaterThanOrEqual(floor);
    }
  }, 600_000);

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
