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

describe('pause order around a resync round (spec "The pause after the load")', () => {
  const SAVE = 'feverlink3-resync-1';
  /** Every game says the load's Hello at `time`; the round moves pauseAt there (as actors/host/resync.ts does). */
  function load(host: ReturnType<typeof pausedHost>['host'], time: number) {
    for (const id of [0, 1, 2]) {
      const now = host.clock.now();
      host.send({ type: 'recv.Hello', from: id, payload: { time, save: SAVE }, now, loaded: true });
      host.send({ type: 'resync.pauseAt', pauseAt: time, now });
    }
  }
  /** A second of the simulated clock and the host's tick at its end. */
  function second(host: ReturnType<typeof pausedHost>['host']) {
    host.clock.increment(1000);
    host.send({ type: 'tick', now: host.clock.now() });
  }

  it('stamps nothing from Saving to the end of Loading: a held pause action waits until every game stands still in the loaded world', () => {
    const { host, pauseAt } = pausedHost();
    for (const id of [0, 1, 2]) host.clockOf(id, pauseAt, host.clock.now(), { speed: 0, stop: true });
    host.send({ type: 'resync.stamps', held: true, now: host.clock.now() }); // the round enters Saving
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(4), now: host.clock.now() });
    for (let s = 0; s < 30; s++) second(host); // every game stands still, but in the world being replaced
    expect(ofType(host.take(), 'send.Action')).toEqual([]);
    const loadedAt = pauseAt + 200;
    load(host, loadedAt);
    for (const id of [0, 1, 2]) host.clockOf(id, loadedAt, host.clock.now(), { speed: 0, stop: true });
    second(host);
    expect(ofType(host.take(), 'send.Action')).toEqual([]); // still Loading: nothing stamped
    host.send({ type: 'resync.stamps', held: false, now: host.clock.now() }); // Loading ended
    second(host);
    const [flushed] = ofType(host.take(), 'send.Action');
    expect(flushed!.payload).toMatchObject({ from: 1, seq: 4, pauseSeq: 1, stamp: loadedAt });
  });

  it('the Hellos of the load drop the old world’s floor: the next flush is stamped where the loaded games stand', () => {
    const { host, pauseAt } = pausedHost();
    // the old world: game 2 stopped two steps past the others, the flush was stamped at its stop
    for (const id of [0, 1, 2]) host.clockOf(id, pauseAt + (id === 2 ? 400 : 0), host.clock.now(), { speed: 0, stop: true });
    host.send({ type: 'recv.Action', from: 1, payload: pauseAction(1), now: host.clock.now() });
    second(host);
    expect(ofType(host.take(), 'send.Action')[0]!.payload.stamp).toBe(pauseAt + 400);
    host.send({ type: 'resync.stamps', held: true, now: host.clock.now() });
    // the host's game saved where it stood (pauseAt + 200); every game loads there
    const loadedAt = pauseAt + 200;
    load(host, loadedAt);
    expect(host.context().session.pauseAt).toBe(loadedAt);
    host.send({ type: 'resync.stamps', held: false, now: host.clock.now() });
    host.send({ type: 'recv.Action', from: 2, payload: pauseAction(7), now: host.clock.now() });
    for (const id of [0, 1, 2]) host.clockOf(id, loadedAt, host.clock.now(), { speed: 0, stop: true });
    second(host);
    const [flushed] = ofType(host.take(), 'send.Action');
    expect(flushed!.payload).toMatchObject({ from: 2, seq: 7, pauseSeq: 2, stamp: loadedAt });
  });
});
