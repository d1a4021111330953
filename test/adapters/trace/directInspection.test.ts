// The direct delivery of inspection events (adapters/trace/directInspection.ts): a root actor created with the
// wrapped observer (as the sessions create theirs, through a guard) has its system deliver straight to that option;
// the observer sees the same events, in the same order, with the same fields (rootId included) as through XState's
// own dispatch; a root without an observer is left alone. If a new XState changes its system, the first test fails.
import { SimulatedClock, assign, createActor, createMachine, emit, fromCallback, sendTo, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { guarded } from '../../../actors/supervise.ts';
import { deliversDirectly, directInspection } from '../../../adapters/trace/directInspection.ts';

/** A root with an invoked callback child that sends it events, a delayed event, an emit and context updates. */
const machine = createMachine({
  id: 'root',
  context: { n: 0 },
  invoke: {
    id: 'feed',
    systemId: 'feed',
    src: fromCallback(({ sendBack, receive }) => {
      receive((event) => {
        if (event.type === 'poke') sendBack({ type: 'fed' });
      });
    }),
  },
  initial: 'idle',
  states: {
    idle: {
      on: {
        fed: { actions: [assign({ n: ({ context }) => context.n + 1 }), emit({ type: 'counted' })] },
        go: 'busy',
      },
    },
    busy: {
      entry: sendTo('feed', { type: 'poke' }),
      after: { 50: 'idle' },
      on: { fed: { actions: assign({ n: ({ context }) => context.n + 10 }) } },
    },
  },
});

/** What an inspection event says, each actor named by the order it was first seen in (`ids`, one map per run). */
function summary(event: InspectionEvent, ids: Map<string, number>): unknown {
  const id = (sessionId: string | undefined) => {
    if (sessionId === undefined) return undefined;
    if (!ids.has(sessionId)) ids.set(sessionId, ids.size);
    return ids.get(sessionId);
  };
  const e = event as InspectionEvent & { event?: { type?: string }; snapshot?: { value?: unknown; context?: unknown }; sourceRef?: { sessionId: string } };
  return {
    type: e.type,
    rootId: id(e.rootId),
    actor: id(e.actorRef?.sessionId),
    source: id(e.sourceRef?.sessionId),
    event: e.event?.type,
    ...(e.type === '@xstate.snapshot' ? { value: e.snapshot?.value, context: e.snapshot?.context } : {}),
    ...(e.type === '@xstate.action' ? { action: e.action.type } : {}),
    keys: Object.keys(e).sort(),
  };
}

function run(wrap: (observer: (event: InspectionEvent) => void) => (event: InspectionEvent) => void) {
  const seen: unknown[] = [];
  const ids = new Map<string, number>();
  const clock = new SimulatedClock();
  const logs: unknown[] = [];
  const inspect = guarded((entry) => logs.push(entry), 'inspect', wrap((event) => seen.push(summary(event, ids))));
  const actor = createActor(machine, { clock, inspect }).start();
  actor.send({ type: 'go' });
  actor.system.get('feed')!.send({ type: 'poke' });
  clock.increment(60);
  actor.send({ type: 'go' });
  clock.increment(60);
  actor.stop();
  return { actor, seen, logs };
}

describe('directInspection', () => {
  it('takes over the dispatch of a root created with it, through a wrapper', () => {
    const { actor, logs } = run(directInspection);
    expect(deliversDirectly(actor)).toBe(true);
    expect(logs).toEqual([]);
  });

  it('delivers the same events, in the same order, with the same fields as XState’s own dispatch', () => {
    const plain = run((observer) => observer);
    const direct = run(directInspection);
    expect(deliversDirectly(plain.actor)).toBe(false);
    // Enough of a stream to mean something: actors, events from a child, a delayed event, snapshots, actions.
    const types = new Set((plain.seen as { type: string }[]).map((s) => s.type));
    expect([...types].sort()).toEqual(['@xstate.action', '@xstate.actor', '@xstate.event', '@xstate.microstep', '@xstate.snapshot']);
    expect(plain.seen.length).toBeGreaterThan(20);
    expect(direct.seen).toEqual(plain.seen);
  });

  it('leaves a root without an inspect option alone', () => {
    const other = directInspection(() => {});
    const actor = createActor(machine).start();
    // Told of a root with no observer of its own (nothing to deliver to): its system is not touched.
    other({ type: '@xstate.actor', actorRef: actor, rootId: actor.sessionId } as InspectionEvent);
    expect(deliversDirectly(actor)).toBe(false);
    actor.send({ type: 'go' });
    expect(actor.getSnapshot().value).toBe('busy');
    actor.stop();
  });

  it('gives the system its own dispatch back when a second observer is added, and both are served', () => {
    const first: string[] = [];
    const second: string[] = [];
    const actor = createActor(machine, { clock: new SimulatedClock(), inspect: directInspection((event) => first.push(event.type)) }).start();
    expect(deliversDirectly(actor)).toBe(true);
    actor.system.inspect((event) => second.push(event.type));
    expect(deliversDirectly(actor)).toBe(false);
    const before = first.length;
    actor.send({ type: 'go' });
    expect(first.length).toBeGreaterThan(before);
    expect(second).toEqual(first.slice(before));
    actor.stop();
  });

  it('a throwing observer is still caught by the wrapper it was given through', () => {
    const logs: { msg: string }[] = [];
    let calls = 0;
    const inspect = guarded(
      (entry) => logs.push(entry as { msg: string }),
      'inspect',
      directInspection(() => {
        calls++;
        throw new Error('observer broke');
      }),
    );
    const actor = createActor(machine, { clock: new SimulatedClock(), inspect }).start();
    expect(deliversDirectly(actor)).toBe(true);
    actor.send({ type: 'go' });
    expect(actor.getSnapshot().value).toBe('busy');
    expect(calls).toBeGreaterThan(3);
    expect(logs.length).toBe(calls);
    actor.stop();
  });
});
