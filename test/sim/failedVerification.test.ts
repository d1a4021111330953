// An action applied twice after a resync load, then a failed verification (docs/SIMULATOR.md, full-length seeds 447
// and 668, default options). After a round's load the host sends every participant the relayed items the save does
// not hold (actors/host/relayLedger.ts `since(t)`); a fresh Lua state after a load cannot tell a copy of an item the
// save holds, so `t` must be the time the save was made at. Both seeds gave a `t` below it:
// - 447: a `player returned` round right after a verified round paused before the host's game sent its first Clock
//   after its Hello; the lockstep took no clock for 0 and paused at futureStamp(0) = 800 while the world stood at 4600
//   (machines/rules/stamps.ts `hostGameT`);
// - 668: a pause at 4000 while a stalled returner's flushes were stamped 8200: every game ran on to 8200 and saved
//   there, the ledger used pauseAt (relayLedger.ts `saveTime`).
// Both failed before the fix with `exactlyOnce: host applied … twice`, `notLate`, `sameOrder` and a failed
// verification (the twice-applied items made the loaded worlds differ). Each test asserts the seed still reaches the
// situation that made the fork, so a change of the plans that moves it away fails here.
import { describe, expect, it } from 'vitest';
import { failureText, runSeed } from './runSeed.ts';
import type { SimSession } from './sessionContext.ts';

/** Watches every round's start and load: what the lockstep knew of the saving game and the session's pauseAt then. */
function watchRounds() {
  const seen = { pausedWithoutHostClock: 0, savedPastPauseAt: 0, rounds: 0 };
  const onSession = (s: SimSession): void => {
    s.resync.actor.on('out.progress', (e) => {
      const context = s.lockstepContext();
      const host = context.games[0];
      if (e.state === 'Pausing') {
        seen.rounds += 1;
        // the host's game said Hello from a load and has sent no Clock since
        if (host?.clock === undefined && host?.bestT !== undefined) seen.pausedWithoutHostClock += 1;
      }
      if (e.state === 'Loading') {
        const source = s.resync.actor.getSnapshot().context.source;
        const stands = context.games[source]?.clock?.t ?? context.games[source]?.bestT;
        const pauseAt = context.session.pauseAt;
        if (stands !== undefined && pauseAt !== undefined && stands > pauseAt) seen.savedPastPauseAt += 1;
      }
    });
  };
  return { seen, onSession };
}

describe('a resync load sends no copy of what the save holds (was: applied twice, the verification failed)', () => {
  it('seed 447: a round paused before the host game’s first Clock after its load pauses past the world’s time', async () => {
    const { seen, onSession } = watchRounds();
    const r = await runSeed(447, { onSession });
    expect(r.happened).toEqual(expect.arrayContaining(['divergence:partial', 'resumedNotCaughtUp', 'resyncVerified']));
    expect(seen.pausedWithoutHostClock).toBeGreaterThanOrEqual(1);
    expect(seen.rounds).toBeGreaterThanOrEqual(2);
    expect(r.run.resyncs.rounds.failed).toBe(0);
    expect(failureText(r)).toBe('');
  }, 90_000);

  it('seed 668: a save made past the session’s pauseAt is the ledger’s time', async () => {
    const { seen, onSession } = watchRounds();
    const r = await runSeed(668, { onSession });
    expect(r.happened).toEqual(expect.arrayContaining(['divergence:partial', 'repairSource', 'stalled']));
    expect(seen.savedPastPauseAt).toBeGreaterThanOrEqual(1);
    expect(r.run.resyncs.rounds.failed).toBe(0);
    expect(failureText(r)).toBe('');
  }, 90_000);
});
