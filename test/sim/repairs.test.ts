// The forks the simulator found once checksum rounds and resync rounds ran in it (issues 10 and 11), each kept as a
// seeded session that FAILED before its fix (the failure it reported is quoted) and passes after it. Like
// forks.test.ts, each test also asserts that the session still goes through what made the fork, so a change to the
// plans that moves the seed away fails here instead of passing silently. docs/SIMULATOR.md "Known forks".
import { describe, expect, it } from 'vitest';
import { CI_SIZES_2026_12_01 } from './foundSizes.ts';
import { failureText, runSeed, type SimOptions } from './runSeed.ts';

/** The options the seeds were found with: every default workload and the divergence workload (before `verdicts`). */
const FOUND_WITH: SimOptions = { workloads: { divergence: true, verdictDivergence: false } };

describe('forks found with checksum and resync rounds in the simulator stay closed', () => {
  // Before the fix (mod/feverlink3_resync.lua `requeue` took back every carried item stamped >= t):
  // `exactlyOnce: p1 applied 1:3 twice (again at t=1400)` — a pause-order flush stamped at the save's t is applied
  // standing, before the save, so the joiner that loaded the save applied it a second time.
  it('a flush stamped at the save’s t is in the save: a game that loads it does not apply it again (seed 14)', async () => {
    const r = await runSeed(14, FOUND_WITH);
    expect(r.happened).toEqual(expect.arrayContaining(['lateJoin', 'loaded', 'resyncVerified']));
    expect(failureText(r)).toBe('');
  }, 60_000);

  // Before the fix (ChecksumRequest.upto, mod/feverlink3_checksum.lua beforeFlush): `checksumsAgree: checksum round 4
  // differed with no divergence injected: constructions, edges, ids, money, nodeConfigs` — the resync's verification
  // (a paused round) was read by one game before the pause actions flushed after the load and by the others after;
  // the host then "corrected" that game's money by Authority, forking it for real.
  it('every game reads a paused round at the same pause-order position (seed 2)', async () => {
    const r = await runSeed(2, FOUND_WITH);
    expect(r.happened).toEqual(expect.arrayContaining(['resyncVerified', 'pausedAgain', 'resumedNotCaughtUp']));
    expect(r.run.resyncs.rounds.failed).toBe(0);
    expect(failureText(r)).toBe('');
  }, 60_000);

  // Before the fix (actors/host/relayLedger.ts): `sameOrder: apply logs of host and p2 differ at entry 42 (stamps <
  // 2800): t=2600 action 2:19 stamp=2600 applied vs (none)` — p2 came back from a drop without a catch-up; the action
  // stamped at the save's t was relayed while it was away, so its queue lacked it after the load while every other
  // game took it from its own.
  it('a returner that missed relayed actions the save does not hold gets them after its load (seed 36)', async () => {
    const r = await runSeed(36, FOUND_WITH);
    expect(r.happened).toEqual(expect.arrayContaining(['drop', 'resumedNotCaughtUp', 'loaded', 'resyncVerified']));
    expect(failureText(r)).toBe('');
  }, 60_000);

  // Before the fix (mod/feverlink3_resync.lua `requeue`, feverlink3_inbox.lua ownCopy after a load): `progress: the
  // games did not all stand still ... p3@7400 ... barrier 7400` — p3 carried across its load an own action it had
  // made while away (its launcher dropped it: no catch-up), waited at its stamp for the host's copy for good, and
  // every other game waited for p3.
  it('an own action of the old world the host never confirmed does not hold a game after its load (seed 73)', async () => {
    const r = await runSeed(73, FOUND_WITH);
    expect(r.happened).toEqual(expect.arrayContaining(['resumedNotCaughtUp', 'resyncVerified']));
    expect(failureText(r)).toBe('');
  }, 60_000);

  // Before the fix (mod/feverlink3_resync.lua `load`, S.loadedSave kept in mod_state.txt): `barrier: p2 stepped out of
  // t=13400 although p1 promised only 5600` — p1's mod was loaded again mid-session after a resync load; reading its
  // backlog again it met the ResyncLoad line and loaded the old save a second time, its world thrown back from 13000
  // to 4400 (its Hello then made it an outsider).
  it('a mod loaded again after a resync load does not load the save again from its backlog (seed 240)', async () => {
    const r = await runSeed(240, FOUND_WITH);
    expect(r.happened).toEqual(expect.arrayContaining(['reload', 'loaded', 'resyncVerified']));
    const loads = r.run.slots.map((s) => (s.game?.records ?? []).filter((x) => x.what === 'load').length);
    expect(Math.max(...loads)).toBe(1); // each game loaded the one round's save once
    expect(failureText(r)).toBe('');
  }, 60_000);

  // The harness, not the product: the end of a run (test/sim/finish.ts) let the session run on for a repair whenever
  // it stood still before the 250 ms pause watch had compared the worlds, so a divergence a verified round had just
  // repaired kept the session running 6 s more, twice (seed 21 at the CI sizes: 27.8 s simulated, now 11.5 s: one run
  // on for the second round that asks for the repair, none after the round).
  it('a divergence a verified round repaired is compared where the session stands: no run on after it (seed 21)', async () => {
    const r = await runSeed(21, CI_SIZES_2026_12_01);
    expect(r.happened).toEqual(expect.arrayContaining(['repair:parts', 'resyncVerified', 'repaired']));
    expect(r.simMs).toBeLessThan(15_000);
    expect(failureText(r)).toBe('');
  }, 60_000);
});
