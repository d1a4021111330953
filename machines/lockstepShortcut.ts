// The lockstep chart as the host runs it (actors/host/hostLockstep.ts), with one shortcut for the two events of the
// relay's hot path: an ordinary Action (thousands a second under load) and an ordinary Clock (every game's, several a
// second each) are relayed without XState's macrostep. The choice is still the chart's: its own guards, in its own
// order, with the arguments XState gives them. Only when that choice is the chart's ordinary relay (`observeNow` then
// `relayAction`, or `observeNow` then `takeClock`: no guard, no target) does the shortcut do what those two actions
// do: the same step (steps.relayStep, steps.onClock), the new `now`, the emitted events in order after the
// transition, as `emit` does. Every other case goes through the chart: a refusal, a log line, a stalled game's clock
// (its pacing chart decides), any state with eventless transitions, so that the trace shows those as it always did.
// The chart stays the one place the rules live; this only skips the bookkeeping around them.
//
// What the inspection stream loses: the relayed event's microstep and its `send.Action` / `send.PeerClock` emit
// action (the trace recorder only counted them, inspect/traceEncoder.ts `hot`). The event and the snapshot stay.
// test/machines/lockstepShortcut.test.ts checks the shortcut against the chart.
import type { AnyStateNode, EventObject } from 'xstate';
import { lockstepMachine } from './lockstep.ts';
import type { LockstepContext, LockstepEmitted, LockstepEvent } from './lockstep.ts';
import { onClock, pacingDecidesClock, relayStep } from './rules/lockstepSteps.ts';
import type { Step } from './rules/lockstepSteps.ts';

type Transition = ReturnType<typeof lockstepMachine.getTransitionData>[number];
type Snapshot = Parameters<typeof lockstepMachine.transition>[0];
type Scope = Parameters<typeof lockstepMachine.transition>[2];
type HotType = 'recv.Action' | 'recv.Clock';
type HotEvent = Extract<LockstepEvent, { type: HotType }>;

/** One hot event's ordinary relay: the chart's transition for it, and what its two actions do. */
interface Ordinary<E extends HotEvent> {
  /** The second action of the transition (the first is `observeNow`). */
  action: string;
  /** The only emitted event type the shortcut passes on (anything else, a log line, goes through the chart). */
  emits: LockstepEmitted['type'];
  /** The action's step on the context `observeNow` left; undefined when the action would do something else. */
  step(context: LockstepContext, event: E): Step | undefined;
}

const ORDINARY: { [T in HotType]: Ordinary<Extract<HotEvent, { type: T }>> } = {
  'recv.Action': {
    action: 'relayAction',
    emits: 'send.Action',
    step: (context, e) => relayStep(context, e.from, e.payload, e.wall),
  },
  'recv.Clock': {
    action: 'takeClock',
    emits: 'send.PeerClock',
    // takeClock leaves a stalled game's clock to its pacing chart (an event to a child): the chart does that.
    step: (context, e) => (pacingDecidesClock(context, e.from) ? undefined : onClock(context, e.from, e.payload, e.wall)),
  },
};

/** The name of an action in a transition's list: `'observeNow'`, or `{ type: 'relayAction', params }`. */
const actionName = (action: unknown): unknown => (typeof action === 'string' ? action : (action as { type?: unknown } | null)?.type);

/** Whether an event descriptor of a state node (an `on` key) may match `type` (wildcards counted, conservatively). */
function mayMatch(descriptor: string, type: HotType): boolean {
  if (descriptor === type) return true;
  if (!descriptor.includes('*')) return false;
  return !(descriptor.endsWith('.*') && !type.startsWith(descriptor.slice(0, -1)));
}

/** A root candidate: the transition, and its guard as the chart's implementation with its params. */
type Candidate = {
  transition: Transition;
  guard?: { check: (args: { context: LockstepContext; event: HotEvent }, params: unknown) => boolean; params: unknown };
};

/** The chart's shape for one hot event type: the ordinary transition and the root's candidates up to it. */
interface Shape {
  ordinary: Transition;
  /**
   * The root's transitions for the type in the order XState tries them, up to the ordinary one, each guard resolved
   * to the chart's own implementation (lockstepGuards.ts): the choice is then made without XState's walk of the state
   * nodes (`getTransitionData`: a memo lookup and a candidate list per node, for every event). Undefined when the
   * chart has a shape this does not cover (a guard that is not a named function guard, a root wildcard that matches):
   * XState then chooses.
   */
  candidates: readonly Candidate[] | undefined;
}

function shapeOf(type: HotType): Shape | undefined {
  const root = lockstepMachine.root;
  const transitions: Transition[] = root.transitions.get(type) ?? [];
  const ordinary = transitions.find(
    (t) =>
      t.guard === undefined &&
      t.target === undefined &&
      t.actions.length === 2 &&
      actionName(t.actions[0]) === 'observeNow' &&
      actionName(t.actions[1]) === ORDINARY[type].action,
  );
  if (ordinary === undefined) return undefined;
  return { ordinary, candidates: rootCandidates(type, transitions, ordinary) };
}

function rootCandidates(type: HotType, transitions: Transition[], ordinary: Transition): Candidate[] | undefined {
  if ([...lockstepMachine.root.transitions.keys()].some((key) => key !== type && mayMatch(key, type))) return undefined;
  const implementations = lockstepMachine.implementations.guards as Record<string, unknown>;
  const candidates: Candidate[] = [];
  for (const transition of transitions.slice(0, transitions.indexOf(ordinary) + 1)) {
    const guard = transition.guard as unknown;
    if (guard === undefined) {
      candidates.push({ transition });
      continue;
    }
    if (typeof guard !== 'object' || guard === null) return undefined;
    const { type: name, params } = guard as { type?: unknown; params?: unknown };
    const check = typeof name === 'string' ? implementations[name] : undefined;
    // A built-in guard (and, or, not) carries `check`; only plain named guards are evaluated here.
    if (typeof check !== 'function' || 'check' in check) return undefined;
    candidates.push({ transition, guard: { check: check as NonNullable<Candidate['guard']>['check'], params } });
  }
  return candidates;
}

/** Per hot event type: the chart's shape for it; undefined (no shortcut) if the chart no longer has an ordinary relay. */
export const SHAPES: { readonly [T in HotType]: Shape | undefined } = {
  'recv.Action': shapeOf('recv.Action'),
  'recv.Clock': shapeOf('recv.Clock'),
};

/** The chart's ordinary relay of an Action (kept for the tests that check the shortcut still finds it). */
export const ORDINARY_RELAY: Transition | undefined = SHAPES['recv.Action']?.ordinary;

/**
 * Per set of active state nodes (XState keeps the array while the state does not change): whether the root alone
 * answers both hot types (no active node below it has a transition that may match) and no active node has eventless
 * transitions (the chart would check them after the event's).
 */
const plainNodes = new WeakMap<readonly AnyStateNode[], boolean>();

function rootAloneDecides(nodes: readonly AnyStateNode[]): boolean {
  let plain = plainNodes.get(nodes);
  if (plain === undefined) {
    const root = lockstepMachine.root;
    plain = nodes.every(
      (node) =>
        (node.always === undefined || node.always.length === 0) &&
        (node === root || ![...node.transitions.keys()].some((key) => mayMatch(key, 'recv.Action') || mayMatch(key, 'recv.Clock'))),
    );
    plainNodes.set(nodes, plain);
  }
  return plain;
}

/** No active state node has eventless transitions (the chart would check them after the event's). */
function noEventless(nodes: readonly AnyStateNode[]): boolean {
  for (const node of nodes) if (node.always !== undefined && node.always.length > 0) return false;
  return true;
}

/** The transition XState would choose for `event` (the same guards in the same order, with the same arguments). */
function chosenTransition(shape: Shape, snapshot: Snapshot, event: HotEvent): Transition | undefined {
  if (shape.candidates === undefined || !rootAloneDecides(snapshot._nodes)) {
    const chosen = lockstepMachine.getTransitionData(snapshot, event);
    return chosen.length === 1 && noEventless(snapshot._nodes) ? chosen[0] : undefined;
  }
  const args = { context: snapshot.context, event };
  for (const { transition, guard } of shape.candidates) {
    if (guard === undefined) return transition;
    const params = typeof guard.params === 'function' ? (guard.params as (a: typeof args) => unknown)(args) : guard.params;
    if (guard.check(args, params)) return transition;
  }
  return undefined;
}

/** Only the ordinary relay's wire message: anything else (a veto, a log) goes through the chart. */
function only(out: readonly LockstepEmitted[], type: LockstepEmitted['type']): boolean {
  for (const event of out) if (event.type !== type) return false;
  return true;
}

/** The snapshot after an ordinary relay, its emitted events deferred to the actor's update; undefined: not ordinary. */
function relayOrdinary<T extends HotType>(snapshot: Snapshot, event: Extract<HotEvent, { type: T }>, scope: Scope): Snapshot | undefined {
  const shape = SHAPES[event.type as T];
  if (shape === undefined || snapshot.status !== 'active') return undefined;
  if (chosenTransition(shape, snapshot, event) !== shape.ordinary) return undefined;
  const before: LockstepContext = snapshot.context;
  // observeNow, then the relay's action on the context it leaves. That context is a fresh copy, which the step only
  // reads (its patch and events are new objects), so the patch is then written into it: one copy, not two.
  const now = typeof event.now === 'number' ? Math.max(before.now, event.now) : before.now;
  const context: LockstepContext = { ...before, now };
  const ordinary = ORDINARY[event.type as T] as Ordinary<typeof event>;
  const step = ordinary.step(context, event);
  if (step === undefined || !only(step.out, ordinary.emits)) return undefined;
  const { patch, out } = step;
  Object.assign(context, patch);
  if (out.length > 0) scope.defer(() => out.forEach((e) => scope.emit(e)));
  // The same state nodes, value and children: only the context is new (as in XState's own clone of a snapshot).
  return { ...snapshot, context } as Snapshot;
}

const transitionWithShortcut: (typeof lockstepMachine)['transition'] = (snapshot, event, scope) => {
  const type = (event as EventObject).type;
  if (type === 'recv.Action' || type === 'recv.Clock') {
    const next = relayOrdinary(snapshot, event as HotEvent, scope);
    if (next !== undefined) return next;
  }
  return lockstepMachine.transition(snapshot, event, scope);
};

/** The lockstep chart with the hot path's shortcut: the logic the host's actor runs. */
export const lockstepLogic: typeof lockstepMachine = Object.create(lockstepMachine, {
  transition: { value: transitionWithShortcut },
});
