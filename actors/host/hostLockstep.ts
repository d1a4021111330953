// The host's lockstep actor: runs the lockstep chart (machines/lockstep.ts) beside the HostSession. It feeds
// the chart the games' Hello, Clock, Action, SpeedRequest, BuildCommit and BuildVeto (with the vetoer's name) with
// the host's clock, the roster changes, the round trips and permissions, ticks it, and sends what the chart emits
// through the session's one ordered path per receiver (spec lockstep.md; wire-protocol.txt Session 11, PeerClock 12,
// Action 50, BuildVeto 52, BuildCommit 53).
//
// The actor (systemId `lockstep`) has children of its own: the pause order (`pauseOrder`) and one pacing chart
// per game (`pacing:<id>`). They report to it, and every wire message and log line still leaves through its
// `emit`, in order, so the listeners here are the only ones. `inspect` (the session's observer, e.g. the trace
// recorder) sees the lockstep actor and its children.
import { createActor, type Actor } from 'xstate';
import { lockstepMachine, sessionOf } from '../../machines/lockstep.ts';
import { lockstepLogic } from '../../machines/lockstepShortcut.ts';
import type { Speed } from '../../protocol/messages/index.ts';
import type { Clock, LogFn } from '../ports.ts';
import type { InspectionObserver } from './hostTypes.ts';
import type { HostSession } from './hostSession.ts';
import { guarded, stackOf } from '../supervise.ts';
import { reachWhenCut, stampRunPast } from './returnStamps.ts';

export interface HostLockstepOptions {
  /** How often the chart is ticked (stall checks, pause-order flushes), ms. */
  tickMs?: number;
  /** The speed the session starts at. */
  startSpeed?: Speed;
  clockIntervalMs?: number;
  /** False for a relay-only host: no game of its own to wait for at the start. */
  hostGame?: boolean;
  /** The lockstep chart failed (a fault of ours): the session cannot go on. */
  onFailure?: (err: unknown) => void;
}

export interface HostLockstep {
  readonly actor: Actor<typeof lockstepMachine>;
  start(): void;
  pause(): void;
  speed(speed: number): void;
  /** Why the host does not start yet, if it waits. */
  waiting(): string | undefined;
  /**
   * The resync round's view (actors/host/resync.ts): whether a game's Hello is the one after the round's load (it
   * then holds the session's world), and whether a round runs (a player's SpeedRequest is ignored then, logged).
   */
  useResync(view: { loads(from: number, save: string | undefined): boolean; running(): boolean }): void;
  /** The resync round: from Saving to the end of Loading the pause order stamps nothing. */
  holdStamps(held: boolean): void;
  /** The resync round: the Hellos of the load moved pauseAt (the furthest). */
  movePause(pauseAt: number): void;
  /**
   * Calls `listener` with a game's id when a game that came back (HostSession's `returned` notice, the lockstep's
   * `game.returned`) is caught up: in a started session, once its stall mark ends (its clock reached the host's
   * promise). Not called for a return before the start (nothing to catch up), nor when the game leaves again or
   * loads a save (a resync round's Hello) first. Returns the function that removes the listener.
   */
  onCaughtUp(listener: (id: number) => void): () => void;
  stop(): void;
}

export function attachLockstep(
  host: HostSession,
  ports: { clock: Clock; wallClock(): number; log: LogFn; inspect?: InspectionObserver },
  options: HostLockstepOptions = {},
): HostLockstep {
  const { clock, log } = ports;
  // A throw of the observer is logged, never passed to the actors (HostPorts.inspect).
  const inspect = ports.inspect && guarded(log, 'inspect', ports.inspect);
  // The chart with the shortcut for an ordinary Action or Clock (machines/lockstepShortcut.ts): the relay's hot path.
  const actor = createActor(lockstepLogic, {
    clock,
    systemId: 'lockstep',
    ...(inspect ? { inspect } : {}),
    input: {
      now: clock.now(),
      hostName: host.options.hostName,
      permissions: host.currentPermissions(),
      ...(options.startSpeed === undefined ? {} : { startSpeed: options.startSpeed }),
      ...(options.clockIntervalMs === undefined ? {} : { clockIntervalMs: options.clockIntervalMs }),
      ...(options.hostGame === undefined ? {} : { hostGame: options.hostGame }),
    },
  });
  let waitingReason: string | undefined;
  // Every listener is guarded: XState rethrows a listener's throw on a timer, which would end the process.
  const on = <T extends Parameters<typeof actor.on>[0]>(type: T, fn: Parameters<typeof actor.on<T>>[1]) =>
    actor.on(type, guarded(log, `lockstep ${type}`, fn as (e: unknown) => void));
  on('send.Session', (e) => host.broadcast('Session', e.payload));
  on('send.PeerClock', (e) => host.broadcast('PeerClock', e.payload, e.except));
  /** The furthest stamp relayed for the games to step to in a pause (a flush, a BuildCommit): returnStamps.ts. */
  let heldStampMax = Number.NEGATIVE_INFINITY;
  on('send.Action', (e) => {
    if (e.payload.pause === true && e.payload.stamp !== undefined) heldStampMax = Math.max(heldStampMax, e.payload.stamp);
    host.broadcast('Action', e.payload);
  });
  // A game's veto the host did not relay is answered to the vetoer alone (`late`); every other veto goes to all.
  on('send.BuildVeto', (e) => (e.to === 'all' ? host.broadcast('BuildVeto', e.payload) : host.sendTo(e.to, 'BuildVeto', e.payload)));
  on('send.BuildCommit', (e) => {
    heldStampMax = Math.max(heldStampMax, e.payload.stamp);
    host.broadcast('BuildCommit', e.payload);
  });
  on('out.waiting', (e) => {
    if (e.reason !== waitingReason) log({ msg: 'session start waits', reason: e.reason });
    waitingReason = e.reason;
  });
  on('out.log', ({ type: _type, ...entry }) => log(entry));
  const caughtUpListeners = new Set<(id: number) => void>();
  on('out.caughtUp', (e) => {
    host.caughtUp(e.id); // the returner's catch-up chart ends
    for (const listener of [...caughtUpListeners]) guarded(log, 'lockstep onCaughtUp', listener)(e.id);
  });
  // The chart failing is our bug, not a peer's: the session cannot go on without it (a child chart failing fails
  // it too). Logged with the stack; the launcher is told (onFailure) and ends the session with one clear line.
  actor.subscribe({
    error: (err) => {
      log({ msg: 'lockstep failed', stack: stackOf(err) });
      options.onFailure?.(err);
    },
  });

  let resync: { loads(from: number, save: string | undefined): boolean; running(): boolean } | undefined;
  /**
   * How each away player's game stood when it dropped (a returner comes back as it was), and how far it may run alone
   * (returnStamps.ts `reachWhenCut`): a returner that missed a stamp below it is reloaded, not caught up.
   */
  const departed = new Map<number, { ready: boolean; hasWorld: boolean; bound: number }>();
  host.lateForReturn = (id, missed) => {
    const before = departed.get(id);
    return before === undefined ? undefined : stampRunPast(id, missed, before.bound);
  };
  const off = host.on((n) => {
    const now = clock.now();
    switch (n.type) {
      case 'returned': {
        // As it stood when it dropped: a game not ready yet joins again (its Hello is to come); an outsider stays one.
        const before = departed.get(n.id);
        departed.delete(n.id);
        if (before !== undefined && !before.ready) actor.send({ type: 'game.joined', id: n.id, now });
        else actor.send({ type: 'game.returned', id: n.id, now, hasWorld: before?.hasWorld !== false });
        return;
      }
      case 'game': {
        const { message, from } = n;
        if (message.kind === 'Hello') {
          host.setReady(from, true);
          const loaded = resync?.loads(from, message.payload.save) === true;
          actor.send({ type: 'recv.Hello', from, payload: message.payload, now, ...(loaded ? { loaded } : {}) });
        } else if (message.kind === 'SpeedRequest' && resync?.running() === true) {
          return; // the resync round ignores it (and logs it)
        } else if (message.kind === 'Clock') actor.send({ type: 'recv.Clock', from, payload: message.payload, now, wall: ports.wallClock() });
        else if (message.kind === 'Action') actor.send({ type: 'recv.Action', from, payload: message.payload, now, wall: ports.wallClock() });
        else if (message.kind === 'SpeedRequest') actor.send({ type: 'recv.SpeedRequest', from, payload: message.payload, now });
        else if (message.kind === 'BuildCommit') actor.send({ type: 'recv.BuildCommit', from, payload: message.payload, now });
        else if (message.kind === 'BuildVeto') {
          const name = host.players().find((p) => p.id === from)?.name;
          actor.send({ type: 'recv.BuildVeto', from, payload: message.payload, now, ...(name === undefined ? {} : { name }) });
        }
        return;
      }
      case 'joined':
        actor.send({ type: 'game.joined', id: n.id, now });
        return;
      case 'left': {
        const { games, session } = actor.getSnapshot().context;
        const game = games[n.id];
        if (n.away && game !== undefined) {
          const bound = reachWhenCut(games, n.id, session.pauseAt, heldStampMax);
          departed.set(n.id, { ready: game.ready, hasWorld: game.hasWorld, bound });
        } else departed.delete(n.id);
        actor.send({ type: 'game.left', id: n.id, now });
        return;
      }
      case 'rtt': {
        const values = Object.entries(n.rtt).filter(([id]) => id !== '0').map(([, ms]) => ms);
        actor.send({ type: 'rtt.updated', maxRtt: values.length ? Math.max(...values) : 0, rtt: n.rtt, off: n.off, now });
        return;
      }
      case 'permissions':
        actor.send({ type: 'permissions.changed', permissions: n.permissions, now });
        return;
    }
  });
  host.useSessionSource(() => sessionOf(actor.getSnapshot().context));

  const tickMs = options.tickMs ?? 100;
  let timer: unknown;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    actor.send({ type: 'tick', now: clock.now() });
    timer = clock.setTimeout(tick, tickMs);
  };
  actor.start();
  timer = clock.setTimeout(tick, tickMs);

  return {
    actor,
    start: () => actor.send({ type: 'cmd.start', now: clock.now() }),
    pause: () => actor.send({ type: 'cmd.pause', now: clock.now() }),
    speed: (speed) => actor.send({ type: 'cmd.speed', speed, now: clock.now() }),
    waiting: () => (actor.getSnapshot().value === 'NotStarted' ? waitingReason : undefined),
    useResync: (view) => {
      resync = view;
    },
    holdStamps: (held) => actor.send({ type: 'resync.stamps', held, now: clock.now() }),
    movePause: (pauseAt) => actor.send({ type: 'resync.pauseAt', pauseAt, now: clock.now() }),
    onCaughtUp: (listener) => {
      caughtUpListeners.add(listener);
      return () => void caughtUpListeners.delete(listener);
    },
    stop: () => {
      stopped = true;
      caughtUpListeners.clear();
      clock.clearTimeout(timer);
      off();
      actor.stop();
    },
  };
}
