// The hot path's shortcut (machines/lockstepShortcut.ts) against the lockstep chart on random sessions: games join,
// say hello, report clocks (some refused, some behind, some silent long enough to stall), send Actions (ordinary,
// unstamped, below a promise, pause actions, held builds, from strangers) and leave, the session starts, pauses and
// resumes, ticks run the stall passes. After every event both actors must have emitted the same events in the same
// order and hold the same context and state. Coverage floors: the shortcut took ordinary Actions and Clocks, and the
// chart took the rest of both (refusals, a stalled game's clock), in running, paused and stalled sessions.
import fc from 'fast-check';
import { SimulatedClock, createActor, type AnyActorLogic, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { lockstepMachine } from '../../machines/lockstep.ts';
import type { LockstepEvent } from '../../machines/lockstep.ts';
import { lockstepLogic } from '../../machines/lockstepShortcut.ts';
import { MAX_GAME_TIME } from '../../machines/rules/screen.ts';
import type { ActionPayload } from '../../protocol/messages/index.ts';

const T = 10_000;
const IDS = [0, 1, 2, 3] as const;

function actorOf(logic: AnyActorLogic) {
  const out: unknown[] = [];
  /** Microsteps per event type: the chart's path takes at least one; the shortcut none. */
  const microsteps = new Map<string, number>();
  const inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.microstep') return;
    const type = (e.event as { type?: string }).type ?? '';
    microsteps.set(type, (microsteps.get(type) ?? 0) + 1);
  };
  const actor = createActor(logic as typeof lockstepMachine, { input: { hostGame: true }, clock: new SimulatedClock(), inspect }).start();
  actor.on('*', (event) => out.push(event));
  return {
    send(event: LockstepEvent) {
      actor.send(event);
      return out.splice(0);
    },
    snapshot: () => actor.getSnapshot(),
    microsteps: (type: string) => microsteps.get(type) ?? 0,
  };
}

/** One random step: made with the session's time and the game's next clock time. */
type Make = (now: number, clockT: (id: number) => number, seq: () => number) => LockstepEvent;

const id = fc.constantFrom(...IDS);
const joiner = fc.constantFrom(1, 2, 3);
const body = fc.constantFrom<unknown>({ op: 'build', x: 1 }, { held: true, c: 'build' }, { commit: true, c: 'build' }, [1, 2.5, 'x']);
const stampOffset = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 400, max: 900 }) }, { weight: 1, arbitrary: fc.integer({ min: -400, max: 299 }) });

const command: fc.Arbitrary<Make> = fc.oneof(
  { weight: 2, arbitrary: joiner.map((g): Make => (now) => ({ type: 'game.joined', id: g, now })) },
  { weight: 2, arbitrary: id.map((g): Make => (now, clockT) => ({ type: 'recv.Hello', from: g, payload: { time: clockT(g) }, now })) },
  {
    weight: 14,
    arbitrary: fc.record({ from: id, step: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 3_000 }) }), refused: fc.boolean(), speed: fc.constantFrom(0, 1) }).map(
      ({ from, step, refused, speed }): Make =>
        (now, clockT) => {
          const t = clockT(from) + step;
          // An odd pick refuses the clock (time out of range): the chart's path.
          const payload = refused && step % 7 === 0 ? { t: MAX_GAME_TIME + 1, speed: 1 as const, ahead: 2 } : { t, speed: speed as 0 | 1, ahead: 2, safe: t + 400 };
          return { type: 'recv.Clock', from, payload, now, wall: 1.79e12 + now };
        },
    ),
  },
  {
    weight: 14,
    arbitrary: fc.record({ from: id, offset: stampOffset, noStamp: fc.nat(19), pause: fc.nat(29), body }).map(
      ({ from, offset, noStamp, pause, body: b }): Make =>
        (now, clockT, seq) => {
          const payload: ActionPayload = { seq: seq(), body: b as ActionPayload['body'], category: 'build' };
          if (noStamp !== 0) payload.stamp = clockT(from) + offset;
          if (pause === 0) payload.pause = true;
          return { type: 'recv.Action', from, payload, now, wall: 1.79e12 + now };
        },
    ),
  },
  { weight: 6, arbitrary: fc.constant<Make>((now) => ({ type: 'tick', now })) },
  { weight: 2, arbitrary: fc.constant<Make>((now) => ({ type: 'cmd.start', now })) },
  { weight: 1, arbitrary: fc.constant<Make>((now) => ({ type: 'cmd.pause', now })) },
  { weight: 1, arbitrary: fc.constant<Make>((now) => ({ type: 'cmd.speed', speed: 1, now })) },
  { weight: 1, arbitrary: joiner.map((g): Make => (now) => ({ type: 'game.left', id: g, now })) },
);

/** Time between steps: mostly short, now and then long enough for a silent game to stall. */
const gap = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 150 }) }, { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 25_000 }) });

describe('the hot path shortcut against the chart (fast-check)', () => {
  it('emits the same events and keeps the same context and state after every event', () => {
    const stats = { fastAction: 0, chartAction: 0, fastClock: 0, chartClock: 0, stalledClock: 0, caughtUp: 0, refusedClock: 0, running: 0, paused: 0, stalled: 0 };
    fc.assert(
      fc.property(fc.boolean(), id, fc.array(fc.tuple(command, gap), { minLength: 40, maxLength: 160 }), (started, laggard, steps) => {
        const chart = actorOf(lockstepMachine);
        const fast = actorOf(lockstepLogic);
        const both = (event: LockstepEvent) => expect(fast.send(event)).toEqual(chart.send(event));
        // Most runs begin in a started session (every game ready with a clock); the rest start from nothing.
        if (started) {
          for (const g of IDS) {
            if (g !== 0) both({ type: 'game.joined', id: g, now: 0 });
            both({ type: 'recv.Hello', from: g, payload: { time: T }, now: 0 });
            both({ type: 'recv.Clock', from: g, payload: { t: T, speed: 0, ahead: 2, safe: T + 400 }, now: 0 });
          }
          both({ type: 'cmd.start', now: 0 });
        }
        // Each game's clock advances with the steps it reports; every game starts at T.
        const clocks = new Map<number, number>(IDS.map((g) => [g, T]));
        let seq = 0;
        let now = 0;
        let n = 0;
        let caught = 0;
        for (const [i, [make, dt]] of steps.entries()) {
          now += dt;
          let event = make(now, (g) => clocks.get(g)!, () => ++seq);
          // Every other clock of a stalled game reaches the host's promise for it: its mark ends.
          const mark = event.type === 'recv.Clock' ? chart.snapshot().context.games[event.from]?.stalled : undefined;
          if (event.type === 'recv.Clock' && mark !== undefined && event.payload.t <= MAX_GAME_TIME && ++caught % 2 === 0) {
            const t = mark.promise + (event.payload.t % 50);
            event = { ...event, payload: { ...event.payload, t, safe: t + 400 } };
          }
          // In the first half of the run one game reports only now and then: the others run ahead of it, and it
          // stalls. Then it reports again, and its pacing chart decides about its clocks until its mark ends.
          if (event.type === 'recv.Clock' && event.from === laggard && 2 * i < steps.length && ++n % 6 !== 0) continue;
          if (event.type === 'recv.Clock' && event.payload.t <= MAX_GAME_TIME) clocks.set(event.from, event.payload.t);
          const before = fast.microsteps(event.type);
          const stalledBefore = event.type === 'recv.Clock' && chart.snapshot().context.games[event.from]?.stalled !== undefined;
          const out = chart.send(event);
          expect(fast.send(event)).toEqual(out);
          if (event.type === 'recv.Clock' && out.some((e) => (e as { msg?: string }).msg?.startsWith('stall ended'))) stats.caughtUp++;
          const [a, b] = [fast.snapshot(), chart.snapshot()];
          expect(a.context).toEqual(b.context);
          expect(a.value).toEqual(b.value);
          const viaChart = fast.microsteps(event.type) > before;
          if (event.type === 'recv.Action') stats[viaChart ? 'chartAction' : 'fastAction']++;
          if (event.type === 'recv.Clock') stats[viaChart ? 'chartClock' : 'fastClock']++;
          if (stalledBefore && viaChart) stats.stalledClock++;
          if (event.type === 'recv.Clock' && event.payload.t > MAX_GAME_TIME && viaChart) stats.refusedClock++;
          if (b.value === 'Running') stats.running++;
          if (b.value === 'Paused') stats.paused++;
          if (Object.values(b.context.games).some((g) => g.stalled !== undefined)) stats.stalled++;
        }
      }),
      { numRuns: 120, seed: 20_261_202 },
    );
    // Floors, about half of what this seed reaches (printed by a failing run: change a floor only with the seed).
    // Floors, about half of what this seed reaches (515 and 1921 Actions, 883 and 1261 Clocks, 26 clocks of a stalled
    // game of which 11 ended its mark, 164 refused clocks, 2192 events in a running session, 1400 paused, 268 with a
    // game stalled).
    const floors = {
      fastAction: 250,
      chartAction: 900,
      fastClock: 400,
      chartClock: 600,
      stalledClock: 12,
      caughtUp: 5,
      refusedClock: 80,
      running: 1100,
      paused: 700,
      stalled: 130,
    };
    for (const [name, floor] of Object.entries(floors)) expect(stats[name as keyof typeof stats], `${name}: ${JSON.stringify(stats)}`).toBeGreaterThan(floor);
  });
});
