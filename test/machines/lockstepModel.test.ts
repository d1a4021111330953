// Model-based paths over the host lockstep chart (xstate/graph getShortestPaths) and fast-check command sequences
// with invariants: the session starts only when the games agree; Running/Paused agree with the Session fields;
// flush stamps never decrease and pauseSeq counts up; every relay skips its origin; outputs follow their event (the
// start's replay of every clock before its Session excepted). The sequences are plausible sessions with noise mixed
// in, and their coverage is asserted: most runs start, run, pause, resume and stall the session.
import fc from 'fast-check';
import { createActor } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { describe, expect, it } from 'vitest';
import { lockstepMachine } from '../../machines/lockstep.ts';
import type { LockstepContext, LockstepEvent } from '../../machines/lockstep.ts';
import type { ActionPayload, ClockPayload } from '../../protocol/messages/index.ts';
import { startHost } from './lockstepHarness.ts';
import { ofType } from './lockstepHarness.ts';
import type { Emitted } from './lockstepHarness.ts';

const clock = (from: number, t: number): LockstepEvent => ({
  type: 'recv.Clock',
  from,
  payload: { t, speed: 0, ahead: 2, safe: t + 400, stop: true },
  now: 0,
});
const pauseAction: ActionPayload = { seq: 1, body: { op: 'rename' }, pause: true };

const modelEvents: LockstepEvent[] = [
  { type: 'game.joined', id: 1, now: 0 },
  { type: 'recv.Hello', from: 0, payload: { time: 1000 }, now: 0 },
  { type: 'recv.Hello', from: 1, payload: { time: 1000 }, now: 0 },
  clock(0, 1000),
  clock(1, 1000),
  clock(1, 1200),
  { type: 'cmd.start', now: 0 },
  { type: 'cmd.pause', now: 0 },
  { type: 'cmd.speed', speed: 2, now: 0 },
  { type: 'recv.Action', from: 1, payload: pauseAction, now: 0 },
  { type: 'tick', now: 0 },
];

function modelKey(context: LockstepContext): string {
  const games = Object.values(context.games).map((g) => [g.id, g.ready, g.hasWorld, g.clock?.t ?? null, g.helloTime ?? null]);
  const { started, speed, pauseAt, startSpeed } = context.session;
  // What the pause order holds is its own chart's context now (machines/pauseOrder.ts): a graph traversal of this
  // chart does not run its children, so the key leaves it out (test/machines/pauseOrderChart.test.ts walks it).
  return JSON.stringify([games, context.startRequested, started, speed, startSpeed, pauseAt ?? null, context.startApart ?? null]);
}

describe('model paths (xstate/graph)', () => {
  const paths = getShortestPaths(lockstepMachine, {
    input: {},
    events: modelEvents,
    serializeState: (s) => `${JSON.stringify(s.value)} ${modelKey(s.context as LockstepContext)}`,
    limit: 100_000,
  });

  it('reaches every state of the chart', () => {
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(['NotStarted', 'Running', 'Paused']));
  });

  it('starts only once the host game and every ready game have a clock; a game at another time is an outsider', () => {
    let starts = 0;
    let apart = 0;
    for (const path of paths) {
      path.steps.forEach((step, i) => {
        const before = i === 0 ? 'NotStarted' : path.steps[i - 1]!.state.value;
        if (before !== 'NotStarted' || step.state.value === 'NotStarted') return;
        starts++;
        const context = step.state.context;
        const ready = Object.values(context.games).filter((g) => g.ready);
        const host = context.games[0]!;
        const hostT = host.clock?.t;
        expect(ready.some((g) => g.id === 0)).toBe(true);
        expect(ready.every((g) => g.clock !== undefined)).toBe(true);
        // The session's world: the games whose clock and Hello stand at the host game's; every other ready game is
        // an outsider (with the time its Hello named when that differs from where its clock stands).
        for (const g of ready) expect(g.hasWorld).toBe(g.clock!.t === hostT && g.helloTime === host.helloTime);
        const outsiders = ready
          .filter((g) => !g.hasWorld)
          .map((g) => ({ id: g.id, t: g.clock!.t, ...(g.helloTime === g.clock!.t ? {} : { helloTime: g.helloTime }) }));
        expect(context.startApart).toEqual(outsiders.length === 0 ? undefined : { t: hostT, outsiders });
        if (outsiders.length > 0) apart++;
      });
    }
    expect(starts).toBeGreaterThan(0);
    expect(apart).toBeGreaterThan(0);
  });

  it('replays every path on a live actor to the same state', () => {
    for (const path of paths) {
      const actor = createActor(lockstepMachine, { input: {} }).start();
      for (const step of path.steps) if ((step.event.type as string) !== 'xstate.init') actor.send(step.event);
      expect(actor.getSnapshot().value).toEqual(path.state.value);
      expect(modelKey(actor.getSnapshot().context)).toBe(modelKey(path.state.context as LockstepContext));
      actor.stop();
    }
  });
});

// ---- command sequences ----
//
// A run is a plausible session with hostile noise mixed in: the games of the run join, say Hello and report a
// standing clock at one common time (so the start check can pass), the host asks for the start somewhere in that
// setup, and then the games advance their clocks step by step from where each one stands, the host ticks (seconds
// at a time, so 20 s of silence can pass), pauses, changes speed, and games act. One game of the run may be frozen
// (it never advances: the stall rule must mark it while the others run to its promise). Every command of the old
// fully random mix (any id, any time, any stamp) stays in the mix as noise. The coverage (started, ran, paused,
// stalled, resumed, flushed) is counted per run and checked against floors below.

const STEP = 200;
const ids = [0, 1, 2, 3] as const;
const arbId = fc.constantFrom(...ids);
const arbT = fc.integer({ min: 0, max: 60 }).map((k) => 10_000 + k * STEP);

/** What the generator knows of the run it drives: the host's clock and each game's last reported time. */
interface Drive {
  now: number;
  /** The t each game last reported (Hello or Clock), by id. */
  t: Map<number, number>;
  /** The game that never advances, if any. */
  frozen: number | undefined;
  /** The ids of the run's games (0 always). */
  games: readonly number[];
}

type Command = (d: Drive) => LockstepEvent | undefined;

// The old fully random mix: any id, any time, any stamp, any order.
const noiseCommand: fc.Arbitrary<Command> = fc.oneof(
  arbId.map((id): Command => (d) => ({ type: 'game.joined', id, now: d.now })),
  arbId.map((id): Command => (d) => ({ type: 'game.left', id, now: d.now })),
  fc.tuple(arbId, arbT).map(([from, time]): Command => (d) => {
    d.t.set(from, time);
    return { type: 'recv.Hello', from, payload: { time }, now: d.now };
  }),
  fc
    .record({
      from: arbId,
      t: arbT,
      speed: fc.constantFrom(0, 1, 2, 4),
      stop: fc.boolean(),
      ahead: fc.integer({ min: 2, max: 8 }),
    })
    .map(({ from, t, speed, stop, ahead }): Command => (d) => {
      const payload: ClockPayload = { t, speed: speed as ClockPayload['speed'], ahead, safe: t + ahead * STEP, stop };
      return { type: 'recv.Clock', from, payload, now: d.now };
    }),
  fc
    .record({ from: arbId, seq: fc.nat(50), stamp: fc.option(arbT, { nil: undefined }), pause: fc.boolean() })
    .map(({ from, seq, stamp, pause }): Command => (d) => {
      const payload: ActionPayload = { seq, body: { seq }, category: 'build', ...(pause ? { pause } : { stamp }) };
      return { type: 'recv.Action', from, payload, now: d.now };
    }),
  fc.nat(1000).map((maxRtt): Command => (d) => ({ type: 'rtt.updated', maxRtt, now: d.now })),
  fc
    .constantFrom<'everyone' | 'hostOnly'>('everyone', 'hostOnly')
    .map((speed): Command => (d) => ({ type: 'permissions.changed', permissions: { speed, build: speed }, now: d.now })),
);

/** A game of the run reports a clock `k` steps past where it stands (0: it stands still); a frozen game does not. */
const advance = fc
  .record({ pick: fc.nat(), k: fc.integer({ min: 0, max: 4 }), ahead: fc.integer({ min: 2, max: 6 }), stop: fc.nat(3).map((x) => x === 0) })
  .map(({ pick, k, ahead, stop }): Command => (d) => {
    const from = d.games[pick % d.games.length]!;
    if (from === d.frozen || !d.t.has(from)) return undefined;
    const t = d.t.get(from)! + k * STEP;
    d.t.set(from, t);
    const payload: ClockPayload = { t, speed: k === 0 ? 0 : 1, ahead, safe: t + ahead * STEP, ...(stop ? { stop } : {}) };
    return { type: 'recv.Clock', from, payload, now: d.now };
  });

/** An action of a game of the run, stamped a little past where it stands (or a pause action). */
const act = fc
  .record({ pick: fc.nat(), seq: fc.nat(50), k: fc.integer({ min: 2, max: 12 }), pause: fc.nat(2).map((x) => x === 0) })
  .map(({ pick, seq, k, pause }): Command => (d) => {
    const from = d.games[pick % d.games.length]!;
    const at = d.t.get(from);
    if (at === undefined) return undefined;
    const payload: ActionPayload = { seq, body: { seq }, category: 'build', ...(pause ? { pause } : { stamp: at + k * STEP }) };
    return { type: 'recv.Action', from, payload, now: d.now };
  });

/** The host's clock runs on (a moment, or seconds at a time: 20 s of a frozen game's silence must pass) and it ticks. */
const tick = fc.oneof(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 4000, max: 12_000 })).map((dt): Command => (d) => {
  d.now += dt;
  return { type: 'tick', now: d.now };
});

/** What runs between pauses: the games advance, the host ticks, games act. */
const runningCommand: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: advance, weight: 6 },
  { arbitrary: tick, weight: 5 },
  { arbitrary: act, weight: 2 },
);

const bodyCommand: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: advance, weight: 6 },
  { arbitrary: tick, weight: 5 },
  { arbitrary: act, weight: 2 },
  { arbitrary: fc.constant<Command>((d) => ({ type: 'cmd.pause', now: d.now })), weight: 1 },
  {
    arbitrary: fc.constantFrom(0, 1, 2, 3, 4).map((speed): Command => (d) => ({ type: 'cmd.speed', speed, now: d.now })),
    weight: 1,
  },
  {
    arbitrary: fc.tuple(arbId, fc.constantFrom(0, 1, 2, 4)).map(([from, speed]): Command => (d) => {
      const payload = { speed: speed as 0 | 1 | 2 | 4 };
      return { type: 'recv.SpeedRequest', from, payload, now: d.now };
    }),
    weight: 1,
  },
  { arbitrary: fc.constant<Command>((d) => ({ type: 'cmd.start', now: d.now })), weight: 1 },
  { arbitrary: noiseCommand, weight: 2 },
);

/** The setup of a run: every game of it joins, says Hello at t0 and reports a standing clock there. */
function setupOf(games: readonly number[], t0: number): Command[] {
  return games.flatMap((id): Command[] => [
    ...(id === 0 ? [] : [(d: Drive) => ({ type: 'game.joined' as const, id, now: d.now })]),
    (d) => {
      d.t.set(id, t0);
      return { type: 'recv.Hello', from: id, payload: { time: t0 }, now: d.now };
    },
    (d) => ({ type: 'recv.Clock', from: id, payload: { t: t0, speed: 0, ahead: 2, safe: t0 + 2 * STEP }, now: d.now }),
  ]);
}

interface Run {
  games: number[];
  frozen: number | undefined;
  commands: Command[];
}

const arbRun: fc.Arbitrary<Run> = fc
  .record({
    players: fc.subarray([1, 2, 3], { minLength: 1 }),
    t0: arbT,
    frozen: fc.option(fc.nat(3), { nil: undefined, freq: 8 }),
    // where cmd.start goes in the setup (past its end: the host asks once the setup is done)
    startAt: fc.nat(12),
    // a speed asked before the start (0: the session starts paused)
    startSpeed: fc.option(fc.constantFrom(0, 2, 4), { nil: undefined, freq: 4 }),
    noise: fc.array(noiseCommand, { maxLength: 2 }),
    // a stretch without pause or speed commands first (long enough, often, for a frozen game to stall), then any mix
    running: fc.array(runningCommand, { minLength: 12, maxLength: 40, size: 'max' }),
    body: fc.array(bodyCommand, { minLength: 10, maxLength: 60, size: 'max' }),
  })
  .map(({ players, t0, frozen, startAt, startSpeed, noise, running, body }) => {
    const games = [0, ...players];
    const setup = setupOf(games, t0);
    const start: Command = (d) => ({ type: 'cmd.start', now: d.now });
    setup.splice(Math.min(startAt, setup.length), 0, start);
    if (startSpeed !== undefined) setup.unshift((d) => ({ type: 'cmd.speed', speed: startSpeed, now: d.now }));
    // noise before the start may spoil it (a game at another time): the body's clocks may bring it back
    return { games, frozen: frozen === undefined ? undefined : games[frozen % games.length], commands: [...setup, ...noise, ...running, ...body] };
  });

type Host = ReturnType<typeof startHost>;

function checkInvariants(
  host: Host,
  event: LockstepEvent,
  out: Emitted[],
  state: { stamp: number; seq: number },
  before: string,
) {
  const { session, games } = host.context();
  const value = host.value();
  // The event that starts the session running replays every game's latest clock before the Session that starts
  // them (each game must pace to every other from its first step): one PeerClock per ready game with a clock.
  const startsRunning = before === 'NotStarted' && value !== 'NotStarted';
  if (startsRunning) {
    const replayed = ofType(out, 'send.PeerClock').map((e) => e.payload.from);
    const clocked = Object.values(games).filter((g) => g.ready && g.clock !== undefined).map((g) => g.id);
    expect(new Set(replayed)).toEqual(new Set(clocked));
    const lastSession = out.findLastIndex((e) => e.type === 'send.Session');
    expect(lastSession).toBeGreaterThan(out.findLastIndex((e) => e.type === 'send.PeerClock'));
  }
  if (value === 'Running') expect(session.speed > 0 && session.pauseAt === undefined && session.started).toBe(true);
  if (value === 'Paused') expect(session.speed === 0 && session.pauseAt !== undefined && session.started).toBe(true);
  if (value === 'NotStarted') expect(session.started).toBe(false);
  for (const e of out) {
    if (e.type === 'send.Session') {
      expect(e.payload.lead).toBeGreaterThanOrEqual(2);
      expect(e.payload.lead).toBeLessThanOrEqual(32);
    }
    if (e.type === 'send.PeerClock') {
      expect(e.except).toBe(e.payload.from);
      const game = games[e.payload.from];
      if (game && !game.hasWorld) expect(e.payload.safe === undefined && e.payload.need === undefined).toBe(true);
    }
    // every Action goes to every game, its origin included (an ordinary one too: the origin applies its own action
    // only with the host's copy); the flushes of the pause order are the ones with a pauseSeq
    if (e.type === 'send.Action') expect(e.to).toBe('all');
    if (e.type === 'send.Action' && e.payload.pauseSeq !== undefined) {
      expect(e.payload.stamp).toBeGreaterThanOrEqual(state.stamp);
      expect(e.payload.pauseSeq).toBe(state.seq + 1);
      state.stamp = e.payload.stamp;
      state.seq = e.payload.pauseSeq;
    }
    // Every relay answers the event just handled: a message from game X only ever produces X's relays.
    // (Except the replay of the start, checked above.)
    if (startsRunning) continue;
    if ((e.type === 'send.PeerClock' || e.type === 'send.Action') && 'from' in event && event.type === 'recv.Clock') {
      expect(e.payload.from).toBe(event.from);
    }
  }
}

/** What one run reached. */
interface Reached {
  started: boolean;
  ran: boolean;
  paused: boolean;
  resumed: boolean;
  stalled: boolean;
  flushed: boolean;
}

describe('command sequences (fast-check)', () => {
  it('keeps the invariants for any interleaving, and most runs start, run, pause and stall the session', () => {
    const counts = { runs: 0, started: 0, ran: 0, paused: 0, resumed: 0, stalled: 0, flushed: 0 };
    fc.assert(
      fc.property(arbRun, ({ games, frozen, commands }) => {
        const host = startHost({ hostName: 'host' });
        const state = { stamp: Number.NEGATIVE_INFINITY, seq: 0 };
        const drive: Drive = { now: 0, t: new Map(), frozen, games };
        const reached: Reached = { started: false, ran: false, paused: false, resumed: false, stalled: false, flushed: false };
        let before = host.value();
        for (const command of commands) {
          const event = command(drive);
          if (event === undefined) continue;
          host.send(event);
          const out = host.take();
          checkInvariants(host, event, out, state, before);
          expect(host.actor.getSnapshot().status).toBe('active');
          const value = host.value();
          if (value !== 'NotStarted') reached.started = true;
          if (value === 'Running') reached.ran = true;
          if (value === 'Paused') reached.paused = true;
          if (before === 'Paused' && value === 'Running') reached.resumed = true;
          if (Object.values(host.context().games).some((g) => g.stalled !== undefined)) reached.stalled = true;
          if (out.some((e) => e.type === 'send.Session' && (e.payload.stalled?.length ?? 0) > 0)) reached.stalled = true;
          if (out.some((e) => e.type === 'send.Action' && e.payload.pauseSeq !== undefined)) reached.flushed = true;
          before = value;
        }
        host.actor.stop();
        counts.runs++;
        for (const key of Object.keys(reached) as (keyof Reached)[]) if (reached[key]) counts[key]++;
      }),
      { numRuns: 150 },
    );
    // Coverage floors, as shares of the runs. Measured over 6 runs of 150 (random seeds): started 1.00, ran
    // 0.94–0.98, paused 0.86–0.91, resumed 0.59–0.70, stalled 0.35–0.44, flushed 0.63–0.77. The floors sit about
    // 4–5 standard deviations of a 150-run share below the lowest.
    const share = (n: number) => n / counts.runs;
    expect(counts.runs).toBe(150);
    expect(share(counts.started), 'runs that started the session').toBeGreaterThanOrEqual(0.8);
    expect(share(counts.ran), 'runs that ran').toBeGreaterThanOrEqual(0.75);
    expect(share(counts.paused), 'runs that paused').toBeGreaterThanOrEqual(0.6);
    expect(share(counts.resumed), 'runs that resumed after a pause').toBeGreaterThanOrEqual(0.4);
    expect(share(counts.stalled), 'runs in which a game was marked stalled').toBeGreaterThanOrEqual(0.2);
    expect(share(counts.flushed), 'runs in which the pause order flushed').toBeGreaterThanOrEqual(0.4);
  });
});
