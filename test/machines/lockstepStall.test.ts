// Stalled games in the lockstep chart (lockstep.md "Stalls and outsiders"; prior-projects §2.6 H6): a game that
// stands 20 s while another waits at its promise is listed in Session.stalled and relayed with the host's
// promise; its actions stamped below the promise are refused with a host BuildVeto; the mark ends at the promise.
import { describe, expect, it } from 'vitest';
import { futureStamp } from '../../machines/rules/lockstep.ts';
import { ofType, runningHost } from './lockstepHarness.ts';

/** Game 1 stands at 10 000 promising 10 400; game 0 has run up to that barrier and waits there. */
function stalledSetup() {
  const host = runningHost([0, 1], 10_000);
  host.clockOf(1, 10_000, 0, { speed: 1, safe: 10_400 });
  host.clockOf(0, 10_400, 1_000, { speed: 0, safe: 10_800 });
  host.take();
  return host;
}

describe('stalls', () => {
  it('marks a game that stood 20 s while another waits at its promise', () => {
    const host = stalledSetup();
    host.send({ type: 'tick', now: 19_999 });
    expect(host.take()).toEqual([]);
    host.send({ type: 'tick', now: 20_000 });
    const lead = host.context().session.lead;
    const promise = futureStamp(10_400, lead);
    expect(host.sent()).toEqual([
      { type: 'send.Session', to: 'all', payload: { started: true, speed: 1, lead, stalled: [1] } },
      {
        type: 'send.PeerClock',
        to: 'allBut',
        except: 1,
        payload: { from: 1, t: 10_000, ahead: 2, safe: promise, stalled: true },
      },
    ]);
  });

  it('raises the promise while the game stands still, so the others are never held for good', () => {
    const host = stalledSetup();
    host.send({ type: 'tick', now: 20_000 }).take();
    const lead = host.context().session.lead;
    host.clockOf(0, 12_000, 30_000, { speed: 1 });
    host.take();
    host.send({ type: 'tick', now: 30_000 });
    expect(ofType(host.take(), 'send.PeerClock').map((e) => e.payload.safe)).toEqual([futureStamp(12_000, lead)]);
  });

  it('refuses the stalled game’s actions stamped below the promise, relays those at or above it', () => {
    const host = stalledSetup();
    host.send({ type: 'tick', now: 20_000 }).take();
    const promise = host.context().games[1]!.stalled!.promise;
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: promise - 200, seq: 4, body: {} }, now: 20_001 });
    host.send({ type: 'recv.Action', from: 1, payload: { stamp: promise, seq: 5, body: {} }, now: 20_002 });
    const sent = host.sent();
    expect(sent.map((e) => e.type)).toEqual(['send.BuildVeto', 'send.Action']);
    expect(sent[0]!.payload).toEqual({
      seq: 4,
      owner: 1,
      why: 'stamped below the host promise for the stalled game',
      from: 0,
      name: 'host',
      host: true,
    });
  });

  it('ends the mark when the game’s clock reaches the promise', () => {
    const host = stalledSetup();
    host.send({ type: 'tick', now: 20_000 }).take();
    const promise = host.context().games[1]!.stalled!.promise;
    host.clockOf(1, 10_200, 21_000); // moving again: the promise stays
    host.send({ type: 'tick', now: 22_000 });
    expect(ofType(host.take(), 'send.PeerClock').map((e) => e.payload)).toEqual([
      { from: 1, t: 10_200, ahead: 2, safe: promise, stalled: true },
    ]);
    host.clockOf(1, promise, 23_000, { safe: promise + 400 });
    const sent = host.sent();
    expect(sent.map((e) => e.type)).toEqual(['send.Session', 'send.PeerClock']);
    expect(sent[0]!.payload).not.toHaveProperty('stalled');
    expect(sent[1]!.payload).toEqual({ from: 1, t: promise, ahead: 2, safe: promise + 400 });
  });

  it('never marks a game while paused, and a pause does not count as standing', () => {
    const host = stalledSetup();
    host.send({ type: 'cmd.pause', now: 1_000 }).take();
    host.send({ type: 'tick', now: 100_000 });
    expect(host.take()).toEqual([]);
    host.send({ type: 'cmd.speed', speed: 1, now: 200_000 }).take();
    host.send({ type: 'tick', now: 219_999 });
    expect(host.take()).toEqual([]);
    host.send({ type: 'tick', now: 220_000 });
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload.stalled)).toEqual([[1]]);
  });

  it('lists the stalled games again when a stalled one leaves', () => {
    const host = stalledSetup();
    host.send({ type: 'tick', now: 20_000 }).take();
    host.send({ type: 'game.left', id: 1, now: 20_001 });
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload.stalled)).toEqual([undefined]);
  });
});
