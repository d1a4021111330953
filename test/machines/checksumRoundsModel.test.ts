// Model paths of the checksum-rounds chart (machines/checksumRounds.ts) from xstate/graph: every edge of the model
// (the shortest path to its source, then its event) replayed on a live actor, comparing the state the model says with
// the one the actor reaches; every transition of the chart taken, the eventless ones (a round complete) included, and
// floors on what the replays emitted (requests; rounds identical, different, time_skew and dropped, by the timeout and
// by a resync's verification round).
// A delayed transition is replayed by sending its `xstate.after.*` event: the timeouts themselves run on the
// simulated clock in checksumRounds.test.ts.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, type InspectionEvent } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { checksumRoundsMachine, type ChecksumRoundsEmitted, type ChecksumRoundsEvent } from '../../machines/checksumRounds.ts';
import type { ChecksumRoundsContext } from '../../machines/rules/checksumRoundSteps.ts';
import { everyEdge } from './graphEdges.ts';

const started = checksumRoundsMachine.root.states.Started!.states;
const afterEvent = {
  counting: started.Schedule!.states.Counting!.after[0]!.eventType,
  overdue: started.Schedule!.states.Overdue!.after[0]!.eventType,
  regularTimeout: started.Regular!.states.Open!.after[0]!.eventType,
  pausedTimeout: started.PausedRound!.states.Open!.after[0]!.eventType,
};

const games = [
  { id: 0, name: 'host' },
  { id: 1, name: 'bo' },
];
const parts = { money: 'm', edges: 'e' };
const report = (from: number, n: number, time: number, forked = false): ChecksumRoundsEvent => ({
  type: 'recv.ChecksumReport',
  now: 1,
  from,
  payload: { n, time, parts: forked ? { ...parts, edges: 'forked' } : parts },
});

const modelEvents: ChecksumRoundsEvent[] = [
  { type: 'tick', now: 1, at: 5_000, games },
  { type: 'session.running', now: 1, speed: 1 },
  { type: 'session.paused', now: 1, pauseAt: 4_000 },
  { type: 'session.paused', now: 1, pauseAt: 6_000 },
  { type: 'game.left', now: 1, id: 1 },
  { type: 'verify.requested', now: 1, pauseAt: 7_000 }, // a resync's verification round (drops an open regular one)
  ...[1, 2].flatMap((n) => [report(0, n, 5_000), report(1, n, 5_000)]),
  report(1, 2, 5_000, true),
  report(0, 1, 4_000), // a paused round 1 at 4 000, or a regular round 1 reported at another time (time_skew)
  report(1, 1, 4_000),
  ...Object.values(afterEvent).map((type) => ({ type }) as unknown as ChecksumRoundsEvent),
];

type Snap = { value: unknown; context: ChecksumRoundsContext };
/** The state and, coarsely, the rounds it holds: which n, whom it waits for; the rest is bounded. */
const keyOf = (s: Snap) => {
  const c = s.context;
  const round = (r: ChecksumRoundsContext['regular']) => (r ? [Math.min(r.n, 3), r.waiting.length] : null);
  return JSON.stringify([s.value, round(c.regular), round(c.paused), c.running, c.games.length]);
};

function transitionsOf(node: DirectedGraphNode): string[] {
  return [...node.edges.map((e) => `${e.source.id} --${e.transition.eventType}--> ${e.target.id}`), ...node.children.flatMap(transitionsOf)];
}

function start() {
  const clock = new SimulatedClock();
  const out: ChecksumRoundsEmitted[] = [];
  const passed = new Set<string>();
  const inspect = (e: InspectionEvent) => {
    if (e.type === '@xstate.microstep' || e.type === '@xstate.snapshot') passed.add(JSON.stringify((e.snapshot as unknown as { value: unknown }).value));
  };
  const actor = createActor(checksumRoundsMachine, { clock, input: {}, systemId: 'checksumRounds', inspect });
  actor.on('*', (e) => out.push(e as ChecksumRoundsEmitted));
  actor.start();
  return { actor, out, passed };
}

/** Leaf state names in a snapshot value ("Started.Regular.Open", …). */
function leaves(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix + value];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, `${prefix}${k}.`));
}

describe('checksum rounds: model paths (xstate/graph)', () => {
  const edges = everyEdge(checksumRoundsMachine, { input: {}, events: modelEvents, serializeState: keyOf as never });

  it('the chart has the transitions the spec names', () => {
    const moves = transitionsOf(toDirectedGraph(checksumRoundsMachine))
      .map((t) => t.replaceAll('checksumRounds.', ''))
      .filter((t) => !/^(\S+) --\S+--> \1$/.test(t))
      .map((t) => t.replace(/xstate\.after\.(\w+)\.\S+-->/, '$1 -->'));
    expect(moves.sort()).toEqual(
      [
        'NotStarted --session.running--> Started',
        'NotStarted --session.paused--> Started',
        'Started.Schedule.Counting --checksumInterval --> Started.Schedule.Overdue',
        'Started.Schedule.Counting --checksumInterval --> Started.Schedule.Due',
        'Started.Schedule.Overdue --checksumInterval --> Started.Schedule.Due',
        'Started.Schedule.Due --schedule.tick--> Started.Schedule.Counting',
        'Started.Regular.Idle --regular.asked--> Started.Regular.Open',
        'Started.Regular.Open --roundTimeout --> Started.Regular.Idle',
        'Started.Regular.Open --regular.dropped--> Started.Regular.Idle',
        'Started.PausedRound.Idle --paused.asked--> Started.PausedRound.Open',
        'Started.PausedRound.Open --roundTimeout --> Started.PausedRound.Idle',
      ].sort(),
    );
  });

  it('replays every edge on a live actor: the model’s state every time, every state and transition reached', () => {
    const reached = new Set<string>();
    const moves = new Set<string>();
    const counts: Record<string, number> = {};
    for (const edge of edges) {
      const p = start();
      for (const e of edge.path) p.actor.send(e);
      expect(keyOf(p.actor.getSnapshot())).toBe(edge.from);
      const before = leaves(p.actor.getSnapshot().value);
      const seen = p.out.length;
      p.passed.clear();
      p.actor.send(edge.event);
      const after = p.actor.getSnapshot();
      expect(keyOf(after)).toBe(edge.to);
      for (const v of p.passed) for (const leaf of leaves(JSON.parse(v))) reached.add(leaf);
      // A region that left its leaf: Open → Idle through `always` (complete) shows as a move on the report.
      const now = leaves(after.value);
      for (const b of before) {
        const region = b.split('.').slice(0, -1).join('.');
        const a = now.find((x) => x.split('.').slice(0, -1).join('.') === region) ?? now.find((x) => !x.startsWith('NotStarted'));
        if (a && a !== b) moves.add(`${b} --${edge.event.type.startsWith('xstate.after') ? 'after' : edge.event.type}--> ${a}`);
      }
      for (const o of p.out.slice(seen)) {
        const key =
          o.type === 'out.roundEnded'
            ? `roundEnded:${o.result}:${o.paused ? 'paused' : 'regular'}`
            : o.type === 'out.log' && o.cause !== undefined
              ? 'dropped for the verification'
              : o.type;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      p.actor.stop();
    }
    expect([...reached].sort()).toEqual(
      [
        'NotStarted',
        'Started.PausedRound.Idle',
        'Started.PausedRound.Open',
        'Started.Regular.Idle',
        'Started.Regular.Open',
        'Started.Schedule.Counting',
        'Started.Schedule.Due',
        'Started.Schedule.Overdue',
      ].sort(),
    );
    // The eventless moves: a round complete on a report (or on a game leaving) closes its region.
    for (const move of [
      'Started.Regular.Open --recv.ChecksumReport--> Started.Regular.Idle',
      'Started.Regular.Open --game.left--> Started.Regular.Idle',
      'Started.PausedRound.Open --recv.ChecksumReport--> Started.PausedRound.Idle',
      'Started.PausedRound.Open --game.left--> Started.PausedRound.Idle',
      'Started.Regular.Open --after--> Started.Regular.Idle',
      'Started.Regular.Open --verify.requested--> Started.Regular.Idle',
      'Started.PausedRound.Idle --verify.requested--> Started.PausedRound.Open',
      'Started.PausedRound.Open --after--> Started.PausedRound.Idle',
      'Started.Schedule.Counting --after--> Started.Schedule.Overdue',
      'Started.Schedule.Counting --after--> Started.Schedule.Due',
      'Started.Schedule.Overdue --after--> Started.Schedule.Due',
      'Started.Schedule.Due --tick--> Started.Schedule.Counting',
    ]) {
      expect(moves).toContain(move);
    }
    // Floors: what this model reaches.
    expect(edges.length).toBeGreaterThanOrEqual(500);
    expect(counts['send.ChecksumRequest']).toBeGreaterThanOrEqual(100);
    expect(counts['roundEnded:identical:regular']).toBeGreaterThanOrEqual(10);
    expect(counts['roundEnded:different:regular']).toBeGreaterThanOrEqual(10);
    expect(counts['roundEnded:time_skew:regular']).toBeGreaterThanOrEqual(5);
    expect(counts['roundEnded:dropped:regular']).toBeGreaterThanOrEqual(5);
    expect(counts['roundEnded:dropped:paused']).toBeGreaterThanOrEqual(5);
    expect(counts['dropped for the verification']).toBeGreaterThanOrEqual(100);
    expect(counts['roundEnded:time_skew:paused']).toBeGreaterThanOrEqual(5);
    expect(counts['roundEnded:identical:paused']).toBeGreaterThanOrEqual(5);
  });
});
