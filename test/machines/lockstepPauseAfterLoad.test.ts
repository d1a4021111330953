// A pause (or a returner's promise) in the instant after the host's game said Hello from a resync load, before its
// next Clock: the Hello dropped the old clock, and the stamp must come from the Hello's time, not from 0. Full-length
// simulator seed 447: a `player returned` round right after a verified round paused at futureStamp(0) = 800 while
// every world stood at 4600; the round's load resent every relayed item above 800 (actors/host/relayLedger.ts), which
// the save held already, and the host's game applied each a second time (exactlyOnce, then a failed verification).
import { describe, expect, it } from 'vitest';
import { futureStamp } from '../../machines/rules/lockstep.ts';
import { runningHost } from './lockstepHarness.ts';

/** A running session whose host's game (alone in it) has just said Hello from a load at `t`, no Clock since. */
function hostLoadedAt(t: number) {
  const host = runningHost([0], 1_000);
  host.clockOf(0, t - 200, 5_000); // it ran on before the round
  host.send({ type: 'recv.Hello', from: 0, payload: { time: t }, now: 6_000, loaded: true });
  expect(host.context().games[0]!.clock).toBeUndefined(); // the scenario: the Hello dropped its clock
  host.take();
  return host;
}

describe('the host lockstep right after the host game’s Hello from a load', () => {
  it('pauses at the future stamp over the Hello’s time', () => {
    const host = hostLoadedAt(4_600);
    host.send({ type: 'cmd.pause', now: 6_010 });
    const { pauseAt, lead } = host.context().session;
    expect(pauseAt).toBe(futureStamp(4_600, lead));
    expect(pauseAt).toBeGreaterThan(4_600);
  });

  it('promises a returner the future stamp over the Hello’s time', () => {
    const host = hostLoadedAt(4_600);
    host.send({ type: 'game.joined', id: 2, now: 6_005 });
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 4_600 }, now: 6_006, loaded: true });
    host.send({ type: 'game.left', id: 2, now: 6_007 });
    host.send({ type: 'game.returned', id: 2, now: 6_010 });
    const { lead } = host.context().session;
    expect(host.context().games[2]!.stalled?.promise).toBe(futureStamp(4_600, lead));
  });
});
