// A game that comes back while every other game is marked (simulator seed 5061; lockstep.md "Stalls and outsiders",
// "Catching up"): nobody waited for the returner while it was away, and a marked game catching up may stand past the
// host's game, the only clock the stamps fell back to when no pacing game was left. The returner's promise, and a
// pause's pauseAt, must lie past where a marked game may stand (rules/stamps.ts `furthestMarked`), or the returner's
// actions stamped between the two are applied late there, and the pause lands behind it. Both FAILED before the fix:
// the promise and pauseAt were futureStamp(10 400), the frozen host game's t, while game 1 stood at 11 600.
import { describe, expect, it } from 'vitest';
import { futureStamp } from '../../machines/rules/lockstep.ts';
import { ofType, runningHost } from './lockstepHarness.ts';

const action = (seq: number, stamp: number) => ({ seq, stamp, body: { op: 'build', seq }, category: 'build' });

/**
 * Games 0, 1, 2 from 10 000. Game 1 drops and comes back at 6 s, marked with a promise far ahead (the others'
 * clocks extrapolated). Game 0 then stands at 10 400 and is marked by the stall rule at 26.2 s (promise 11 600);
 * game 1 (still marked, catching up) and game 2 run on to 11 600, game 0's promise. Then game 2 drops: no pacing
 * game is left, game 0 (frozen, marked) stands at 10 400 and game 1 (marked) at 11 600.
 */
function everyOtherMarked() {
  const host = runningHost([0, 1, 2], 10_000);
  host.clockOf(0, 10_000, 0, { speed: 1 }).clockOf(2, 10_000, 0, { speed: 1 });
  host.send({ type: 'game.left', id: 1, now: 1_000 });
  host.send({ type: 'game.returned', id: 1, now: 6_000 });
  host.clockOf(1, 10_200, 6_100, { speed: 1 }); // moving from its first clock: its promise stays
  host.clockOf(0, 10_400, 6_200, { speed: 0, safe: 10_800 }); // game 0 freezes here
  host.clockOf(2, 10_800, 6_300, { speed: 0 }).clockOf(1, 10_800, 6_400, { speed: 0 });
  host.send({ type: 'tick', now: 26_200 });
  const lead = host.context().session.lead;
  expect(host.context().games[0]!.stalled).toMatchObject({ promise: futureStamp(10_800, lead) });
  const gamePromise0 = host.context().games[0]!.stalled!.promise;
  host.clockOf(2, gamePromise0, 27_000, { speed: 0 }).clockOf(1, gamePromise0, 27_100, { speed: 0 });
  expect(host.context().games[1]!.stalled!.promise).toBeGreaterThan(gamePromise0); // still marked, catching up
  host.send({ type: 'game.left', id: 2, now: 28_000 });
  host.take();
  return { host, lead, furthest: gamePromise0 };
}

describe('a return while every other game is marked (simulator seed 5061)', () => {
  it('promises past where a marked game catching up may stand, not from the frozen host game alone', () => {
    const { host, lead, furthest } = everyOtherMarked();
    host.send({ type: 'game.returned', id: 2, now: 29_000 });
    const promise = host.context().games[2]!.stalled!.promise;
    expect(promise).toBe(futureStamp(furthest, lead)); // was futureStamp(10 400): below game 1's 11 600
    // an action the returner stamped where game 1 already stands is refused on every game, not relayed late
    host.clockOf(2, 10_800, 29_100, { speed: 1 });
    host.take();
    host.send({ type: 'recv.Action', from: 2, payload: action(1, furthest), now: 29_200 });
    expect(host.sent().map((e) => e.type)).toEqual(['send.BuildVeto']);
    host.send({ type: 'recv.Action', from: 2, payload: action(2, promise), now: 29_300 });
    expect(ofType(host.take(), 'send.Action').map((e) => e.payload.stamp)).toEqual([promise]);
  });

  it('pauses past where a marked game may stand when no pacing game is left', () => {
    const { host, lead, furthest } = everyOtherMarked();
    host.send({ type: 'cmd.pause', now: 28_100 });
    expect(host.context().session.pauseAt).toBe(futureStamp(furthest, lead)); // was futureStamp(10 400)
  });

  it('raises a returner’s promise before its first clock past where a marked game may run meanwhile', () => {
    const { host, lead } = everyOtherMarked();
    host.send({ type: 'game.returned', id: 2, now: 29_000 });
    const promise = host.context().games[2]!.stalled!.promise;
    // Game 0 thaws: it reaches its promise (its mark ends) and stands there promising far ahead (ahead 8). Game 1,
    // still marked, is bound only by that promise (the returner is nobody's peer before its first clock): 13 200.
    host.clockOf(0, 11_600, 30_000, { speed: 0, ahead: 8, safe: 13_200 });
    host.clockOf(1, 13_200, 30_500, { speed: 0 });
    expect(host.context().games[0]!.stalled).toBeUndefined();
    expect(futureStamp(11_600, lead)).toBeLessThanOrEqual(promise); // the pacing games alone would raise nothing
    host.send({ type: 'tick', now: 31_000 });
    expect(host.context().games[2]!.stalled).toEqual({ promise: futureStamp(13_200, lead), since: 29_000 });
  });
});
