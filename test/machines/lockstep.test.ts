// The host lockstep chart: start, Session broadcasts, pause and speed (spec/lockstep.md "The host's stamps",
// "Pause, speed and the pause order"; wire-protocol.txt Session 11, SpeedRequest 32, Permissions "speed").
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLOCK_INTERVAL_MS } from '../../machines/lockstep.ts';
import { futureStamp, leadFor, nextLead } from '../../machines/rules/lockstep.ts';

const CI = DEFAULT_CLOCK_INTERVAL_MS;
import { ofType, runningHost, startHost } from './lockstepHarness.ts';

describe('starting the session', () => {
  it('waits until every ready game has a clock since its Hello, and says why', () => {
    const host = startHost();
    host.ready(0, 1000);
    host.send({ type: 'game.joined', id: 1, now: 0 }).send({ type: 'recv.Hello', from: 1, payload: { time: 1000 }, now: 0 });
    host.take();
    host.send({ type: 'cmd.start', now: 5 });
    expect(host.value()).toBe('NotStarted');
    expect(ofType(host.take(), 'out.waiting')).toEqual([{ type: 'out.waiting', reason: 'waiting for a clock from game 1' }]);
    // A tick changes nothing and repeats nothing.
    host.send({ type: 'tick', now: 100 });
    expect(host.take()).toEqual([]);
    host.clockOf(1, 1000, 300, { speed: 0 });
    expect(host.value()).toBe('Running');
    const sessions = ofType(host.take(), 'send.Session');
    expect(sessions).toEqual([
      { type: 'send.Session', to: 'all', payload: { started: true, speed: 1, lead: leadFor(0, DEFAULT_CLOCK_INTERVAL_MS, 1) } },
    ]);
    expect(host.context().startApart).toBeUndefined();
  });

  it('waits for the host’s own game', () => {
    const host = startHost();
    host.ready(1, 0).take();
    host.send({ type: 'cmd.start', now: 0 });
    expect(ofType(host.take(), 'out.waiting').map((e) => e.reason)).toEqual(["the host's game has not said hello yet"]);
    host.ready(0, 0);
    expect(host.value()).toBe('Running');
  });

  it('does not start without cmd.start, and a second cmd.start says the reason again', () => {
    const host = startHost();
    host.ready(0, 0).send({ type: 'game.joined', id: 1 }).send({ type: 'recv.Hello', from: 1, payload: { time: 0 }, now: 0 });
    expect(host.value()).toBe('NotStarted');
    expect(ofType(host.take(), 'out.waiting')).toEqual([]);
    host.send({ type: 'cmd.start' }).send({ type: 'cmd.start' });
    expect(ofType(host.take(), 'out.waiting')).toHaveLength(2);
  });

  it('a session started paused (never ran) pauses at the step the host’s game stands at', () => {
    const host = startHost();
    host.ready(0, 4000).ready(2, 4000);
    host.send({ type: 'cmd.pause' }).send({ type: 'cmd.start', now: 10 });
    expect(host.value()).toBe('Paused');
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload)).toEqual([
      { started: true, speed: 0, pauseAt: 4000, lead: leadFor(0, DEFAULT_CLOCK_INTERVAL_MS, 1) },
    ]);
  });

  it('starts at the speed chosen before the start', () => {
    const host = startHost();
    host.ready(0, 0);
    host.send({ type: 'cmd.speed', speed: 4 }).send({ type: 'cmd.start' });
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload)).toEqual([
      { started: true, speed: 4, lead: leadFor(0, DEFAULT_CLOCK_INTERVAL_MS, 4) },
    ]);
  });

  it('ignores a start once started', () => {
    const host = runningHost([0]);
    host.send({ type: 'cmd.start' });
    expect(host.sent()).toEqual([]);
  });
});

describe('pause and speed', () => {
  it('pauses at futureStamp over the extrapolated pacing clocks', () => {
    const host = runningHost([0, 1], 10_000);
    host.clockOf(0, 10_000, 1000).clockOf(1, 10_200, 1000);
    host.take();
    host.send({ type: 'cmd.pause', now: 1500 });
    expect(host.value()).toBe('Paused');
    const lead = host.context().session.lead;
    // maxClock = 10 200 + 500 ms × speed 1 = 10 700 → rounded 10 800, plus (lead + 2) steps.
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload)).toEqual([
      { started: true, speed: 0, pauseAt: futureStamp(10_700, lead), lead },
    ]);
  });

  it('keeps a pause in force: a second pause changes nothing', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'cmd.pause', now: 10 });
    const pauseAt = host.context().session.pauseAt;
    host.take();
    host.send({ type: 'cmd.pause', now: 99_999 });
    host.send({ type: 'recv.SpeedRequest', from: 1, payload: { speed: 0 }, now: 99_999 });
    expect(host.sent()).toEqual([]);
    expect(host.context().session.pauseAt).toBe(pauseAt);
  });

  it('unpauses with the new speed and no pauseAt', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'cmd.pause', now: 10 }).take();
    host.send({ type: 'recv.SpeedRequest', from: 1, payload: { speed: 2 }, now: 20 });
    expect(host.value()).toBe('Running');
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload)).toEqual([
      // The proposal for x2 (3 steps) is within the 2-step hysteresis of the lead in force (2).
      { started: true, speed: 2, lead: nextLead(leadFor(0, CI, 1), leadFor(0, CI, 2)) },
    ]);
  });

  it('changes the running speed and follows it with the lead; an equal request changes nothing', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'cmd.speed', speed: 1 });
    host.send({ type: 'recv.SpeedRequest', from: 1, payload: { speed: 1 }, now: 5 });
    expect(host.sent()).toEqual([]);
    host.send({ type: 'cmd.speed', speed: 4 });
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload)).toEqual([
      { started: true, speed: 4, lead: leadFor(0, DEFAULT_CLOCK_INTERVAL_MS, 4) },
    ]);
  });

  it('refuses a speed that is not 0, 1, 2 or 4', () => {
    const host = runningHost([0]);
    host.send({ type: 'cmd.speed', speed: 3 });
    const out = host.take();
    expect(ofType(out, 'send.Session')).toEqual([]);
    expect(ofType(out, 'out.log').map((e) => e.msg)).toEqual(['speed refused: not 0, 1, 2 or 4']);
  });

  it('drops a SpeedRequest from a player outside the speed set: counted, logged once per player', () => {
    const host = runningHost([0, 1, 2], 0, { permissions: { speed: { only: [2] } } });
    for (let i = 0; i < 3; i++) host.send({ type: 'recv.SpeedRequest', from: 1, payload: { speed: 0 }, now: i });
    const out = host.take();
    expect(host.value()).toBe('Running');
    expect(ofType(out, 'send.Session')).toEqual([]);
    expect(ofType(out, 'out.log')).toEqual([
      { type: 'out.log', msg: 'speed request dropped: player not in the speed set', from: 1, speed: 0 },
    ]);
    expect(host.context().droppedSpeedRequests).toEqual({ 1: 3 });
    // Player 2 is in the set; the host's own game always is.
    host.send({ type: 'recv.SpeedRequest', from: 2, payload: { speed: 0 }, now: 9 });
    expect(host.value()).toBe('Paused');
    host.send({ type: 'permissions.changed', permissions: { speed: 'hostOnly' } });
    host.send({ type: 'recv.SpeedRequest', from: 0, payload: { speed: 1 }, now: 10 });
    expect(host.value()).toBe('Running');
  });
});

describe('lead', () => {
  it('follows the round trip only when it moves by 2 steps, and is broadcast', () => {
    const host = runningHost([0, 1]);
    expect(host.context().session.lead).toBe(2); // (0 + 2 × 100 + 100) / 200 → 2
    host.send({ type: 'rtt.updated', maxRtt: 300 }); // proposes 3: within the hysteresis
    expect(host.sent()).toEqual([]);
    expect(host.context().session.lead).toBe(2);
    host.send({ type: 'rtt.updated', maxRtt: 500 }); // proposes 4
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload.lead)).toEqual([4]);
  });

  it('is not broadcast before the start', () => {
    const host = startHost();
    host.send({ type: 'rtt.updated', maxRtt: 2000 });
    expect(host.sent()).toEqual([]);
    expect(host.context().session.lead).toBe(leadFor(2000, DEFAULT_CLOCK_INTERVAL_MS, 1));
  });
});

describe('time', () => {
  it('has no timers of its own: an hour of the simulated clock emits nothing', () => {
    const host = runningHost([0, 1]);
    host.clock.increment(3_600_000);
    expect(host.take()).toEqual([]);
  });
});
