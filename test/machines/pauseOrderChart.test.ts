// The pause order chart on its own (machines/pauseOrder.ts; lockstep.md "Pause, speed and the pause order";
// prior-projects §2.6 P1–P4): every state on a simulated clock (a tick is an event; the clock alone moves nothing),
// whom a pause waits for, the bounds, what it reports to its parent and in which order, and model paths from
// xstate/graph replayed edge by edge on a live actor with every state (the transient Flushing too) covered.
import { describe, expect, it } from 'vitest';
import { createActor, fromTransition, SimulatedClock, type InspectionEvent } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import {
  pauseOrderMachine,
  type PauseActionToHold,
  type PauseOrderEvent,
  type PauseOrderReport,
} from '../../machines/pauseOrder.ts';
import { MAX_HELD, MAX_HELD_BYTES, MAX_HELD_PER_PLAYER } from '../../machines/rules/pauseOrder.ts';
import { everyEdge } from './graphEdges.ts';

const action = (from: number, seq: number): PauseActionToHold => ({
  seq,
  body: { op: 'rename', seq },
  category: 'other',
  from,
  allowed: true,
});
const hold = (from: number, seq: number, bytes = 100, stamp = 5_000): PauseOrderEvent => ({ type: 'hold', action: action(from, seq), bytes, stamp });
const tick = (stops: [number, number][], pacing = [0, 1, 2]): PauseOrderEvent => ({ type: 'tick', stops, pacing });

function start() {
  const clock = new SimulatedClock();
  const parent = createActor(fromTransition((seen: PauseOrderReport[], e: PauseOrderReport) => [...seen, e], [] as PauseOrderReport[])).start();
  /** Every state the chart passed through, microsteps included (Flushing is left in the step that enters it). */
  const passed: string[] = [];
  const inspect = (e: InspectionEvent) => {
    if ((e.type === '@xstate.microstep' || e.type === '@xstate.snapshot') && (e.actorRef as { systemId?: string }).systemId === 'pauseOrder') {
      passed.push(JSON.stringify((e.snapshot as unknown as { value: unknown }).value));
    }
  };
  const actor = createActor(pauseOrderMachine, { clock, input: { parent }, systemId: 'pauseOrder', inspect }).start();
  return {
    actor,
    clock,
    passed,
    reports: () => parent.getSnapshot().context,
    value: () => actor.getSnapshot().value,
    context: () => actor.getSnapshot().context,
    send(...events: PauseOrderEvent[]) {
      for (const e of events) actor.send(e);
      return this;
    },
  };
}

const types = (reports: PauseOrderReport[]) => reports.map((r) => r.type);
const flushes = (reports: PauseOrderReport[]) =>
  reports.filter((r): r is Extract<PauseOrderReport, { type: 'pauseOrder.flushed' }> => r.type === 'pauseOrder.flushed');

describe('pause order chart', () => {
  it('holds every pause action until the start; a running start flushes them at the running stamp', () => {
    const p = start().send(hold(1, 5), hold(0, 9));
    expect(p.value()).toBe('NotStarted');
    expect(p.reports()).toEqual([
      { type: 'pauseOrder.held', from: 1, seq: 5, pauseSeq: 1 },
      { type: 'pauseOrder.held', from: 0, seq: 9, pauseSeq: 2 },
    ]);
    p.send({ type: 'session.running', furthest: 12_000 });
    expect(p.value()).toBe('Running');
    const [flush] = flushes(p.reports());
    expect(flush!.stamp).toBe(12_000);
    expect(flush!.items).toEqual([
      { ...action(1, 5), pause: true, pauseSeq: 1, stamp: 12_000, pauseUpto: 2 },
      { ...action(0, 9), pause: true, pauseSeq: 2, stamp: 12_000, pauseUpto: 2 },
    ]);
    expect(p.context()).toMatchObject({ held: [], heldBytes: 0, floor: 12_000 });
  });

  it('while running, a pause action goes out at once at the stamp sent with it, never below the last flush', () => {
    const p = start().send({ type: 'session.running', furthest: 0 }, hold(2, 1, 100, 14_000));
    expect(types(p.reports())).toEqual(['pauseOrder.held', 'pauseOrder.flushed']);
    expect(flushes(p.reports())[0]).toMatchObject({ stamp: 14_000, items: [{ pauseSeq: 1, pauseUpto: 1, stamp: 14_000 }] });
    p.send(hold(2, 2, 100, 13_800)); // the running stamp went back (a game left): the floor holds
    expect(flushes(p.reports())[1]).toMatchObject({ stamp: 14_000, items: [{ pauseSeq: 2, pauseUpto: 2 }] });
  });

  it('paused: names the games whose stop it waits for, and flushes at the first tick at which none is missing', () => {
    const p = start().send({ type: 'session.running', furthest: 0 }, { type: 'session.paused' });
    expect(p.value()).toEqual({ Paused: 'Idle' });
    p.send(tick([]));
    expect(p.context().waitingFor).toEqual([0, 1, 2]); // nothing held: noted all the same, for the inspector
    p.send(hold(1, 3));
    expect(p.value()).toEqual({ Paused: 'WaitingForStops' });
    p.send(tick([[0, 10_000], [2, 10_200]]));
    expect(p.context().waitingFor).toEqual([1]);
    expect(p.value()).toEqual({ Paused: 'WaitingForStops' });
    p.send(tick([[0, 10_000], [1, 10_400], [2, 10_200]]));
    expect(p.value()).toEqual({ Paused: 'Idle' });
    expect(p.passed).toContain('{"Paused":"Flushing"}');
    expect(p.context()).toMatchObject({ waitingFor: [], furthestStop: 10_400, held: [] });
    expect(flushes(p.reports())[0]).toMatchObject({ stamp: 10_400, items: [{ pauseSeq: 1, pauseUpto: 1 }] });
    p.send(tick([[0, 10_000], [1, 10_400], [2, 10_200]]));
    expect(flushes(p.reports())).toHaveLength(1); // flushed once
  });

  it('a start paused keeps what it held for the first flush; a stop of a game that does not pace is not waited for', () => {
    const p = start().send(hold(1, 1), { type: 'session.paused' });
    expect(p.value()).toEqual({ Paused: 'WaitingForStops' });
    // game 3 is marked (a returner): not pacing, so not waited for; but it applies the flush too, and stands past the
    // pacing game: the flush lies at its stop (the simulator, seed 7070). An outsider's stop never comes here
    // (lockstepSteps/pause.ts pauseViewOf).
    p.send(tick([[0, 4_000]], [0, 1]));
    expect(flushes(p.reports())).toEqual([]);
    p.send(tick([[0, 4_000], [1, 4_000], [3, 4_400]], [0, 1]));
    expect(flushes(p.reports())[0]!.stamp).toBe(4_400);
  });

  it('with no pacing game nothing is known to stand still: it keeps waiting', () => {
    const p = start().send({ type: 'session.paused' }, hold(1, 1), tick([], []));
    expect(p.value()).toEqual({ Paused: 'WaitingForStops' });
    expect(p.context().waitingFor).toEqual([]);
    expect(flushes(p.reports())).toEqual([]);
  });

  it('an unpause flushes what is held at once, at max(furthest, previous flush stamp), and forgets the stops', () => {
    const p = start().send({ type: 'session.paused' }, hold(1, 1), tick([[0, 9_000]]));
    p.send({ type: 'session.running', furthest: 9_600 });
    expect(p.value()).toBe('Running');
    expect(flushes(p.reports())[0]!.stamp).toBe(9_600);
    expect(p.context()).toMatchObject({ waitingFor: [], furthestStop: undefined });
    p.send({ type: 'session.paused' }, hold(2, 2), { type: 'session.running', furthest: 9_000 });
    expect(flushes(p.reports())[1]!.stamp).toBe(9_600);
  });

  it('a resync load drops the old world’s floor and stops: the next flush is stamped where the loaded games stand', () => {
    // the old world: a guest stopped two steps past the others; the flush was stamped at its stop (the floor)
    const p = start().send({ type: 'session.paused' }, hold(1, 1), tick([[0, 9_000], [1, 9_000], [2, 9_400]]));
    expect(p.context().floor).toBe(9_400);
    p.send(hold(2, 2), tick([[0, 9_000], [1, 9_000]])); // game 2 not stopped yet: held
    p.send({ type: 'world.loaded' });
    expect(p.context()).toMatchObject({ floor: undefined, furthestStop: undefined, waitingFor: [] });
    expect(p.context().held).toHaveLength(1); // what is held stays held
    p.send(tick([[0, 9_200], [1, 9_200], [2, 9_200]])); // every game stands still in the loaded world at 9 200
    expect(flushes(p.reports()).map((f) => f.stamp)).toEqual([9_400, 9_200]);
  });

  it('refuses past its bounds (64 of one game, 512 in all, 4 MiB) without using a pauseSeq', () => {
    const p = start().send({ type: 'session.paused' });
    for (let seq = 1; seq <= MAX_HELD_PER_PLAYER + 1; seq++) p.send(hold(1, seq));
    expect(p.reports().at(-1)).toEqual({
      type: 'pauseOrder.refused',
      from: 1,
      seq: MAX_HELD_PER_PLAYER + 1,
      why: `the pause order already holds ${MAX_HELD_PER_PLAYER} actions of this game`,
    });
    for (let from = 2; from <= 9; from++) for (let seq = 1; seq <= MAX_HELD_PER_PLAYER; seq++) p.send(hold(from, seq));
    expect(p.context().held).toHaveLength(MAX_HELD);
    expect(p.context().nextSeq).toBe(MAX_HELD + 1);
    expect(p.reports().at(-1)).toMatchObject({ type: 'pauseOrder.refused', why: `the pause order already holds ${MAX_HELD} actions` });

    const q = start().send({ type: 'session.paused' }, hold(1, 1, MAX_HELD_BYTES - 10), hold(2, 2, 11), hold(2, 3, 10));
    expect(types(q.reports())).toEqual(['pauseOrder.held', 'pauseOrder.refused', 'pauseOrder.held']);
    expect(q.reports()[1]).toMatchObject({ why: `the pause order already holds ${MAX_HELD_BYTES} bytes` });
    expect(q.context()).toMatchObject({ heldBytes: MAX_HELD_BYTES, nextSeq: 3 });
  });

  it('has no timer: an hour of the simulated clock changes nothing in any state', () => {
    const setups: PauseOrderEvent[][] = [[], [{ type: 'session.running', furthest: 0 }], [{ type: 'session.paused' }], [{ type: 'session.paused' }, hold(1, 1)]];
    for (const events of setups) {
      const p = start().send(...events);
      const before = p.actor.getSnapshot();
      p.clock.increment(3_600_000);
      expect(p.actor.getSnapshot()).toBe(before);
    }
  });

  it('every waiting state says what it waits for and on whom', () => {
    const { states } = pauseOrderMachine.root;
    const paused = states.Paused!.states;
    expect(states.NotStarted!.description).toMatch(/Waits for the lockstep to start the session.*holds every pause action/s);
    expect(states.Running!.description).toMatch(/waits for the lockstep to pause it.*at once.*running stamp/s);
    expect(paused.Idle!.description).toMatch(/waits for a pause action of any game.*context\.waitingFor/s);
    expect(paused.WaitingForStops!.description).toMatch(/waits for the `stop` of each ready pacing game named in context\.waitingFor/);
    expect(paused.Flushing!.description).toMatch(/max\(furthest stop, previous flush stamp\)/);
  });
});

// ---- model paths ---------------------------------------------------------------------------------------------

const modelEvents: PauseOrderEvent[] = [
  hold(1, 1, 100, 5_000),
  hold(2, 1, MAX_HELD_BYTES - 100, 6_000), // fits only when at most 100 bytes are held
  { type: 'session.running', furthest: 4_000 },
  { type: 'session.paused' },
  tick([], [0, 1]),
  tick([[0, 3_000]], [0, 1]),
  tick([[0, 3_000], [1, 3_200]], [0, 1]),
  tick([], []),
  { type: 'world.loaded' },
];

type Snap = { value: unknown; context: { held: readonly unknown[]; heldBytes: number; floor: number | undefined; nextSeq: number; waitingFor: readonly number[]; furthestStop: number | undefined } };
/** The state and what it holds, in coarse terms (how many, up to 2; whether the big one), so the model stays small. */
const keyOf = (s: Snap) => {
  const c = s.context;
  const big = c.heldBytes > 100 * MAX_HELD_PER_PLAYER;
  return JSON.stringify([s.value, Math.min(c.held.length, 2), big, c.floor ?? null, c.waitingFor, c.furthestStop ?? null, Math.min(c.nextSeq, 3)]);
};

function transitionsOf(node: DirectedGraphNode): string[] {
  return [
    ...node.edges.map((e) => `${e.source.key} --${e.transition.eventType || '(always)'}--> ${e.target.key}`),
    ...node.children.flatMap(transitionsOf),
  ];
}

describe('model paths (xstate/graph)', () => {
  const noParent = createActor(fromTransition((s: number) => s, 0));
  const edges = everyEdge(pauseOrderMachine, { input: { parent: noParent }, events: modelEvents, serializeState: keyOf as never });

  it('the chart has the transitions the pause order names (besides those that only act: hold, a tick)', () => {
    const moves = transitionsOf(toDirectedGraph(pauseOrderMachine))
      .map((t) => t.replaceAll('pauseOrder.', ''))
      .filter((t) => !/^(\S+) --\S+--> \1$/.test(t));
    expect(moves.sort()).toEqual(
      [
        'NotStarted --session.running--> Running',
        'NotStarted --session.paused--> Paused',
        'Running --session.paused--> Paused',
        'Paused --session.running--> Running',
        'WaitingForStops --tick--> Flushing',
      ].sort(),
    );
    // Its eventless moves (toDirectedGraph leaves them out): Idle → WaitingForStops once something is held, and
    // Flushing → Idle.
    expect(pauseOrderMachine.root.states.Paused!.states.Idle!.always?.map((t) => t.target?.[0]?.key)).toEqual(['WaitingForStops']);
    expect(pauseOrderMachine.root.states.Paused!.states.Flushing!.always?.map((t) => t.target?.[0]?.key)).toEqual(['Idle']);
  });

  it('replays every edge of the model on a live actor on a simulated clock: every state, the flush rule, one counter', () => {
    const states = new Set<string>();
    const counts: Record<string, number> = {};
    let flushedItems = 0;
    for (const edge of edges) {
      const p = start();
      p.send(...edge.path);
      expect(keyOf(p.actor.getSnapshot())).toBe(edge.from);
      const seen = p.reports().length;
      const passedBefore = p.passed.length;
      const floor = p.context().floor;
      p.send(edge.event);
      p.clock.increment(60_000);
      expect(keyOf(p.actor.getSnapshot())).toBe(edge.to);
      for (const v of p.passed) states.add(v);
      const out = p.reports().slice(seen);
      for (const r of out) counts[r.type] = (counts[r.type] ?? 0) + 1;
      // Flushing is passed through exactly when a paused tick flushes.
      const flushedHere = flushes(out);
      const viaFlushing = p.passed.slice(passedBefore).includes('{"Paused":"Flushing"}');
      expect(viaFlushing).toBe(edge.event.type === 'tick' && flushedHere.length === 1);
      for (const f of flushedHere) {
        flushedItems += f.items.length;
        if (floor !== undefined) expect(f.stamp).toBeGreaterThanOrEqual(floor);
        expect(f.items.map((i) => i.stamp)).toEqual(f.items.map(() => f.stamp));
        expect(f.items.map((i) => i.pauseUpto)).toEqual(f.items.map(() => f.items.at(-1)!.pauseSeq));
        expect(p.context().held).toEqual([]);
      }
      // One pauseSeq counter over the whole replay: held numbers count up from 1 without a gap.
      const numbers = p.reports().flatMap((r) => (r.type === 'pauseOrder.held' ? [r.pauseSeq] : []));
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      p.actor.stop();
    }
    expect([...states].sort()).toEqual(
      ['"NotStarted"', '"Running"', '{"Paused":"Idle"}', '{"Paused":"WaitingForStops"}', '{"Paused":"Flushing"}'].sort(),
    );
    // Floors: what this model reaches (1040 edges; 176 holds, 84 refusals, 182 flushes of 264 items).
    expect(edges.length).toBeGreaterThanOrEqual(1000);
    expect(counts['pauseOrder.held']).toBeGreaterThanOrEqual(170);
    expect(counts['pauseOrder.refused']).toBeGreaterThanOrEqual(80);
    expect(counts['pauseOrder.flushed']).toBeGreaterThanOrEqual(180);
    expect(flushedItems).toBeGreaterThanOrEqual(260);
  });
});
