// The catch-up chart on its own (spec wire-protocol "Reconnect", "Catching up"; lockstep.md "Catching up"): every
// state and transition on a simulated clock, the catch-up limit driven by clock.increment (never sleeping).
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, transition } from 'xstate';
import {
  CATCH_UP_LIMIT_MS,
  catchUpId,
  catchUpMachine,
  type CatchUpEmitted,
  type CatchUpInput,
} from '../../machines/catchUp.ts';

const COVERED: CatchUpInput = { id: 3, name: 'alice', last: 41, outbox: { covers: true, count: 7 }, started: true };
const UNCOVERED: CatchUpInput = { id: 3, name: 'alice', last: 41, outbox: { covers: false, why: 'outbox trimmed past 41' }, started: true };

function start(input: CatchUpInput, machine = catchUpMachine) {
  const clock = new SimulatedClock();
  const emitted: CatchUpEmitted[] = [];
  const actor = createActor(machine, { clock, input, systemId: catchUpId(input.id) });
  actor.on('*', (e) => emitted.push(e as CatchUpEmitted));
  actor.start();
  return {
    actor,
    clock,
    emitted,
    value: () => actor.getSnapshot().value,
    status: () => actor.getSnapshot().status,
    output: () => actor.getSnapshot().output,
    logs: () => emitted.filter((e) => e.type === 'out.log').map((e) => (e as { msg: string }).msg),
    types: () => emitted.map((e) => e.type),
  };
}

describe('catch-up chart: a covered return in a started session', () => {
  it('resends the held messages after `last` at once and waits for the game to reach the promise', () => {
    const h = start(COVERED);
    expect(h.value()).toEqual({ CatchingUp: 'OnTime' });
    expect(h.emitted).toEqual([
      { type: 'out.resend', id: 3, last: 41, count: 7 },
      { type: 'out.log', level: 'info', msg: 'catch-up: alice resent 7 messages after 41', id: 3 },
    ]);
    expect(h.status()).toBe('active');
  });

  it('game.reached → CaughtUp (output caughtUp)', () => {
    const h = start(COVERED);
    h.actor.send({ type: 'game.reached' });
    expect(h.value()).toBe('CaughtUp');
    expect(h.status()).toBe('done');
    expect(h.output()).toEqual({ id: 3, result: 'caughtUp' });
    expect(h.logs().at(-1)).toBe('catch-up: alice caught up');
  });

  it('a returner that read no frame: `last` undefined, the count is every held message; one message is singular', () => {
    const h = start({ ...COVERED, last: undefined, outbox: { covers: true, count: 1 } });
    expect(h.emitted[0]).toEqual({ type: 'out.resend', id: 3, last: undefined, count: 1 });
    expect(h.logs()).toEqual(['catch-up: alice resent 1 message after none (it read no host frame)']);
  });

  it('count 0 (nothing missed) still resends (PlayerJoined, Permissions) and waits for the promise', () => {
    const h = start({ ...COVERED, outbox: { covers: true, count: 0 } });
    expect(h.emitted[0]).toEqual({ type: 'out.resend', id: 3, last: 41, count: 0 });
    expect(h.value()).toEqual({ CatchingUp: 'OnTime' });
  });

  it('the catch-up limit (300 s) warns exactly once and keeps waiting; game.reached still ends it', () => {
    const h = start(COVERED);
    h.clock.increment(CATCH_UP_LIMIT_MS - 1);
    expect(h.value()).toEqual({ CatchingUp: 'OnTime' });
    expect(h.emitted).toHaveLength(2);
    h.clock.increment(1);
    expect(h.value()).toEqual({ CatchingUp: 'Late' });
    expect(h.emitted.at(-1)).toEqual({ type: 'out.log', level: 'warn', msg: 'catch-up: alice still behind after 300 s', id: 3 });
    h.clock.increment(10 * CATCH_UP_LIMIT_MS);
    expect(h.emitted).toHaveLength(3);
    expect(h.status()).toBe('active');
    h.actor.send({ type: 'game.reached' });
    expect(h.value()).toBe('CaughtUp');
    expect(h.output()).toEqual({ id: 3, result: 'caughtUp' });
  });

  it('the limit is the named delay `catchUpLimit`: provide({delays}) moves the timer and the warning names it', () => {
    const h = start(COVERED, catchUpMachine.provide({ delays: { catchUpLimit: 5_000 } }));
    h.clock.increment(4_999);
    expect(h.value()).toEqual({ CatchingUp: 'OnTime' });
    h.clock.increment(1);
    expect(h.value()).toEqual({ CatchingUp: 'Late' });
    expect(h.logs().at(-1)).toBe('catch-up: alice still behind after 5 s');

    const f = start(COVERED, catchUpMachine.provide({ delays: { catchUpLimit: () => 1_500 } }));
    f.clock.increment(1_500);
    expect(f.logs().at(-1)).toBe('catch-up: alice still behind after 1.5 s');
  });

  it('a resync round that reloads it while catching up (game.loaded) → Reloaded, on time or late', () => {
    const a = start(COVERED);
    a.actor.send({ type: 'game.loaded' });
    expect(a.value()).toBe('Reloaded');
    expect(a.output()).toEqual({ id: 3, result: 'reloaded' });
    expect(a.logs().at(-1)).toBe('catch-up: alice reloaded by a resync round before it caught up');

    const b = start(COVERED);
    b.clock.increment(CATCH_UP_LIMIT_MS);
    b.actor.send({ type: 'game.loaded' });
    expect(b.value()).toBe('Reloaded');
  });

  it('round.failed while catching up changes nothing (no round of its own)', () => {
    const h = start(COVERED);
    h.actor.send({ type: 'round.failed' });
    expect(h.value()).toEqual({ CatchingUp: 'OnTime' });
    expect(h.emitted).toHaveLength(2);
  });

  it('a drop while catching up → Dropped; the limit timer goes with it', () => {
    const h = start(COVERED);
    h.actor.send({ type: 'conn.closed', reason: 'peer-closed' });
    expect(h.value()).toBe('Dropped');
    expect(h.output()).toEqual({ id: 3, result: 'dropped' });
    expect(h.logs().at(-1)).toBe('catch-up: alice dropped again (peer-closed) before it caught up');
    const n = h.emitted.length;
    h.clock.increment(2 * CATCH_UP_LIMIT_MS);
    expect(h.emitted).toHaveLength(n);

    const late = start(COVERED);
    late.clock.increment(CATCH_UP_LIMIT_MS);
    late.actor.send({ type: 'conn.closed', reason: 'reset' });
    expect(late.output()).toEqual({ id: 3, result: 'dropped' });
  });
});

describe('catch-up chart: covered before the start', () => {
  it('resends and is caught up at once: nothing ran, there is no promise to reach', () => {
    const h = start({ ...COVERED, started: false });
    expect(h.value()).toBe('CaughtUp');
    expect(h.output()).toEqual({ id: 3, result: 'caughtUp' });
    expect(h.types()).toEqual(['out.resend', 'out.log', 'out.log']);
    expect(h.emitted[0]).toEqual({ type: 'out.resend', id: 3, last: 41, count: 7 });
    expect(h.logs()[1]).toBe('catch-up: alice caught up: the session has not started, nothing ran');
  });
});

describe('catch-up chart: not covered', () => {
  it('started: a player returned round (out.returned round: true), logged with why', () => {
    const h = start(UNCOVERED);
    expect(h.value()).toBe('Reloading');
    expect(h.emitted).toEqual([
      { type: 'out.log', level: 'info', msg: 'catch-up: alice cannot be caught up (outbox trimmed past 41): a player returned round', id: 3 },
      { type: 'out.returned', id: 3, reason: 'player returned', round: true },
    ]);
  });

  it('Reloading: game.loaded (its Hello after the load) → Reloaded', () => {
    const h = start(UNCOVERED);
    h.actor.send({ type: 'game.loaded' });
    expect(h.value()).toBe('Reloaded');
    expect(h.output()).toEqual({ id: 3, result: 'reloaded' });
    expect(h.logs().at(-1)).toBe('catch-up: alice reloaded: its Hello after the load');
  });

  it('Reloading: a failed round is logged each time and the chart keeps waiting for the next load', () => {
    const h = start(UNCOVERED);
    h.actor.send({ type: 'round.failed' });
    h.actor.send({ type: 'round.failed' });
    expect(h.value()).toBe('Reloading');
    expect(h.emitted.filter((e) => e.type === 'out.returned')).toHaveLength(1);
    expect(h.emitted.slice(2)).toEqual([
      { type: 'out.log', level: 'warn', msg: "catch-up: alice's player returned round failed; waiting for the next load", id: 3 },
      { type: 'out.log', level: 'warn', msg: "catch-up: alice's player returned round failed; waiting for the next load", id: 3 },
    ]);
    h.actor.send({ type: 'game.loaded' });
    expect(h.value()).toBe('Reloaded');
  });

  it('Reloading: game.reached is not its business, and no timer runs (no limit while loading)', () => {
    const h = start(UNCOVERED);
    h.actor.send({ type: 'game.reached' });
    h.clock.increment(10 * CATCH_UP_LIMIT_MS);
    expect(h.value()).toBe('Reloading');
    expect(h.emitted).toHaveLength(2);
  });

  it('Reloading: a drop → Dropped', () => {
    const h = start(UNCOVERED);
    h.actor.send({ type: 'conn.closed', reason: 'write-timeout' });
    expect(h.value()).toBe('Dropped');
    expect(h.output()).toEqual({ id: 3, result: 'dropped' });
  });

  it('not started: nothing ran, no reload: out.returned round: false (PlayerJoined, Permissions), CaughtUp, logged', () => {
    const h = start({ ...UNCOVERED, started: false });
    expect(h.value()).toBe('CaughtUp');
    expect(h.output()).toEqual({ id: 3, result: 'caughtUp' });
    expect(h.emitted).toEqual([
      { type: 'out.returned', id: 3, reason: 'player returned', round: false },
      {
        type: 'out.log',
        level: 'info',
        msg: 'catch-up: alice cannot be caught up (outbox trimmed past 41), but the session has not started: no reload, it keeps its ready',
        id: 3,
      },
    ]);
  });
});

describe('catch-up chart: release, shutdown, the end', () => {
  it('slot.released ends it as released from CatchingUp (on time and late) and Reloading', () => {
    const a = start(COVERED);
    a.actor.send({ type: 'slot.released', reason: 'kicked' });
    expect(a.value()).toBe('Released');
    expect(a.output()).toEqual({ id: 3, result: 'released' });
    expect(a.logs().at(-1)).toBe('catch-up: alice released (kicked) before it caught up');

    const b = start(COVERED);
    b.clock.increment(CATCH_UP_LIMIT_MS);
    b.actor.send({ type: 'slot.released', reason: 'reconnect window ended' });
    expect(b.output()).toEqual({ id: 3, result: 'released' });

    const c = start(UNCOVERED);
    c.actor.send({ type: 'slot.released', reason: 'left' });
    expect(c.value()).toBe('Released');
    expect(c.output()).toEqual({ id: 3, result: 'released' });
  });

  it('cmd.shutdown ends it silently from every waiting state', () => {
    for (const [input, late] of [
      [COVERED, false],
      [COVERED, true],
      [UNCOVERED, false],
    ] as const) {
      const h = start(input);
      if (late) h.clock.increment(CATCH_UP_LIMIT_MS);
      const n = h.emitted.length;
      h.actor.send({ type: 'cmd.shutdown' });
      expect(h.value()).toBe('Shutdown');
      expect(h.output()).toEqual({ id: 3, result: 'shutdown' });
      expect(h.emitted).toHaveLength(n);
    }
  });

  it('a finished catch-up takes nothing more (the session sends only to running ones; the chart ignores the rest)', () => {
    const h = start(COVERED);
    h.actor.send({ type: 'game.reached' });
    const n = h.emitted.length;
    const done = h.actor.getSnapshot();
    expect(done.status).toBe('done');
    for (const e of [
      { type: 'game.loaded' },
      { type: 'conn.closed', reason: 'x' },
      { type: 'slot.released', reason: 'y' },
      { type: 'cmd.shutdown' },
    ] as const) {
      const [next, actions] = transition(catchUpMachine, done, e);
      expect(next.value).toBe('CaughtUp');
      expect(next.output).toEqual({ id: 3, result: 'caughtUp' });
      expect(actions).toEqual([]);
    }
    h.clock.increment(2 * CATCH_UP_LIMIT_MS);
    expect(h.emitted).toHaveLength(n);
  });

  it('runs as `catchUp:<id>` in the system', () => {
    expect(catchUpId(5)).toBe('catchUp:5');
    const h = start({ ...COVERED, id: 5 });
    expect(h.actor.system.get('catchUp:5')).toBe(h.actor);
  });

  it('every state says what it is for; every waiting state what it waits for and on whom; the limit is named', () => {
    const s = catchUpMachine.root.states;
    const all = ['Deciding', 'Resending', 'CatchingUp', 'Reloading', 'CaughtUp', 'Reloaded', 'Dropped', 'Released', 'Shutdown'];
    expect(Object.keys(s).sort()).toEqual([...all].sort());
    for (const name of all) expect(s[name]!.description, name).toBeTruthy();
    expect(s.CatchingUp!.description).toMatch(/context\.name.*waits for.*game\.reached.*game\.loaded.*catchUpLimit.*300 s/s);
    expect(s.Reloading!.description).toMatch(/context\.name.*waits for.*game\.loaded/s);
    const c = s.CatchingUp!.states;
    expect(c.OnTime!.description).toMatch(/catchUpLimit.*waits for the returner \(context\.name\)/s);
    expect(c.Late!.description).toMatch(/context\.name.*waits/s);
    expect(c.OnTime!.after.map((t) => t.delay)).toEqual(['catchUpLimit']);
  });
});
