// The host's shortcut for an ordinary Action and Clock (machines/lockstepShortcut.ts) against the lockstep chart itself: the
// same events into an actor of each give the same emitted events in the same order and the same context after every
// event, across ordinary relays, refusals (not ready, outsider, no stamp, below a promise, forbidden, too large, too
// many in flight), pause actions, held and parked builds, a stall, a pause and a resume. The shortcut is taken for
// the ordinary relays (no microstep in the inspection stream) and not for the rest.
import { SimulatedClock, createActor, type AnyActorLogic, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { lockstepMachine } from '../../machines/lockstep.ts';
import type { LockstepEvent, LockstepInput } from '../../machines/lockstep.ts';
import { ORDINARY_RELAY, SHAPES, lockstepLogic } from '../../machines/lockstepShortcut.ts';
import { MAX_GAME_TIME } from '../../machines/rules/screen.ts';
import type { ActionPayload } from '../../protocol/messages/index.ts';

const T = 10_000;

function actorOf(logic: AnyActorLogic, input: LockstepInput) {
  const clock = new SimulatedClock();
  const out: unknown[] = [];
  /** Microsteps taken for a recv.Action and a recv.Clock (the chart's path); the shortcut takes none. */
  let actionMicrosteps = 0;
  let clockMicrosteps = 0;
  const inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.microstep') return;
    const type = (e.event as { type?: string }).type;
    if (type === 'recv.Action') actionMicrosteps++;
    if (type === 'recv.Clock') clockMicrosteps++;
  };
  const actor = createActor(logic as typeof lockstepMachine, { input, clock, inspect }).start();
  actor.on('*', (event) => out.push(event));
  return {
    send(event: LockstepEvent) {
      actor.send(event);
      return out.splice(0);
    },
    context: () => actor.getSnapshot().context,
    value: () => actor.getSnapshot().value,
    microsteps: () => actionMicrosteps,
    clockMicrosteps: () => clockMicrosteps,
  };
}

/** The chart and the shortcut side by side, fed the same events; each event's outputs and contexts compared. */
function pair(input: LockstepInput = {}) {
  const chart = actorOf(lockstepMachine, input);
  const fast = actorOf(lockstepLogic, input);
  return {
    chart,
    fast,
    send(event: LockstepEvent) {
      const expected = chart.send(event);
      expect(fast.send(event)).toEqual(expected);
      expect(fast.context()).toEqual(chart.context());
      expect(fast.value()).toEqual(chart.value());
      return expected as { type: string }[];
    },
  };
}

const action = (seq: number, stamp: number | undefined, extra: Partial<ActionPayload> = {}): ActionPayload => ({
  ...(stamp === undefined ? {} : { stamp }),
  seq,
  body: { op: 'build', seq },
  category: 'build',
  ...extra,
});

/** Games `ids` ready at T with a clock; started (Running). */
function running(ids: number[], input: LockstepInput = {}) {
  const p = pair(input);
  for (const id of ids) {
    if (id !== 0) p.send({ type: 'game.joined', id, now: 0 });
    p.send({ type: 'recv.Hello', from: id, payload: { time: T }, now: 0 });
    p.send({ type: 'recv.Clock', from: id, payload: { t: T, speed: 0, ahead: 2, safe: T + 400 }, now: 0 });
  }
  p.send({ type: 'cmd.start', now: 0 });
  return p;
}

describe('the ordinary Action and Clock shortcut (lockstepLogic)', () => {
  it('finds the chart’s ordinary relay transitions and their guards', () => {
    // If the chart's recv.Action or recv.Clock transitions change shape, the shortcut stops (and this says so), or
    // falls back to XState's own choice of transition (candidates undefined): update it.
    expect(ORDINARY_RELAY).toBeDefined();
    for (const type of ['recv.Action', 'recv.Clock'] as const) {
      expect(SHAPES[type]?.ordinary, type).toBeDefined();
      expect(SHAPES[type]?.candidates?.length, type).toBeGreaterThan(0);
    }
  });

  it('relays ordinary Actions as the chart does, without a microstep', () => {
    const p = running([0, 1, 2]);
    for (let seq = 1; seq <= 20; seq++) {
      const out = p.send({ type: 'recv.Action', from: 1 + (seq % 2), payload: action(seq, T + 500), now: seq, wall: 1.79e12 + seq });
      expect(out.map((e) => e.type)).toEqual(['send.Action']);
    }
    expect(p.fast.microsteps()).toBe(0);
    expect(p.chart.microsteps()).toBe(20);
  });

  it('relays ordinary Clocks as the chart does, without a microstep; a refused one goes through the chart', () => {
    const p = running([0, 1, 2]);
    const [fastBefore, chartBefore] = [p.fast.clockMicrosteps(), p.chart.clockMicrosteps()];
    for (let k = 1; k <= 10; k++) {
      const t = T + 20 * k;
      const out = p.send({ type: 'recv.Clock', from: k % 3, payload: { t, speed: 1, ahead: 2, safe: t + 400 }, now: 100 * k, wall: 1.79e12 + k });
      expect(out.map((e) => e.type)).toEqual(['send.PeerClock']);
    }
    expect(p.fast.clockMicrosteps()).toBe(fastBefore);
    expect(p.chart.clockMicrosteps()).toBe(chartBefore + 10);
    p.send({ type: 'recv.Clock', from: 1, payload: { t: MAX_GAME_TIME + 1, speed: 1, ahead: 2 }, now: 2_000 }); // refused: logged once
    p.send({ type: 'recv.Clock', from: 7, payload: { t: T, speed: 1, ahead: 2 }, now: 2_001 }); // not joined
    expect(p.fast.clockMicrosteps()).toBe(fastBefore + 2);
  });

  it('leaves refusals, logs and pause actions to the chart, with the same outcome', () => {
    const p = running([0, 1, 2], { permissions: { build: { only: [2] } } });
    p.send({ type: 'game.joined', id: 3, now: 1 });
    p.send({ type: 'recv.Action', from: 3, payload: action(1, T + 500), now: 2 }); // not ready
    p.send({ type: 'recv.Action', from: 1, payload: action(2, undefined), now: 3 }); // no stamp
    p.send({ type: 'recv.Action', from: 1, payload: action(3, T + 100), now: 4 }); // below its promise
    p.send({ type: 'recv.Action', from: 1, payload: action(4, T + 500), now: 5 }); // forbidden: relayed, logged once
    p.send({ type: 'recv.Action', from: 1, payload: action(5, T + 500), now: 6 }); // forbidden again: relayed only
    p.send({ type: 'recv.Action', from: 2, payload: action(6, T + 500, { pause: true }), now: 7 }); // pause action
    const big = { op: 'build', blob: 'x'.repeat(1024 * 1024) };
    p.send({ type: 'recv.Action', from: 2, payload: action(7, T + 500, { body: big }), now: 8 }); // too large as relayed
    p.send({ type: 'recv.Action', from: 2, payload: action(8, T + 500, { body: { held: true, c: 'build' } }), now: 9 });
    p.send({ type: 'recv.Action', from: 2, payload: action(9, T + 500, { body: { commit: true, c: 'build' } }), now: 10 });
    p.send({ type: 'recv.BuildCommit', from: 2, payload: { seq: 9, owner: 2, stamp: T + 500 }, now: 11 });
    expect(p.fast.microsteps()).toBeLessThan(p.chart.microsteps());
  });

  it('refuses the same Actions once too many are in flight', () => {
    const p = running([0, 1]);
    let vetoes = 0;
    for (let seq = 1; seq <= 600; seq++) {
      const out = p.send({ type: 'recv.Action', from: 1, payload: action(seq, T + 500 + seq), now: seq });
      vetoes += out.filter((e) => e.type === 'send.BuildVeto').length;
    }
    expect(vetoes).toBeGreaterThan(0);
  });

  it('keeps to the chart before the start, in a pause, through a stall and after the resume', () => {
    const p = pair({ hostGame: false });
    for (const id of [1, 2]) {
      p.send({ type: 'game.joined', id, now: 0 });
      p.send({ type: 'recv.Hello', from: id, payload: { time: T }, now: 0 });
    }
    p.send({ type: 'recv.Action', from: 1, payload: action(1, T + 500), now: 1 }); // not started
    for (const id of [1, 2]) p.send({ type: 'recv.Clock', from: id, payload: { t: T, speed: 0, ahead: 2, safe: T + 400 }, now: 1 });
    p.send({ type: 'cmd.start', now: 2 });
    let now = 2;
    let seq = 2;
    for (let round = 0; round < 40; round++) {
      now += 100;
      // Game 2 stops reporting for a while: it stalls, then catches up.
      for (const id of round > 10 && round < 25 ? [1] : [1, 2]) {
        const t = T + round * 20;
        p.send({ type: 'recv.Clock', from: id, payload: { t, speed: 1, ahead: 2, safe: t + 400 }, now });
      }
      p.send({ type: 'recv.Action', from: 1 + (round % 2), payload: action(seq++, T + round * 20 + 450), now: now + 1, wall: 1.79e12 + now });
      p.send({ type: 'tick', now: now + 2 });
      if (round === 30) p.send({ type: 'cmd.pause', now: now + 3 });
      if (round === 33) p.send({ type: 'cmd.speed', speed: 2, now: now + 3 });
    }
    p.send({ type: 'game.left', id: 2, now: now + 10 });
    p.send({ type: 'recv.Action', from: 2, payload: action(seq++, T + 2000), now: now + 11 });
    p.send({ type: 'recv.Action', from: 1, payload: action(seq++, T + 2000), now: now + 12 });
    expect(p.fast.microsteps()).toBeLessThan(p.chart.microsteps());
  });
});
