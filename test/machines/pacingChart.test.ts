// One game's pacing chart on its own (machines/pacing.ts; lockstep.md "Stalls and outsiders"; spec "Outsiders"):
// every state and the 20 s stall limit on a simulated clock (time is the tick's `now`; the clock alone moves
// nothing), what it reports to its parent and in which order, and model paths from xstate/graph replayed on a live
// actor with every state and transition covered.
import { describe, expect, it } from 'vitest';
import { createActor, fromTransition, SimulatedClock } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { everyEdge } from './graphEdges.ts';
import { pacingId, pacingMachine, type PacingEvent, type PacingReport } from '../../machines/pacing.ts';
import type { GameView } from '../../machines/rules/lockstepTypes.ts';
import { STALL_SECONDS } from '../../machines/rules/stall.ts';
import { futureStamp } from '../../machines/rules/stamps.ts';

const LEAD = 2;
const LIMIT_MS = STALL_SECONDS * 1000;

/** A game of the lockstep's view: standing at `t` (speed 0 unless given), promising t + 400 unless `safe` is given. */
function game(id: number, t: number, at: number, extra: Partial<GameView> & { speed?: 0 | 1; safe?: number | null } = {}): GameView {
  const { speed = 0, safe, ...rest } = extra;
  const clock = { t, speed, ahead: 2, receivedAt: at, ...(safe === null ? {} : { safe: safe ?? t + 400 }) };
  return { id, ready: true, hasWorld: true, advancedAt: at, bestT: t, clock, ...rest };
}

/** Game 1 stands at 10 000 (promising 10 400) since 0; game 0 stands at 10 400, its barrier, since 1 000. */
const standing = [game(0, 10_400, 1_000), game(1, 10_000, 0)];
const tick = (now: number, games: readonly GameView[] = standing): PacingEvent => ({ type: 'tick', now, lead: LEAD, games });
/** The promise game 1 gets when marked over `standing`: futureStamp over game 0 alone. */
const FIRST_PROMISE = futureStamp(10_400, LEAD);
/** Game 0 has run on to 12 000: a raised promise for game 1 while it still stands at 10 000. */
const runOn = [game(0, 12_000, 30_000, { speed: 1 }), game(1, 10_000, 0)];
const RAISED = futureStamp(12_000, LEAD);
/** Game 1's clock stands past every promise and game 0 is far behind its barrier: the mark ends, nothing marks it. */
const arrived = [game(0, 10_400, 1_000), game(1, 20_000, 0)];
/** Game 1 stands at 20 000 without a promise, game 0 waits at that barrier: marked (again) with a new promise. */
const again = [game(0, 20_000, 35_000), game(1, 20_000, 0, { safe: null })];
const AGAIN_PROMISE = futureStamp(20_000, LEAD);

function start(id = 1) {
  const clock = new SimulatedClock();
  const parent = createActor(fromTransition((seen: PacingReport[], e: PacingReport) => [...seen, e], [] as PacingReport[])).start();
  const actor = createActor(pacingMachine, { clock, input: { id, parent }, systemId: pacingId(id) }).start();
  return {
    actor,
    clock,
    reports: () => parent.getSnapshot().context,
    value: () => String(actor.getSnapshot().value),
    mark: () => actor.getSnapshot().context.mark,
    send: (e: PacingEvent) => actor.send(e),
  };
}

function stalledPacing() {
  const p = start();
  p.send({ type: 'hello', hasWorld: true });
  p.send(tick(LIMIT_MS));
  return p;
}

describe('pacing chart', () => {
  it('waits for the Hello, then paces (the session’s world) or is an outsider', () => {
    const a = start();
    expect(a.value()).toBe('NotReady');
    a.send(tick(10 * LIMIT_MS));
    a.send({ type: 'clock', t: 50_000 });
    expect(a.value()).toBe('NotReady');
    a.send({ type: 'hello', hasWorld: true });
    expect(a.value()).toBe('Pacing');
    const b = start();
    b.send({ type: 'hello', hasWorld: false });
    expect(b.value()).toBe('Outsider');
    b.send(tick(10 * LIMIT_MS));
    expect(b.value()).toBe('Outsider');
    b.send({ type: 'hello', hasWorld: true }); // its world loaded (a resync round, later)
    expect(b.value()).toBe('Pacing');
    expect([...a.reports(), ...b.reports()]).toEqual([]);
  });

  it('is stalled exactly 20 s after its t last advanced while another game stands at its barrier', () => {
    const p = start();
    p.send({ type: 'hello', hasWorld: true });
    p.send(tick(LIMIT_MS - 1));
    expect(p.value()).toBe('Pacing');
    p.send(tick(LIMIT_MS));
    expect(p.value()).toBe('Stalled');
    const mark = { promise: FIRST_PROMISE, since: LIMIT_MS, t: 10_000 };
    expect(p.mark()).toEqual(mark);
    expect(p.reports()).toEqual([{ type: 'pacing.stalled', id: 1, mark }]);
  });

  it('is never stalled when nobody waits at its barrier, whatever the time', () => {
    const p = start();
    p.send({ type: 'hello', hasWorld: true });
    p.send(tick(100 * LIMIT_MS, [game(0, 10_200, 1_000), game(1, 10_000, 0)]));
    expect(p.value()).toBe('Pacing');
  });

  it('has no timer: an hour of the simulated clock changes nothing in any state', () => {
    for (const hello of [undefined, true, false] as const) {
      const p = start();
      if (hello !== undefined) p.send({ type: 'hello', hasWorld: hello });
      const before = p.actor.getSnapshot();
      p.clock.increment(3_600_000);
      expect(p.actor.getSnapshot()).toBe(before);
    }
    const s = stalledPacing();
    const before = s.actor.getSnapshot();
    s.clock.increment(3_600_000);
    expect(s.actor.getSnapshot()).toBe(before);
  });

  it('raises the promise while it still stands where it was marked', () => {
    const p = stalledPacing();
    p.send(tick(30_000, runOn));
    expect(p.mark()).toEqual({ promise: RAISED, since: LIMIT_MS, t: 10_000 });
    expect(p.reports().at(-1)).toEqual({ type: 'pacing.raised', id: 1, promise: RAISED });
    p.send(tick(30_000, runOn)); // the same view: no higher promise, nothing reported
    expect(p.reports()).toHaveLength(2);
  });

  it('keeps the mark until its clock reaches the promise, then paces again', () => {
    const p = stalledPacing();
    p.send({ type: 'clock', t: FIRST_PROMISE - 200 });
    expect(p.value()).toBe('Stalled');
    p.send({ type: 'clock', t: FIRST_PROMISE });
    expect(p.value()).toBe('Pacing');
    expect(p.mark()).toBeUndefined();
    expect(p.reports().at(-1)).toEqual({ type: 'pacing.reached', id: 1, t: FIRST_PROMISE });
  });

  it('ends the mark at a tick when the view shows its clock at the promise, and may mark it anew in the same pass', () => {
    const p = stalledPacing();
    p.send(tick(40_000, arrived));
    expect(p.value()).toBe('Pacing');
    expect(p.reports().slice(1)).toEqual([{ type: 'pacing.ended', id: 1 }]);

    const q = stalledPacing();
    q.send(tick(40_000, again));
    expect(q.value()).toBe('Stalled');
    const mark = { promise: AGAIN_PROMISE, since: 40_000, t: 20_000 };
    expect(q.mark()).toEqual(mark);
    expect(q.reports().slice(1)).toEqual([
      { type: 'pacing.ended', id: 1 },
      { type: 'pacing.stalled', id: 1, mark },
    ]);
  });

  it('a Hello drops the mark (a new clock line) without a report: the lockstep drops its view with the same Hello', () => {
    const p = stalledPacing();
    p.send({ type: 'hello', hasWorld: false });
    expect(p.value()).toBe('Outsider');
    expect(p.mark()).toBeUndefined();
    expect(p.reports()).toHaveLength(1);
  });

  it('uses its own mark, not the view’s, for itself', () => {
    const p = stalledPacing();
    // A view that (wrongly) shows game 1 unmarked at a t past the promise: the chart holds the mark and ends it.
    p.send(tick(40_000, arrived.map((g) => (g.id === 1 ? { ...g, stalled: undefined } : g))));
    expect(p.reports().at(-1)).toEqual({ type: 'pacing.ended', id: 1 });
  });

  it('every waiting state says what it waits for and on whom', () => {
    const states = pacingMachine.root.states;
    expect(states.NotReady!.description).toMatch(/context\.id.*waits for its Hello/s);
    expect(states.Outsider!.description).toMatch(/context\.id.*Waits for the Hello of a resync round’s load \(the session’s world\)/s);
    expect(states.Pacing!.description).toMatch(/context\.id.*Waits for a running tick.*20 s.*another pacing game/s);
    expect(states.Stalled!.description).toMatch(/context\.mark\.promise.*context\.id.*Waits for the game’s clock to reach/s);
  });
});

// ---- model paths ---------------------------------------------------------------------------------------------

const modelEvents: PacingEvent[] = [
  { type: 'hello', hasWorld: true },
  { type: 'hello', hasWorld: false },
  tick(LIMIT_MS - 1),
  tick(LIMIT_MS),
  tick(30_000, runOn),
  tick(40_000, arrived),
  tick(40_000, again),
  { type: 'clock', t: FIRST_PROMISE - 200 },
  { type: 'clock', t: FIRST_PROMISE },
  { type: 'clock', t: RAISED },
];

function transitionsOf(node: DirectedGraphNode): string[] {
  return [
    ...node.edges.map((e) => `${e.source.key} --${e.transition.eventType}--> ${e.target.key}`),
    ...node.children.flatMap(transitionsOf),
  ];
}

const keyOf = (s: { value: unknown; context: { mark: unknown } }) => JSON.stringify([s.value, s.context.mark ?? null]);

describe('model paths (xstate/graph)', () => {
  const noParent = createActor(fromTransition((s: number) => s, 0));
  const edges = everyEdge(pacingMachine, { input: { id: 1, parent: noParent }, events: modelEvents, serializeState: keyOf });
  const graph = new Set(transitionsOf(toDirectedGraph(pacingMachine)).map((t) => t.replace(/^pacing\./, '').replace(/--> pacing\./, '--> ')));

  it('the chart has the transitions the rule names', () => {
    expect([...graph].sort()).toEqual(
      [
        'pacing --hello--> Pacing',
        'pacing --hello--> Outsider',
        // A game that came back caught up (lockstep `game.returned`): marked at once, or pacing before the start.
        'pacing --returned--> Stalled',
        'pacing --returned--> Pacing',
        'Pacing --tick--> Stalled',
        'Stalled --clock--> Pacing',
        'Stalled --tick--> Stalled',
        'Stalled --tick--> Pacing',
      ].sort(),
    );
  });

  it('replays every edge of the model on a live actor on a simulated clock: every state, every transition', () => {
    const states = new Set<string>();
    const taken = new Set<string>();
    const reported: Record<string, number> = {};
    for (const edge of edges) {
      const p = start();
      for (const event of edge.path) p.send(event);
      expect(keyOf(p.actor.getSnapshot())).toBe(edge.from);
      const before = p.value();
      const seen = p.reports().length;
      p.send(edge.event);
      p.clock.increment(60_000); // the clock alone never moves it
      expect(keyOf(p.actor.getSnapshot())).toBe(edge.to);
      const after = p.value();
      const out = p.reports().slice(seen).map((r) => r.type);
      for (const type of out) reported[type] = (reported[type] ?? 0) + 1;
      // What it reports follows the transition: a mark on entering Stalled, an end on leaving it by tick or clock.
      const type = edge.event.type;
      if (type === 'hello') expect(out).toEqual([]);
      else if (before === 'Pacing' && after === 'Stalled') expect(out).toEqual(['pacing.stalled']);
      else if (before === 'Stalled' && after === 'Pacing') expect(out).toEqual([type === 'clock' ? 'pacing.reached' : 'pacing.ended']);
      else if (before !== 'Stalled') expect(out).toEqual([]);
      if (after !== before || out.includes('pacing.ended')) taken.add(`${before} --${type}--> ${after}`);
      states.add(before).add(after);
      p.actor.stop();
    }
    expect([...states].sort()).toEqual(['NotReady', 'Outsider', 'Pacing', 'Stalled']);
    for (const t of ['Pacing --tick--> Stalled', 'Stalled --clock--> Pacing', 'Stalled --tick--> Pacing', 'Stalled --tick--> Stalled']) {
      expect(taken).toContain(t);
    }
    for (const to of ['Pacing', 'Outsider']) for (const from of ['NotReady', 'Pacing', 'Outsider', 'Stalled']) {
      if (from !== to) expect(taken).toContain(`${from} --hello--> ${to}`);
    }
    // Floors: the model has 70 edges; 6 mark, 1 raises, 6 end a mark at a tick, 4 at a clock.
    expect(edges.length).toBeGreaterThanOrEqual(70);
    expect(reported['pacing.stalled']).toBeGreaterThanOrEqual(6);
    expect(reported['pacing.raised']).toBeGreaterThanOrEqual(1);
    expect(reported['pacing.ended']).toBeGreaterThanOrEqual(6);
    expect(reported['pacing.reached']).toBeGreaterThanOrEqual(4);
  });
});
