// The catch-up chart as a model (xstate/graph): for each kind of return (covered or not, session started or not) the
// simple paths and every edge of the reachable graph, replayed on a live actor on a simulated clock (the catch-up limit
// taken by advancing the clock, never by sending the delayed event); each path must reach the state the model names,
// a path ending in a final state the output the model names, and the paths together every state and transition of the
// chart (spec wire-protocol "Reconnect", "Catching up").
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { getSimplePaths, toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { catchUpMachine, type CatchUpEmitted, type CatchUpEvent, type CatchUpInput } from '../../machines/catchUp.ts';
import { everyEdge } from './graphEdges.ts';

const LIMIT = 1_000;
const machine = catchUpMachine.provide({ delays: { catchUpLimit: LIMIT } });
/** The event XState raises when the catch-up limit runs out (replayed as a clock step). */
const limitEvent = catchUpMachine.root.states.CatchingUp!.states.OnTime!.after[0]!.eventType;

const modelEvents = [
  { type: 'game.reached' },
  { type: 'game.loaded' },
  { type: 'round.failed' },
  { type: 'conn.closed', reason: 'peer-closed' },
  { type: 'slot.released', reason: 'reconnect window ended' },
  { type: 'cmd.shutdown' },
  { type: limitEvent },
] as CatchUpEvent[];

const base = { id: 4, name: 'bob', last: 12 } as const;
const INPUTS: Record<string, CatchUpInput> = {
  'covered, started': { ...base, outbox: { covers: true, count: 3 }, started: true },
  'covered, not started': { ...base, outbox: { covers: true, count: 3 }, started: false },
  'not covered, started': { ...base, outbox: { covers: false, why: 'older than the outbox' }, started: true },
  'not covered, not started': { ...base, last: undefined, outbox: { covers: false, why: 'read none' }, started: false },
};

const RESULT_OF: Record<string, string> = {
  CaughtUp: 'caughtUp',
  Reloaded: 'reloaded',
  Dropped: 'dropped',
  Released: 'released',
  Shutdown: 'shutdown',
};

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function start(input: CatchUpInput) {
  const clock = new SimulatedClock();
  const emitted: CatchUpEmitted[] = [];
  const actor = createActor(machine, { clock, input, systemId: `catchUp:${input.id}` });
  actor.on('*', (e) => emitted.push(e as CatchUpEmitted));
  actor.start();
  return { actor, clock, emitted, value: () => show(actor.getSnapshot().value) };
}

function apply(h: ReturnType<typeof start>, event: CatchUpEvent | { type: string }): void {
  if (event.type === limitEvent) h.clock.increment(LIMIT);
  // A finished actor takes no events (XState warns); the session sends only to running catch-ups, and the model's
  // edges out of a final state are checked as changing nothing.
  else if (h.actor.getSnapshot().status === 'active') h.actor.send(event as CatchUpEvent);
}

function transitionsOf(node: DirectedGraphNode): string[] {
  return [
    ...node.edges.map((e) => `${e.source.key} --${e.transition.eventType || '(always)'}--> ${e.target.key}`),
    ...node.children.flatMap(transitionsOf),
  ];
}

/** What a live actor's step emits, by type: the chart's I/O at each transition. */
const outTypes = (emitted: CatchUpEmitted[]) => emitted.filter((e) => e.type !== 'out.log').map((e) => e.type);

describe('catch-up model paths (xstate/graph)', () => {
  const allTransitions = new Set(transitionsOf(toDirectedGraph(machine)));

  it('the chart has the event transitions the brief and the spec name (the transient ones are replayed below)', () => {
    // toDirectedGraph draws the evented transitions; Deciding's and Resending's `always` are checked on live actors.
    expect([...allTransitions].sort()).toEqual(
      [
        `OnTime --${limitEvent}--> Late`,
        'CatchingUp --game.reached--> CaughtUp',
        'CatchingUp --game.loaded--> Reloaded',
        'CatchingUp --conn.closed--> Dropped',
        'CatchingUp --slot.released--> Released',
        'CatchingUp --cmd.shutdown--> Shutdown',
        'Reloading --game.loaded--> Reloaded',
        'Reloading --round.failed--> Reloading',
        'Reloading --conn.closed--> Dropped',
        'Reloading --slot.released--> Released',
        'Reloading --cmd.shutdown--> Shutdown',
      ].sort(),
    );
  });

  const all = Object.entries(INPUTS).map(([name, input]) => ({
    name,
    input,
    paths: getSimplePaths(machine, { input, events: modelEvents }),
  }));

  it('replays every simple path of every kind of return on a live actor: the state and the output the model names', () => {
    const reached = new Set<string>();
    let count = 0;
    for (const { name, input, paths } of all) {
      for (const path of paths) {
        count += 1;
        const h = start(input);
        expect(h.value(), name).toBe(show(path.steps[0]!.state.value));
        for (const step of path.steps) {
          if ((step.event.type as string) === 'xstate.init') continue;
          apply(h, step.event);
          expect(h.value(), `${name}: ${step.event.type}`).toBe(show(step.state.value));
        }
        const end = path.state;
        const snap = h.actor.getSnapshot();
        reached.add(show(snap.value));
        if (end.status === 'done') {
          expect(snap.status, name).toBe('done');
          expect(snap.output).toEqual({ id: 4, result: RESULT_OF[end.value as string] });
          expect(end.output).toEqual(snap.output);
        } else {
          expect(snap.status, name).toBe('active');
        }
        // Exactly one decision leaves the chart per return: one resend or one returned, never both, never twice.
        const out = outTypes(h.emitted);
        expect(out, name).toEqual(input.outbox.covers ? ['out.resend'] : ['out.returned']);
        h.actor.stop();
      }
    }
    // Measured: 12 (covered, started) + 1 + 5 (not covered, started) + 1 = 19.
    expect(count).toBeGreaterThanOrEqual(19);
    expect([...reached].sort()).toEqual(
      ['CaughtUp', 'Dropped', 'Released', 'Reloaded', 'Reloading', 'Shutdown', '{"CatchingUp":"Late"}', '{"CatchingUp":"OnTime"}'].sort(),
    );
  });

  it('each kind of return has its own paths: where it rests first, and the finals it can reach', () => {
    const finals = (name: string) =>
      [...new Set(all.find((a) => a.name === name)!.paths.filter((p) => p.state.status === 'done').map((p) => show(p.state.value)))].sort();
    const counts = Object.fromEntries(all.map((a) => [a.name, a.paths.length]));
    expect(counts['covered, started']).toBeGreaterThanOrEqual(12);
    expect(counts['not covered, started']).toBeGreaterThanOrEqual(5);
    expect(finals('covered, started')).toEqual(['CaughtUp', 'Dropped', 'Released', 'Reloaded', 'Shutdown']);
    expect(finals('not covered, started')).toEqual(['Dropped', 'Released', 'Reloaded', 'Shutdown']);
    expect(finals('covered, not started')).toEqual(['CaughtUp']);
    expect(finals('not covered, not started')).toEqual(['CaughtUp']);
  });

  it('replays every edge (self-loops included) on a live actor, and together they take every transition of the chart', () => {
    const taken = new Set<string>();
    const ignored = new Set<string>();
    let edges = 0;
    const key = (s: { value: unknown }) => show(s.value);
    for (const [name, input] of Object.entries(INPUTS)) {
      const es = everyEdge(machine, { input, events: modelEvents, serializeState: key as never });
      // The transient states (Deciding, Resending) are taken on the way to the first resting state.
      const first = start(input);
      const initial = first.value();
      if (input.outbox.covers) taken.add(`Deciding -> Resending`), taken.add(`Resending -> ${initial}`);
      else taken.add(`Deciding -> ${initial}`);
      first.actor.stop();
      for (const edge of es) {
        edges += 1;
        const h = start(input);
        for (const e of edge.path) apply(h, e);
        expect(h.value(), name).toBe(edge.from);
        const seen = h.emitted.length;
        apply(h, edge.event);
        expect(h.value(), `${name}: ${edge.from} --${edge.event.type}`).toBe(edge.to);
        // An event a state does not take changes nothing and emits nothing; a failed round logs and stays; every
        // other transition logs its one line (the limit: one warning), shutdown excepted (silent).
        const out = h.emitted.slice(seen).map((e) => e.type);
        if (edge.from === edge.to && !(edge.from === 'Reloading' && edge.event.type === 'round.failed')) {
          expect(out, `${name}: ${edge.from} ignores ${edge.event.type}`).toEqual([]);
          ignored.add(`${edge.from} ignores ${edge.event.type}`);
        } else {
          expect(out, `${name}: ${edge.from} --${edge.event.type}--> ${edge.to}`).toEqual(edge.event.type === 'cmd.shutdown' ? [] : ['out.log']);
          taken.add(`${edge.from} -> ${edge.to} (${edge.event.type})`);
        }
        h.actor.stop();
      }
    }
    // Measured: 98 edges (the 7 model events from every state each input reaches: 21 transitions, 77 ignored).
    expect(edges).toBeGreaterThanOrEqual(98);
    // What the waiting states ignore: game.reached and the limit while reloading, round.failed while catching up,
    // and every event once final.
    for (const t of ['Reloading ignores game.reached', '{"CatchingUp":"OnTime"} ignores round.failed', '{"CatchingUp":"Late"} ignores round.failed', 'CaughtUp ignores slot.released', 'Dropped ignores cmd.shutdown'])
      expect(ignored, t).toContain(t);
    // Every transition of the chart's graph has a replayed counterpart.
    const expected = [
      'Deciding -> Resending',
      'Deciding -> Reloading',
      'Deciding -> CaughtUp',
      'Resending -> {"CatchingUp":"OnTime"}',
      'Resending -> CaughtUp',
      `{"CatchingUp":"OnTime"} -> {"CatchingUp":"Late"} (${limitEvent})`,
      ...['{"CatchingUp":"OnTime"}', '{"CatchingUp":"Late"}'].flatMap((s) => [
        `${s} -> CaughtUp (game.reached)`,
        `${s} -> Reloaded (game.loaded)`,
        `${s} -> Dropped (conn.closed)`,
        `${s} -> Released (slot.released)`,
        `${s} -> Shutdown (cmd.shutdown)`,
      ]),
      'Reloading -> Reloaded (game.loaded)',
      'Reloading -> Reloading (round.failed)',
      'Reloading -> Dropped (conn.closed)',
      'Reloading -> Released (slot.released)',
      'Reloading -> Shutdown (cmd.shutdown)',
    ];
    for (const t of expected) expect(taken, t).toContain(t);
    expect(taken.size).toBe(expected.length);
  });
});
