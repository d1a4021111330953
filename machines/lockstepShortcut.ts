// The lockstep chart as the host runs it (actors/host/hostLockstep.ts), with one shortcut: an ordinary Action (the
// relay's hot path, thousands a second) is relayed without XState's macrostep. XState still chooses the transition:
// `getTransitionData` evaluates the chart's own guards in the chart's own order. Only when that choice is the
// chart's ordinary relay (`observeNow`, `relayAction`: no target) and the state has no eventless transitions to
// check afterwards does the shortcut do what those two actions do: the same step (steps.relayStep), the new `now`,
// the emitted events in order after the transition, as `emit` does. Every other case goes through the chart,
// including an ordinary Action whose step refuses it or logs (a veto, a log line), so that the trace shows those
// as it always did. The chart stays the one place the rules live; this only skips the bookkeeping around them.
//
// What the inspection stream loses: the relayed Action's microstep and its `send.Action` emit action (the trace
// recorder only counted both, inspect/traceEncoder.ts `hot`). The event and the snapshot stay.
// test/machines/lockstepShortcut.test.ts checks the shortcut against the chart.
import type { AnyStateNode, EventObject } from 'xstate';
import { lockstepMachine } from './lockstep.ts';
import type { LockstepContext, LockstepEmitted, LockstepEvent } from './lockstep.ts';
import { relayStep } from './rules/lockstepSteps.ts';

type Transition = ReturnType<typeof lockstepMachine.getTransitionData>[number];
type ActionEvent = Extract<LockstepEvent, { type: 'recv.Action' }>;

/** The name of an action in a transition's list: `'observeNow'`, or `{ type: 'relayAction', params }`. */
const actionName = (action: unknown): unknown => (typeof action === 'string' ? action : (action as { type?: unknown } | null)?.type);

/**
 * The chart's ordinary relay of an Action: the root's unguarded, targetless `recv.Action` transition whose actions are
 * exactly `observeNow` then `relayAction`. Undefined (no shortcut) if the chart no longer has one of that shape.
 */
export const ORDINARY_RELAY: Transition | undefined = (lockstepMachine.root.on['recv.Action'] ?? []).find(
  (t: Transition) =>
    t.guard === undefined &&
    t.target === undefined &&
    t.actions.length === 2 &&
    actionName(t.actions[0]) === 'observeNow' &&
    actionName(t.actions[1]) === 'relayAction',
);

/** No active state node has eventless transitions (the chart would check them after the Action's). */
function noEventless(nodes: readonly AnyStateNode[]): boolean {
  for (const node of nodes) if (node.always !== undefined && node.always.length > 0) return false;
  return true;
}

/** Only wire messages that the trace counts rather than writes: anything else (a veto, a log) goes through the chart. */
function onlyRelays(out: readonly LockstepEmitted[]): boolean {
  for (const event of out) if (event.type !== 'send.Action') return false;
  return true;
}

type Snapshot = Parameters<typeof lockstepMachine.transition>[0];
type Scope = Parameters<typeof lockstepMachine.transition>[2];

/** The snapshot after an ordinary relay, its emitted events deferred to the actor's update; undefined: not ordinary. */
function relayOrdinary(snapshot: Snapshot, event: ActionEvent, scope: Scope): Snapshot | undefined {
  if (ORDINARY_RELAY === undefined || snapshot.status !== 'active' || !noEventless(snapshot._nodes)) return undefined;
  const chosen = lockstepMachine.getTransitionData(snapshot, event);
  if (chosen.length !== 1 || chosen[0] !== ORDINARY_RELAY) return undefined;
  const before: LockstepContext = snapshot.context;
  // observeNow, then relayAction on the context it leaves.
  const now = typeof event.now === 'number' ? Math.max(before.now, event.now) : before.now;
  const observed = now === before.now ? before : { ...before, now };
  const { patch, out } = relayStep(observed, event.from, event.payload, event.wall);
  if (!onlyRelays(out)) return undefined;
  if (out.length > 0) scope.defer(() => out.forEach((e) => scope.emit(e)));
  // The same state nodes, value and children: only the context is new (as in XState's own clone of a snapshot).
  return { ...snapshot, context: { ...before, now, ...patch } } as Snapshot;
}

const transitionWithShortcut: (typeof lockstepMachine)['transition'] = (snapshot, event, scope) => {
  if ((event as EventObject).type === 'recv.Action') {
    const next = relayOrdinary(snapshot, event as ActionEvent, scope);
    if (next !== undefined) return next;
  }
  return lockstepMachine.transition(snapshot, event, scope);
};

/** The lockstep chart with the ordinary Action's shortcut: the logic the host's actor runs. */
export const lockstepLogic: typeof lockstepMachine = Object.create(lockstepMachine, {
  transition: { value: transitionWithShortcut },
});
