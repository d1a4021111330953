// The pause order in the lockstep chart (lockstep.md "Pause, speed and the pause order"; prior-projects §2.6
// P1–P4): pause actions get a pauseSeq and are held; at the first tick at which every ready pacing game reported
// stop they go to ALL games with stamp = max(furthest stop, previous flush stamp) and pauseUpto.
import { describe, expect, it } from 'vitest';
import type { ActionPayload } from '../../protocol/messages/index.ts';
import { futureStamp } from '../../machines/rules/lockstep.ts';
import { ofType, runningHost } from './lockstepHarness.ts';

const pauseAction = (seq: number): ActionPayload => ({
  seq,
  body: { op: 'rename', seq },
  category: 'other',
  pause: true,
});

function pausedHost() {
  const host = runningHost([0, 1, 2], 10_000);
  host.send({ type: 'cmd.pause', now: 0 });
  const pauseAt = host.context().session.pauseAt!;
  host.take();
  return { host, pauseAt };
}

describe('pause order', () => {
  it('holds pause actions and flushes them to all games at the first tick where every game reported stop', () => {
    const { host, pauseAt } = pausedHost();
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(5), now: 10 });
    host.send({ type: 'recv.Action', from: 0, payload: pauseAction(9), now: 11 });
    expect(host.sent()).toEqual([]);
    host.clockOf(0, pauseAt, 20, { speed: 0, stop: true }).clockOf(1, pauseAt, 20, { speed: 0, stop: true });
    host.send({ type: 'tick', now: 30 });
    expect(ofType(host.take(), 'send.Action')).toEqual([]); // game 2 has not stopped yet
    host.clockOf(2, pauseAt + 200, 40, { speed: 0, stop: true }); // it stopped a step late
    host.take();
    host.send({ type: 'tick', now: 50 });
    const flushed = ofType(host.take(), 'send.Action');
    expect(flushed.map((e) => e.to)).toEqual(['all', 'all']);
    expect(flushed.map((e) => e.payload)).toEqual([
      expect.objectContaining({ from: 1, seq: 5, pause: true, pauseSeq: 1, pauseUpto: 2, stamp: pauseAt + 200 }),
      expect.objectContaining({ from: 0, seq: 9, pause: true, pauseSeq: 2, pauseUpto: 2, stamp: pauseAt + 200 }),
    ]);
    host.send({ type: 'tick', now: 60 });
    expect(host.sent()).toEqual([]); // flushed once
  });

  it('never stamps a flush below the previous one', () => {
    const { host, pauseAt } = pausedHost();
    for (const id of [0, 1, 2]) host.clockOf(id, pauseAt + (id === 2 ? 400 : 0), 1, { speed: 0, stop: true });
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(1), now: 2 });
    host.send({ type: 'tick', now: 3 });
    const [first] = ofType(host.take(), 'send.Action');
    expect(first!.payload.stamp).toBe(pauseAt + 400);
    // Game 2 is replaced by one that stops behind (it left): the furthest stop is now pauseAt, the floor holds.
    host.send({ type: 'game.left', id: 2, now: 4 });
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(2), now: 5 });
    host.send({ type: 'tick', now: 6 });
    const [second] = ofType(host.take(), 'send.Action');
    expect(second!.payload).toMatchObject({ stamp: pauseAt + 400, pauseSeq: 2, pauseUpto: 2 });
  });

  it('an outsider holds no pause', () => {
    const { host, pauseAt } = pausedHost();
    host.send({ type: 'game.joined', id: 3, now: 0 });
    host.send({ type: 'recv.Hello', from: 3, payload: { time: 0 }, now: 0 });
    for (const id of [0, 1, 2]) host.clockOf(id, pauseAt, 1, { speed: 0, stop: true });
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(1), now: 2 });
    host.send({ type: 'tick', now: 3 });
    expect(ofType(host.take(), 'send.Action')).toHaveLength(1);
  });

  it('flushes what is held before the Session of an unpause', () => {
    const { host, pauseAt } = pausedHost();
    host.clockOf(0, pauseAt, 1, { speed: 0, stop: true }).take();
    host.send({ type: 'recv.Action', from: 0, payload: pauseAction(3), now: 2 });
    host.send({ type: 'cmd.speed', speed: 1, now: 3 });
    const sent = host.sent();
    expect(sent.map((e) => e.type)).toEqual(['send.Action', 'send.Session']);
    expect(sent[0]!.payload).toMatchObject({ stamp: pauseAt, pauseSeq: 1, pauseUpto: 1 });
    expect(sent[1]!.payload).toEqual({ started: true, speed: 1, lead: host.context().session.lead });
  });

  it('sends a pause action that arrives after the unpause at once, with a future stamp', () => {
    const host = runningHost([0, 1], 10_000);
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(8), now: 0 });
    const [sent] = ofType(host.take(), 'send.Action');
    expect(sent).toMatchObject({ to: 'all', payload: { seq: 8, pauseSeq: 1, pauseUpto: 1 } });
    expect(sent!.payload.stamp).toBe(futureStamp(10_000, host.context().session.lead));
  });

  it('numbers pause actions with one counter for the whole session', () => {
    const { host, pauseAt } = pausedHost();
    for (const id of [0, 1, 2]) host.clockOf(id, pauseAt, 1, { speed: 0, stop: true });
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(1), now: 2 }).send({ type: 'tick', now: 3 });
    host.send({ type: 'cmd.speed', speed: 1, now: 4 }).send({ type: 'cmd.pause', now: 5 });
    host.send({ type: 'recv.Action', from: 2, payload: pauseAction(1), now: 6 });
    host.send({ type: 'cmd.speed', speed: 1, now: 7 });
    expect(ofType(host.take(), 'send.Action').map((e) => e.payload.pauseSeq)).toEqual([1, 2]);
  });
});
