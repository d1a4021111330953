// The launcher's one inspection observer, delivered to directly (docs/DECISIONS.md "Recorder: inspection events
// reach the observer without XState's copy"). XState 5.33's actor system hands every inspection event to its
// observers as a copy (`{ ...event, rootId }`) through a Set's forEach. The event literals come from many call
// sites, so that spread is megamorphic: measured on the lockstep actor alone, it cost more than the recorder it
// feeds (a no-op observer made a relayed Action about 3 µs dearer, the same observer called directly about none).
//
// `directInspection(observer)` returns the observer to give root actors as `inspect` (each owner may wrap it, as
// the sessions guard it: actors/supervise.ts `guarded`). When it sees the `@xstate.actor` event of a root actor,
// the root's system has exactly one observer: the `inspect` option that root was created with (XState adds
// observers from a root's options and from `system.inspect` only). It then replaces that system's
// `_sendInspectionEvent` with a direct call of that same option: the event XState just built (every call site
// passes a fresh object literal, checked for the pinned 5.33.3) gets its `rootId` and goes on as it is. Every
// observer sees the same events with the same fields, through the same wrappers. A later `system.inspect` (a test
// watching an actor) gives the system its own dispatch back first, so every observer is served. If XState's system
// no longer looks like this (another version), nothing is replaced and the events come the usual way:
// test/adapters/trace/directInspection.test.ts then fails on its check that the direct path is taken.
import type { InspectionEvent } from 'xstate';

type Observer = (event: InspectionEvent) => void;

/** What this relies on of an XState actor: its system's dispatch and the options it was created with. */
interface RootLike {
  sessionId?: unknown;
  _parent?: unknown;
  options?: { inspect?: unknown };
  system?: { _sendInspectionEvent?: unknown; inspect?: unknown };
}

/** The function XState's `toObserver(inspect)` would call: the option itself, or an observer's `next`. */
function deliveryOf(option: unknown): Observer | undefined {
  if (typeof option === 'function') return option as Observer;
  const next = (option as { next?: unknown } | null)?.next;
  return typeof option === 'object' && typeof next === 'function' ? (next.bind(option) as Observer) : undefined;
}

/** The systems whose dispatch was replaced (for the test and for a second look: never replaced twice). */
const direct = new WeakSet<object>();

/** Whether `actor`'s system delivers straight to the observer (true once its root was seen by directInspection). */
export function deliversDirectly(actor: unknown): boolean {
  const system = (actor as RootLike | null)?.system;
  return typeof system === 'object' && system !== null && direct.has(system);
}

/** The observer `observer` wrapped so that each root actor created with it replaces its system's copying dispatch. */
export function directInspection(observer: Observer): Observer {
  const inspect: Observer = (event) => {
    if (event.type === '@xstate.actor') takeOver(event.actorRef as RootLike);
    observer(event);
  };

  function takeOver(root: RootLike): void {
    if (root._parent !== undefined) return;
    const system = root.system;
    if (typeof system !== 'object' || system === null || direct.has(system)) return;
    const deliver = deliveryOf(root.options?.inspect);
    const dispatch = system._sendInspectionEvent;
    const addObserver = system.inspect;
    if (deliver === undefined || typeof dispatch !== 'function' || typeof addObserver !== 'function') return;
    if (typeof root.sessionId !== 'string') return;
    const rootId = root.sessionId;
    system._sendInspectionEvent = (event: InspectionEvent & { rootId?: string }) => {
      event.rootId = rootId;
      deliver(event);
    };
    // A second observer: XState's own dispatch again (it serves the first one too), then the observer is added.
    system.inspect = (...args: unknown[]) => {
      system._sendInspectionEvent = dispatch;
      system.inspect = addObserver;
      direct.delete(system);
      return (addObserver as (...a: unknown[]) => unknown).apply(system, args);
    };
    direct.add(system);
  }

  return inspect;
}
