// The root actor of a session (systemId `host` or `player`): the parent of its adapter actors, one `conn:<id>` per
// accepted connection (actors/connectionActor.ts) and the file link `link` (adapters/launcher/gameBridge.ts).
// Adapters reach a session only as events from these children (DESIGN.md "Actors", "Adapters"): the chart spawns a
// connection's actor when the session accepts it and stops it when it closes, and turns every report of its
// children into an emitted event of the same shape, which the session handles (HostSession, PlayerSession). The
// chart decides nothing else: which phase a connection is in, who a frame is from, is the session's.
//
// Order and timing are those of the callbacks it replaces: a report reaches the chart inside the transport's (or
// the link's) own callback, and XState processes an event sent to an idle actor at once, emitted events included,
// so a frame is handled before the transport delivers the next one. A report sent while the chart is busy (a close
// caused by handling a frame) is handled right after, in the order sent.
//
// Supervision: every listener is guarded (XState rethrows a listener's throw on a timer, which would end the
// process); the session's own handlers end only the connection concerned (`internal-error`). A child that fails
// is reported (`adapter.failed`), so the chart does not fail with it; the chart failing has an error observer.
//
// The chart's states and transitions are machines/sessionRouter.ts (so the inspector draws it); this file gives it
// its types and the implementations of the actions it names.
import { createActor, emit, enqueueActions, setup, stopChild, type Actor, type AnyActorLogic } from 'xstate';
import {
  connectionHandle,
  connectionLogic,
  connectionSystemId,
  type ConnectionActorRef,
  type ConnectionHandle,
  type ConnectionReport,
} from './connectionActor.ts';
import type { Clock, Connection, GameLinkLine, GameLinkReport, LogFn } from './ports.ts';
import { guarded, stackOf } from './supervise.ts';
import { sessionRouterChart } from '../machines/sessionRouter.ts';
import type { InspectionObserver } from './host/hostTypes.ts';

/** The systemId of the file link's actor. */
export const LINK_ID = 'link';

/**
 * An adapter actor to run: its logic and input, kept out of the trace (a file link's input holds the whole link);
 * only its systemId is an own field, so the event's line reads `{"adapter":{"systemId":"link"}}`.
 */
export class AdapterSpec {
  readonly systemId: string;
  readonly #logic: AnyActorLogic;
  readonly #input: unknown;

  constructor(systemId: string, logic: AnyActorLogic, input: unknown) {
    this.systemId = systemId;
    this.#logic = logic;
    this.#input = input;
  }

  get logic(): AnyActorLogic {
    return this.#logic;
  }

  get input(): unknown {
    return this.#input;
  }
}

/** A child failed (a fault of ours in an adapter): `id` its systemId (`conn:<id>`, `link`). */
export type AdapterFailed = { type: 'adapter.failed'; id: string; error: unknown };

export type SessionRouterEvent =
  /** The session accepted a connection: spawn its actor. */
  | { type: 'conn.accepted'; conn: Connection }
  | ConnectionReport
  /** Run a file link's adapter actor as `link` (one at a time: `link.detach` first). */
  | { type: 'link.attach'; adapter: AdapterSpec }
  | { type: 'link.detach' }
  | GameLinkReport
  | { type: `xstate.error.actor.${string}`; error: unknown };

export type SessionRouterEmitted = ConnectionReport | GameLinkReport | AdapterFailed;

const ERROR_PREFIX = 'xstate.error.actor.';

export const sessionRouterMachine = setup({
  types: {
    events: {} as SessionRouterEvent,
    emitted: {} as SessionRouterEmitted,
  },
  actors: { connection: connectionLogic },
  actions: {
    /** A connection's actor; its systemId is free (the session refuses a second connection with a live id). */
    spawnConnection: enqueueActions(({ enqueue, event, system }) => {
      if (event.type !== 'conn.accepted') return;
      const id = connectionSystemId(event.conn.id);
      if (system.get(id) === undefined) enqueue.spawnChild('connection', { id, systemId: id, input: { conn: event.conn } });
    }),
    stopConnection: enqueueActions(({ enqueue, event }) => {
      if (event.type === 'conn.closed') enqueue.stopChild(connectionSystemId(event.conn));
    }),
    spawnLink: enqueueActions(({ enqueue, event, system }) => {
      if (event.type !== 'link.attach' || system.get(LINK_ID) !== undefined) return;
      // XState's types refuse an id beside a logic given by value (its runtime takes it): the child's key is `link`.
      const spawn = enqueue.spawnChild as unknown as (logic: AnyActorLogic, options: { id: string; systemId: string; input: unknown }) => void;
      spawn(event.adapter.logic, { id: LINK_ID, systemId: LINK_ID, input: event.adapter.input });
    }),
    stopLink: stopChild(LINK_ID),
    /** A child's report, as it came: the session's listeners get the very event object. */
    forward: emit(({ event }) => event as ConnectionReport | GameLinkReport),
    childFailed: emit(({ event }) => {
      const { type, error } = event as { type: string; error: unknown };
      return { type: 'adapter.failed' as const, id: type.slice(ERROR_PREFIX.length), error };
    }),
    /** A failed child has stopped; it leaves the chart's children (its systemId is free again). */
    forgetChild: enqueueActions(({ enqueue, event }) => enqueue.stopChild(event.type.slice(ERROR_PREFIX.length))),
  },
}).createMachine(sessionRouterChart);

/**
 * The chart as the session runs it, with one shortcut: `conn.frame` (one per frame received, the relay's hot path)
 * is taken as the chart's own transition for it (targetless, no guard, `forward`: emit the event) without XState's
 * macrostep; every other event goes through the chart. Same snapshot, same emitted event at the same point (after
 * the transition, in the actor's update); the inspection stream then has the event and the snapshot of a frame but
 * not its microstep and emit action (test/actors/sessionRouter.test.ts checks the shortcut against the chart).
 */
const transitionWithFrameShortcut: (typeof sessionRouterMachine)['transition'] = (snapshot, event, scope) => {
  if (event.type === 'conn.frame' && snapshot.status === 'active') {
    // As the chart's `forward`: the emit runs in the actor's update, after the transition.
    scope.defer(() => scope.emit(event));
    return snapshot;
  }
  return sessionRouterMachine.transition(snapshot, event, scope);
};

export const sessionRouterLogic: typeof sessionRouterMachine = Object.create(sessionRouterMachine, {
  transition: { value: transitionWithFrameShortcut },
});

export type SessionRouterActor = Actor<typeof sessionRouterMachine>;

type Report<T extends ConnectionReport['type']> = Extract<ConnectionReport, { type: T }>;

export interface SessionRouterDeps {
  clock: Clock;
  log: LogFn;
  /** The session's inspection observer, already guarded (HostPorts.inspect, PlayerPorts.inspect). */
  inspect?: InspectionObserver;
  /** A connection's frame, violation and close, in order; each handler supervises its own connection. */
  frame?(e: Report<'conn.frame'>): void;
  violation?(e: Report<'conn.violation'>): void;
  closed?(e: Report<'conn.closed'>): void;
  /** A connection's actor failed (a fault of ours): the session ends that connection. */
  connectionFailed?(conn: number, error: unknown): void;
  /** The chart failed (a fault of ours): nothing is routed any more. Default: logged. */
  failed?(error: unknown): void;
}

/** Where a file link's reports go (the bridge's handlers: the gate, the log, then the session). */
export interface GameLinkHandlers<N extends { type: string } = { type: string }, P = unknown> {
  line(line: GameLinkLine): void;
  notice(notice: N): void;
  problem(problem: P): void;
}

export interface SessionRouter {
  readonly actor: SessionRouterActor;
  /** The session's hold on `conn` (connectionActor.ts ConnectionHandle): take it before `accept`. */
  handle(conn: Connection): ConnectionHandle;
  /** Spawns `conn:<id>`: from now on the connection's frames, violations and close arrive as events. */
  accept(conn: Connection): void;
  /** The actor of a connection, while it runs. */
  connectionActor(id: number): ConnectionActorRef | undefined;
  /**
   * Runs a file link's adapter actor (`logic` with `input`, reporting GameLinkReport events) as the child `link`,
   * replacing one already attached; its reports go to `handlers`, each call guarded. Returns the detach function.
   */
  attachLink<N extends { type: string }, P>(logic: AnyActorLogic, input: unknown, handlers: GameLinkHandlers<N, P>): () => void;
}

/** `fn` of one argument, a throw logged as `internal error` (`guarded` without a rest array per call: the hot path). */
function guardedOne<A>(log: LogFn, what: string, fn: (arg: A) => void): (arg: A) => void {
  return (arg) => {
    try {
      fn(arg);
    } catch (err) {
      try {
        log({ msg: 'internal error', while: what, stack: stackOf(err) });
      } catch {
        // The log itself failed: nothing more to do here; the process goes on.
      }
    }
  };
}

/** Creates and starts a session's root actor. */
export function createSessionRouter(systemId: 'host' | 'player', deps: SessionRouterDeps): SessionRouter {
  const { log } = deps;
  const actor = createActor(sessionRouterLogic, {
    clock: deps.clock,
    systemId,
    ...(deps.inspect ? { inspect: deps.inspect } : {}),
  });
  const on = <A>(what: string, fn: (arg: A) => void) => guardedOne(log, `${systemId} ${what}`, fn);
  if (deps.frame) actor.on('conn.frame', on('conn.frame', deps.frame));
  if (deps.violation) actor.on('conn.violation', on('conn.violation', deps.violation));
  if (deps.closed) actor.on('conn.closed', on('conn.closed', deps.closed));
  let link: GameLinkHandlers | undefined;
  actor.on('link.line', on('link.line', (e) => link?.line(e.line)));
  actor.on('link.notice', on('link.notice', (e) => link?.notice(e.notice)));
  actor.on('link.problem', on('link.problem', (e) => link?.problem(e.problem)));
  actor.on(
    'adapter.failed',
    on('adapter.failed', (e) => {
      const conn = /^conn:(\d+)$/.exec(e.id);
      if (conn && deps.connectionFailed) return deps.connectionFailed(Number(conn[1]), e.error);
      log({ msg: 'internal error', while: e.id, stack: stackOf(e.error) });
    }),
  );
  actor.subscribe({
    error: guarded(log, `${systemId} error`, (err: unknown) => {
      if (deps.failed) deps.failed(err);
      else log({ msg: 'internal error', while: systemId, stack: stackOf(err) });
    }),
  });
  actor.start();

  const connectionActor = (id: number) => actor.system.get(connectionSystemId(id)) as ConnectionActorRef | undefined;
  return {
    actor,
    handle: (conn) => connectionHandle(conn, () => connectionActor(conn.id)),
    accept: (conn) => actor.send({ type: 'conn.accepted', conn }),
    connectionActor,
    attachLink: (logic, input, handlers) => {
      actor.send({ type: 'link.detach' });
      const mine = handlers as unknown as GameLinkHandlers;
      link = mine;
      actor.send({ type: 'link.attach', adapter: new AdapterSpec(LINK_ID, logic, input) });
      return () => {
        if (link !== mine) return;
        link = undefined;
        actor.send({ type: 'link.detach' });
      };
    },
  };
}
