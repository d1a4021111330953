// The host's lockstep chart (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12, Clock 31, SpeedRequest
// 32, Action 50, BuildVeto 52, BuildCommit 53, Permissions; prior-projects §2.6 H1–H8, P1–P4): it keeps the games' clock lines,
// the stamps and the lead, relays clocks and actions in one order, starts the session once every ready game has a
// clock (a game at another time than the host game's starts as an outsider, for the resync round to load), pauses
// and changes speed. Time comes in the events (`now`: the host's clock in ms, from the actor's injected clock); no
// timers here.
//
// Two concerns are charts of their own, children of this actor (DESIGN.md "Actors"): the pause order
// (machines/pauseOrder.ts, systemId `pauseOrder`, invoked for the chart's whole life) and each game's pacing
// (machines/pacing.ts, systemId `pacing:<id>`, spawned when the game joins or returns, stopped when it leaves). They decide;
// this chart relays. Their reports come back as events (`pauseOrder.*`, `pacing.*`), and every wire message and log
// line still leaves through this actor's `emit`, in the order of the single chart it replaces: XState delivers an
// event sent to a child at once, and the child's report reaches this actor's mailbox before anything queued after
// it. Where this chart's own output must follow a child's (the Session of a start or an unpause after the flush,
// the Session and PeerClocks of a stall pass after every pacing chart's outcome, a stalled game's PeerClock after
// its pacing chart's decision), the chart sends itself a marker event after the child's (`session.announce`,
// `stall.settled`, `clock.relay`) and writes its output there.
import { and, assign, emit, enqueueActions, raise, setup } from 'xstate';
import type { ActorRef, Snapshot } from 'xstate';
import { joinGame, sessionPayloadOf, stalledIds, storeClock } from './rules/lockstep.ts';
import type { FlushedPauseAction } from './rules/lockstep.ts';
import { pacingId, pacingMachine } from './pacing.ts';
import type { PacingEvent, PacingReport } from './pacing.ts';
import { pauseOrderMachine } from './pauseOrder.ts';
import type { PauseOrderReport } from './pauseOrder.ts';
import type { LockstepContext } from './lockstepContext.ts';
import { clockRefusal, helloRefusal, stampRefusal } from './rules/screen.ts';
import * as steps from './rules/lockstepSteps.ts';
import type { Step } from './rules/lockstepSteps.ts';
import { gameList } from './rules/hostGames.ts';
import { SPEEDS } from './rules/lockstepTypes.ts';
import type {
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  HelloPayload,
  Hop,
  HostBuildVetoPayload,
  PeerClockPayload,
  PermissionsPayload,
  RelayedActionPayload,
  SessionPayload,
  Speed,
  SpeedRequestPayload,
} from './rules/lockstepTypes.ts';

export { DEFAULT_CLOCK_INTERVAL_MS } from './rules/lockstepSteps.ts';

export interface LockstepInput {
  /** The host's clock now (ms). */
  now?: number;
  clockIntervalMs?: number;
  /** The name on the host's own BuildVeto. */
  hostName?: string;
  /** The host runs a game of its own (player 0); false for a relay-only host, whose start waits for the players. */
  hostGame?: boolean;
  permissions?: Partial<PermissionsPayload>;
  /** The speed the session starts at (0: it starts paused). Default 1. */
  startSpeed?: Speed;
}

/**
 * Every event may carry `now`, the host's clock in ms (required on what comes from the network and on `tick`);
 * the chart keeps the latest. `wall` (ms since 1970) becomes the hop's `h`. `speed.requested` is internal: the
 * chart raises it from `cmd.pause`, a valid `cmd.speed` and an allowed SpeedRequest. The reports of its children
 * (`pauseOrder.*`, `pacing.*`) and its own markers (`session.announce`, `stall.settled`, `clock.relay`) are
 * internal too: nothing outside the actor sends them.
 */
export type LockstepEvent =
  /** loaded: the Hello after a resync round's load (the game now holds the session's world: no outsider). */
  | { type: 'recv.Hello'; from: number; payload: HelloPayload; now: number; loaded?: boolean }
  | { type: 'recv.Clock'; from: number; payload: ClockPayload; now: number; wall?: number }
  | { type: 'recv.Action'; from: number; payload: ActionPayload; now: number; wall?: number }
  | { type: 'recv.SpeedRequest'; from: number; payload: SpeedRequestPayload; now: number }
  /** A game's BuildCommit 53: judged like an Action's stamp, relayed to every game (rules/heldBuilds.ts). */
  | { type: 'recv.BuildCommit'; from: number; payload: BuildCommitPayload; now: number }
  /** A game's BuildVeto 52 of another game's held build; `name`: the vetoer's name, set by the host on relay. */
  | { type: 'recv.BuildVeto'; from: number; payload: BuildVetoPayload; now: number; name?: string }
  | { type: 'cmd.start'; now?: number }
  | { type: 'cmd.pause'; now?: number }
  | { type: 'cmd.speed'; speed: number; now?: number }
  | { type: 'game.joined'; id: number; now?: number }
  | { type: 'game.left'; id: number; now?: number }
  /**
   * A game that left (its connection dropped) came back within the reconnect window and is caught up: its game kept
   * its world and the host resends every message it missed (wire-protocol "Reconnect", "Catching up"). It is added
   * again ready with the session's world; in a started session it catches up as a stalled game (marked at once with
   * the host's promise, since now) until its clock reaches the promise (`out.caughtUp`).
   */
  /** hasWorld false: it was an outsider when it dropped and comes back one (default true). */
  | { type: 'game.returned'; id: number; now?: number; hasWorld?: boolean }
  /** maxRtt: the largest smoothed round trip (ms); rtt/off per player (ms) for the hop's sr/so. */
  | { type: 'rtt.updated'; maxRtt: number; rtt?: Record<number, number>; off?: Record<number, number>; now?: number }
  | { type: 'permissions.changed'; permissions: Partial<PermissionsPayload>; now?: number }
  | { type: 'tick'; now: number }
  /** The resync round (actors/host/resync.ts): from Saving to the end of Loading the pause order stamps nothing. */
  | { type: 'resync.stamps'; held: boolean; now?: number }
  /** The resync round: a Hello of the load moved pauseAt to the loaded world's time (the furthest). */
  | { type: 'resync.pauseAt'; pauseAt: number; now?: number }
  | { type: 'speed.requested'; speed: Speed; by: number | 'host' }
  | PauseOrderReport
  | PacingReport
  /** The Session of a start or an unpause, after what the pause order flushed (`replay`: every clock first). */
  | { type: 'session.announce'; replay: boolean; log: LogEntry }
  /** Every pacing chart has reported its part of the running tick's stall pass. */
  | { type: 'stall.settled' }
  /** A stalled game's clock, relayed once its pacing chart has decided whether it ends the mark. */
  | { type: 'clock.relay'; from: number; hop: Hop | undefined };

type LogEntry = { msg: string; [k: string]: unknown };

/** What the actor sends, in the order the receivers must see it (one ordered path per receiver). */
export type LockstepEmitted =
  | { type: 'send.Session'; to: 'all'; payload: SessionPayload }
  | { type: 'send.PeerClock'; to: 'allBut'; except: number; payload: PeerClockPayload }
  /** Every Action goes to every game, its origin included: a game applies its own only on the host's copy. */
  | { type: 'send.Action'; to: 'all'; payload: RelayedActionPayload | FlushedPauseAction }
  | { type: 'send.BuildVeto'; to: 'all'; payload: HostBuildVetoPayload }
  /**
   * A game's veto of another's held build, with from and name: to every game, the vetoer included (it learns that its
   * veto decided: a parked build stays parked on the vetoer until then; rules/heldBuilds.ts).
   */
  | { type: 'send.BuildVeto'; to: 'all'; payload: BuildVetoPayload }
  /**
   * The host's answer to a game's veto it did not relay (`late: true`), to the vetoer alone: too late, the vetoer
   * applies the build at its stamp (rules/lockstepSteps.ts `onGameVetoRefused`).
   */
  | { type: 'send.BuildVeto'; to: number; payload: BuildVetoPayload & { late: true } }
  /** A BuildCommit: to every game, its origin included (it applies its own build only on the host's copy). */
  | { type: 'send.BuildCommit'; to: 'all'; payload: BuildCommitPayload }
  | { type: 'out.waiting'; reason: string }
  /** A game that came back (`game.returned`) reached the host's promise: its stall mark ended, it is caught up. */
  | { type: 'out.caughtUp'; id: number }
  | { type: 'out.log'; msg: string; [k: string]: unknown };

export type { LockstepContext, LockstepSession } from './lockstepContext.ts';

/** The Session the host would broadcast now (also for Welcome.session). */
export function sessionOf(context: LockstepContext): SessionPayload {
  return sessionPayloadOf(context.session, stalledIds(context.games));
}

type RecvParams<P> = { from: number; payload: P; wall?: number | undefined };
type Self = ActorRef<Snapshot<unknown>, LockstepEvent>;
type System = { get(systemId: string): ActorRef<Snapshot<unknown>, never> | undefined };

/** A game's pacing actor, if it runs (it always does for a game of the session; not in a graph traversal). */
const pacingOf = (system: System, id: number) =>
  system.get(pacingId(id)) as ActorRef<Snapshot<unknown>, PacingEvent> | undefined;

export const lockstepMachine = setup({
  types: {
    input: {} as LockstepInput,
    context: {} as LockstepContext,
    events: {} as LockstepEvent,
    emitted: {} as LockstepEmitted,
  },
  actors: { pauseOrder: pauseOrderMachine, pacing: pacingMachine },
  guards: {
    startRequested: ({ context }) => context.startRequested,
    mayStart: ({ context }) => steps.startCheckOf(context).ok,
    startsPaused: ({ context }) => context.session.startSpeed === 0,
    waitingReasonChanged: ({ context }) => {
      const check = steps.startCheckOf(context);
      return context.startRequested && !check.ok && check.waiting !== context.waiting;
    },
    validSpeed: (_, p: { speed: number }) => (SPEEDS as readonly number[]).includes(p.speed),
    speedForbidden: ({ context }, p: { from: number }) => !steps.speedAllowed(context, p.from),
    requestsPause: (_, p: { speed: Speed }) => p.speed === 0,
    requestsSpeedInForce: ({ context }, p: { speed: Speed }) => p.speed === context.session.speed,
    requestsStartSpeed: ({ context }, p: { speed: Speed }) => p.speed === context.session.startSpeed,
    fromStranger: ({ context }, p: { from: number }) => context.games[p.from]?.ready !== true,
    fromOutsider: ({ context }, p: { from: number }) => context.games[p.from]?.hasWorld === false,
    isPauseAction: (_, p: { payload: ActionPayload }) => p.payload.pause === true,
    hasNoStamp: (_, p: { payload: ActionPayload }) => p.payload.stamp === undefined,
    helloRefused: (_, p: { payload: HelloPayload }) => helloRefusal(p.payload) !== undefined,
    clockRefused: (_, p: { payload: ClockPayload }) => clockRefusal(p.payload) !== undefined,
    stampRefused: ({ context }, p: { from: number; payload: ActionPayload }) =>
      stampRefusal(context.games[p.from], p.payload) !== undefined,
    replaysClocks: (_, p: { replay: boolean }) => p.replay,
    parkedInRound: ({ context }, p: { payload: ActionPayload }) => steps.parkedInRound(context, p.payload),
    commitNotOwner: (_, p: { from: number; payload: BuildCommitPayload }) => p.payload.owner !== p.from,
    commitBelowStallPromise: ({ context }, p: { from: number; payload: BuildCommitPayload }) => {
      const mark = context.games[p.from]?.stalled;
      return mark !== undefined && p.payload.stamp < mark.promise;
    },
    commitStampRefused: ({ context }, p: { from: number; payload: BuildCommitPayload }) =>
      stampRefusal(context.games[p.from], steps.commitAsStamped(p.payload)) !== undefined,
    commitUnbooked: ({ context }, p: { payload: BuildCommitPayload }) => steps.commitUnbooked(context, p.payload) !== undefined,
    gameVetoRefused: ({ context }, p: { from: number; payload: BuildVetoPayload }) =>
      steps.gameVetoRefusal(context, p.from, p.payload) !== undefined,
    belowStallPromise: ({ context }, p: { from: number; payload: ActionPayload }) => {
      const mark = context.games[p.from]?.stalled;
      return mark !== undefined && (p.payload.stamp ?? 0) < mark.promise;
    },
  },
  actions: {
    observeNow: assign({
      now: ({ context, event }) =>
        'now' in event && typeof event.now === 'number' ? Math.max(context.now, event.now) : context.now,
    }),
    emitSession: emit(({ context }) => steps.sessionOut(context)),
    // At the start every game must already pace itself to every other (the mod paces only to peers it has a
    // PeerClock from): the latest clock of each game goes out again before the Session that starts them.
    replayClocks: enqueueActions(({ context, enqueue }) => {
      for (const event of steps.latestPeerClocks(context)) enqueue.emit(event);
    }),
    log: emit((_, p: { msg: string; [k: string]: unknown }) => ({ type: 'out.log' as const, ...p })),
    logOnce: enqueueActions(({ context, enqueue }, p: { key: string; msg: string; from: number }) => {
      const { key, ...entry } = p;
      apply(enqueue, steps.logOnce(context, key, entry));
    }),
    // A joining game gets its pacing actor. Its systemId is free in a session (a game leaves before it joins
    // again, and leaving stops the actor); xstate/graph traverses every branch in one mock system, hence the check.
    addGame: enqueueActions(({ context, enqueue, self, system }, p: { id: number }) => {
      if (context.games[p.id] !== undefined) return;
      if (system.get(pacingId(p.id)) === undefined) {
        const input = { id: p.id, parent: self as Self };
        enqueue.spawnChild('pacing', { id: pacingId(p.id), systemId: pacingId(p.id), input });
      }
      enqueue.assign({ games: joinGame(context.games, p.id, context.session.started, context.now) });
    }),
    // A game that came back: its pacing actor again (or the one it still has), told its mark (none before the start).
    returnGame: enqueueActions(({ context, enqueue, self, system }, p: { id: number; hasWorld: boolean }) => {
      if (p.id === 0) return;
      const back = steps.onReturn(context, p.id, p.hasWorld);
      let pacing: ActorRef<Snapshot<unknown>, PacingEvent> | string | undefined = pacingOf(system, p.id);
      if (pacing === undefined) {
        const input = { id: p.id, parent: self as Self };
        enqueue.spawnChild('pacing', { id: pacingId(p.id), systemId: pacingId(p.id), input });
        pacing = pacingId(p.id); // the child spawned just now, by its id
      }
      apply(enqueue, back);
      // An outsider comes back an outsider (its world is still not the session's): its pacing says so, as at a Hello.
      const event: PacingEvent = !p.hasWorld
        ? { type: 'hello', hasWorld: false }
        : back.mark === undefined
          ? { type: 'returned' }
          : { type: 'returned', mark: back.mark };
      enqueue.sendTo(pacing, event);
    }),
    spawnHostPacing: enqueueActions(({ enqueue, self, system }) => {
      if (system.get(pacingId(0)) !== undefined) return;
      enqueue.spawnChild('pacing', { id: pacingId(0), systemId: pacingId(0), input: { id: 0, parent: self as Self } });
    }),
    removeGame: enqueueActions(({ context, enqueue }, p: { id: number }) => {
      const leaving = p.id !== 0 && context.games[p.id] !== undefined;
      apply(enqueue, steps.onLeave(context, p.id));
      if (leaving) enqueue.stopChild(pacingId(p.id));
    }),
    recordRtt: assign((_, p: Extract<LockstepEvent, { type: 'rtt.updated' }>) => ({
      maxRtt: p.maxRtt,
      ...(p.rtt ? { rtt: p.rtt } : {}),
      ...(p.off ? { off: p.off } : {}),
    })),
    recomputeLead: assign({ session: ({ context }) => ({ ...context.session, lead: steps.recomputedLead(context) }) }),
    announceLead: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.announceLead(context))),
    setPermissions: assign({ permissions: (_, p: { permissions: Partial<PermissionsPayload> }) => p.permissions }),
    takeHello: enqueueActions(({ context, enqueue, system }, p: RecvParams<HelloPayload> & { loaded?: boolean | undefined }) => {
      const hello = steps.onHello(context, p.from, p.payload, p.loaded === true);
      apply(enqueue, hello);
      const game = hello.patch.games?.[p.from];
      const pacing = pacingOf(system, p.from);
      if (game !== undefined && pacing !== undefined) enqueue.sendTo(pacing, { type: 'hello', hasWorld: game.hasWorld });
    }),
    // A stalled game's clock goes to its pacing chart first (it may end the mark, with a Session before the
    // PeerClock); the relay follows at the marker. Every other clock is relayed at once.
    takeClock: enqueueActions(({ context, enqueue, self, system }, p: RecvParams<ClockPayload>) => {
      if (!steps.pacingDecidesClock(context, p.from)) return apply(enqueue, steps.onClock(context, p.from, p.payload, p.wall));
      enqueue.assign({ games: storeClock(context.games, p.from, p.payload, context.now) });
      const pacing = pacingOf(system, p.from);
      if (pacing !== undefined) enqueue.sendTo(pacing, { type: 'clock', t: p.payload.t });
      const hop = steps.hopFor(context, p.from, p.payload.hop, p.wall);
      enqueue.sendTo(self, { type: 'clock.relay', from: p.from, hop });
    }),
    relayClock: enqueueActions(({ context, enqueue }, p: { from: number; hop: Hop | undefined }) =>
      apply(enqueue, steps.relayClock(context, p.from, p.hop)),
    ),
    relayAction: enqueueActions(({ context, enqueue }, p: RecvParams<ActionPayload>) =>
      apply(enqueue, steps.relayStep(context, p.from, p.payload, p.wall)),
    ),
    relayBuildCommit: enqueueActions(({ context, enqueue }, p: RecvParams<BuildCommitPayload>) =>
      apply(enqueue, steps.onBuildCommit(context, p.from, p.payload)),
    ),
    refuseBuild: enqueueActions(({ context, enqueue }, p: { owner: number; seq: number; why: string }) =>
      apply(enqueue, steps.onBuildRefused(context, p.owner, p.seq, p.why)),
    ),
    relayGameVeto: enqueueActions(({ context, enqueue }, p: RecvParams<BuildVetoPayload> & { name?: string | undefined }) =>
      apply(enqueue, steps.onGameVeto(context, p.from, p.payload, p.name ?? `player ${p.from}`)),
    ),
    refuseGameVeto: enqueueActions(({ context, enqueue }, p: RecvParams<BuildVetoPayload> & { name?: string | undefined }) =>
      apply(enqueue, steps.onGameVetoRefused(context, p.from, p.payload, steps.gameVetoRefusal(context, p.from, p.payload)!, p.name ?? `player ${p.from}`)),
    ),
    dropBuildMessage: enqueueActions(
      ({ context, enqueue }, p: { kind: 'BuildVeto' | 'BuildCommit'; from: number; payload: { owner: number; seq: number }; why: string }) =>
        apply(enqueue, steps.onBuildMessageDropped(context, p.kind, p.from, p.payload, p.why)),
    ),
    expireBuilds: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.expireBuilds(context))),
    // A pause action goes to the pause order (numbered, held, flushed at once while running) unless it would not
    // fit a frame once flushed.
    holdPause: enqueueActions(({ context, enqueue }, p: RecvParams<ActionPayload>) => {
      const made = steps.pauseActionOf(context, p.from, p.payload, p.wall);
      if ('refused' in made) return apply(enqueue, made.refused);
      enqueue.sendTo('pauseOrder', { type: 'hold', ...made.hold, stamp: steps.runningStamp(context) });
    }),
    vetoAction: enqueueActions(({ context, enqueue }, p: { from: number; seq: number; why: string }) =>
      apply(enqueue, steps.onVeto(context, p.from, p.seq, p.why)),
    ),
    logHeld: enqueueActions(({ enqueue }, p: { from: number; seq: number; pauseSeq: number }) =>
      apply(enqueue, steps.onHeld(p.from, p.seq, p.pauseSeq)),
    ),
    relayFlush: enqueueActions(({ context, enqueue }, p: { items: FlushedPauseAction[]; stamp: number }) =>
      apply(enqueue, steps.onFlushed(context, p.items, p.stamp)),
    ),
    pauseOrderRuns: enqueueActions(({ context, enqueue }) =>
      enqueue.sendTo('pauseOrder', { type: 'session.running', furthest: steps.runningStamp(context) }),
    ),
    pauseOrderResumes: enqueueActions(({ context, enqueue }) =>
      enqueue.sendTo('pauseOrder', { type: 'session.running', furthest: steps.resumeStamp(context) }),
    ),
    pauseOrderPauses: enqueueActions(({ enqueue }) => enqueue.sendTo('pauseOrder', { type: 'session.paused' })),
    tickPauseOrder: enqueueActions(({ context, enqueue }) => {
      if (context.stampsHeld === true) return; // a resync round: the stops describe the world being replaced
      enqueue.sendTo('pauseOrder', { type: 'tick', ...steps.pauseViewOf(context) });
    }),
    // Entering a round's Saving: the parked builds still open are refused on every game first (lockstepSteps.ts).
    holdStamps: enqueueActions(({ context, enqueue }, p: { held: boolean }) => {
      if (p.held && context.stampsHeld !== true) apply(enqueue, steps.closeParkedBuilds(context));
      enqueue.assign({ stampsHeld: p.held });
    }),
    movePause: assign(({ context }, p: { pauseAt: number }) =>
      context.session.pauseAt === undefined ? {} : { session: { ...context.session, pauseAt: p.pauseAt } },
    ),
    /** After the pause order's flush: the Session (every clock first at a start) and its log line. */
    announce: enqueueActions(({ enqueue, self }, p: { replay: boolean; log: LogEntry }) =>
      enqueue.sendTo(self as Self, { type: 'session.announce', ...p }),
    ),
    dropSpeedRequest: enqueueActions(({ context, enqueue }, p: { from: number; speed: number }) =>
      apply(enqueue, steps.onForbiddenSpeed(context, p.from, p.speed)),
    ),
    requestSpeed: raise((_, p: { speed: Speed; by: number | 'host' }) => ({ type: 'speed.requested' as const, ...p })),
    requestStart: assign({ startRequested: true, waiting: undefined }),
    reportWaiting: enqueueActions(({ context, enqueue }) => {
      const check = steps.startCheckOf(context);
      if (check.ok) return;
      enqueue.assign({ waiting: check.waiting });
      enqueue.emit({ type: 'out.waiting', reason: check.waiting });
    }),
    setStartSpeed: assign({
      session: ({ context }, p: { speed: Speed }) => ({ ...context.session, startSpeed: p.speed }),
    }),
    startRunning: assign(({ context }) => steps.startRunning(context)),
    startPaused: assign(({ context }) => steps.startPaused(context)),
    // The games that stand at another time than the host's game start as outsiders; their pacing charts are told.
    markStartOutsiders: enqueueActions(({ context, enqueue, system }) => {
      const { patch, outsiders } = steps.markStartOutsiders(context);
      if (outsiders.length === 0) return;
      enqueue.assign(patch);
      for (const id of outsiders) {
        const pacing = pacingOf(system, id);
        if (pacing !== undefined) enqueue.sendTo(pacing, { type: 'hello', hasWorld: false });
      }
    }),
    enterRunning: assign(({ context }) => steps.enterRunning(context)),
    pauseSession: assign(({ context }) => steps.pauseSession(context)),
    setSpeed: assign(({ context }, p: { speed: Speed }) => steps.setSpeed(context, p.speed as Exclude<Speed, 0>)),
    // A running tick: every game's pacing chart gets the lockstep's view and reports its part of the stall pass;
    // the marker after them writes the pass out.
    tickPacing: enqueueActions(({ context, enqueue, self, system }) => {
      enqueue.assign({ stallPass: steps.NO_STALL_PASS });
      const games = gameList(context.games);
      const tick = { type: 'tick' as const, now: context.now, lead: context.session.lead, games };
      for (const game of games) {
        const pacing = pacingOf(system, game.id);
        if (pacing !== undefined) enqueue.sendTo(pacing, tick);
      }
      enqueue.sendTo(self as Self, { type: 'stall.settled' });
    }),
    noteStall: assign(({ context }, p: steps.StallReport) => steps.onStallReport(context, p)),
    settleStalls: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.settleStalls(context))),
    takeReached: enqueueActions(({ context, enqueue }, p: { id: number; t: number }) =>
      apply(enqueue, steps.onReached(context, p.id, p.t)),
    ),
    /** A child chart failed: a fault of ours; the lockstep fails with it (the actor layer ends the session). */
    childFailed: ({ event }) => {
      throw (event as { error?: unknown }).error ?? new Error(`a child of the lockstep failed (${event.type})`);
    },
  },
}).createMachine({
  id: 'lockstep',
  context: ({ input }) => steps.createLockstepContext(input),
  invoke: { src: 'pauseOrder', id: 'pauseOrder', systemId: 'pauseOrder', input: ({ self }) => ({ parent: self as Self }) },
  entry: 'spawnHostPacing',
  initial: 'NotStarted',
  on: {
    'pauseOrder.held': { actions: { type: 'logHeld', params: ({ event }) => event } },
    'pauseOrder.refused': { actions: { type: 'vetoAction', params: ({ event }) => event } },
    'pauseOrder.flushed': { actions: { type: 'relayFlush', params: ({ event }) => event } },
    'pacing.ended': { actions: { type: 'noteStall', params: ({ event }) => ({ change: 'cleared', id: event.id }) } },
    'pacing.stalled': {
      actions: { type: 'noteStall', params: ({ event }) => ({ change: 'marked', id: event.id, mark: event.mark }) },
    },
    'pacing.raised': {
      actions: { type: 'noteStall', params: ({ event }) => ({ change: 'raised', id: event.id, promise: event.promise }) },
    },
    'pacing.reached': { actions: { type: 'takeReached', params: ({ event }) => event } },
    'stall.settled': { actions: 'settleStalls' },
    'clock.relay': { actions: { type: 'relayClock', params: ({ event }) => event } },
    'session.announce': [
      {
        guard: { type: 'replaysClocks', params: ({ event }) => event },
        actions: ['replayClocks', 'emitSession', { type: 'log', params: ({ event }) => event.log }],
      },
      { actions: ['emitSession', { type: 'log', params: ({ event }) => event.log }] },
    ],
    'xstate.error.actor.*': { actions: 'childFailed' },
    'resync.stamps': { actions: ['observeNow', { type: 'holdStamps', params: ({ event }) => event }] },
    'resync.pauseAt': { actions: ['observeNow', { type: 'movePause', params: ({ event }) => event }] },
    'game.joined': { actions: ['observeNow', { type: 'addGame', params: ({ event }) => ({ id: event.id }) }] },
    'game.left': { actions: ['observeNow', { type: 'removeGame', params: ({ event }) => ({ id: event.id }) }] },
    'game.returned': {
      actions: ['observeNow', { type: 'returnGame', params: ({ event }) => ({ id: event.id, hasWorld: event.hasWorld !== false }) }],
    },
    'rtt.updated': { actions: ['observeNow', { type: 'recordRtt', params: ({ event }) => event }, 'announceLead'] },
    'permissions.changed': {
      actions: ['observeNow', { type: 'setPermissions', params: ({ event }) => ({ permissions: event.permissions }) }],
    },
    'recv.Hello': [
      {
        guard: { type: 'helloRefused', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'logOnce',
            params: ({ event }) => ({
              key: `hello-refused:${event.from}`,
              msg: 'hello refused: time out of range',
              from: event.from,
              why: helloRefusal(event.payload),
            }),
          },
        ],
      },
      { actions: ['observeNow', { type: 'takeHello', params: ({ event }) => event }] },
    ],
    'recv.Clock': [
      {
        guard: { type: 'clockRefused', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'logOnce',
            params: ({ event }) => ({
              key: `clock-refused:${event.from}`,
              msg: 'clock refused: time out of range',
              from: event.from,
              why: clockRefusal(event.payload),
            }),
          },
        ],
      },
      { actions: ['observeNow', { type: 'takeClock', params: ({ event }) => event }] },
    ],
    'recv.Action': [
      // Refused with a veto, never just dropped: the originator applies its own action only on the host's copy, so it
      // would wait at the stamp for a copy that never comes.
      {
        guard: { type: 'fromStranger', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'logOnce',
            params: ({ event }) => ({
              key: `action-unready:${event.from}`,
              msg: 'action from a game not ready refused',
              from: event.from,
            }),
          },
          { type: 'vetoAction', params: ({ event }) => veto(event, 'the game is not ready') },
        ],
      },
      {
        guard: { type: 'fromOutsider', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'vetoAction', params: ({ event }) => veto(event, "the game's world is not the session's yet") },
        ],
      },
      {
        guard: { type: 'isPauseAction', params: ({ event }) => event },
        actions: ['observeNow', { type: 'holdPause', params: ({ event }) => event }],
      },
      {
        guard: { type: 'hasNoStamp', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'log',
            params: ({ event }) => ({
              msg: 'action without a stamp refused',
              from: event.from,
              seq: event.payload.seq,
            }),
          },
          { type: 'vetoAction', params: ({ event }) => veto(event, 'the action has no stamp') },
        ],
      },
      {
        guard: { type: 'belowStallPromise', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'vetoAction',
            params: ({ event }) => veto(event, 'stamped below the host promise for the stalled game'),
          },
        ],
      },
      {
        guard: { type: 'parkedInRound', params: ({ event }) => event },
        actions: ['observeNow', { type: 'vetoAction', params: ({ event }) => veto(event, steps.RESYNC_PARKED_WHY) }],
      },
      {
        guard: { type: 'stampRefused', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'vetoAction',
            params: ({ context, event }) => veto(event, stampRefusal(context.games[event.from], event.payload)!),
          },
        ],
      },
      { actions: ['observeNow', { type: 'relayAction', params: ({ event }) => event }] },
    ],
    'recv.BuildCommit': [
      // A commit names its own build only: one naming another game's build is dropped (no veto: it cannot cancel it).
      {
        guard: { type: 'commitNotOwner', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'dropBuildMessage',
            params: ({ event }) => ({ kind: 'BuildCommit' as const, from: event.from, payload: event.payload, why: 'not its own build' }),
          },
        ],
      },
      // Refused with the host's veto on every game, never just dropped: the originator holds its command until then.
      {
        guard: { type: 'fromStranger', params: ({ event }) => event },
        actions: ['observeNow', { type: 'refuseBuild', params: ({ event }) => commitVeto(event, 'the game is not ready') }],
      },
      {
        guard: { type: 'fromOutsider', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'refuseBuild', params: ({ event }) => commitVeto(event, "the game's world is not the session's yet") },
        ],
      },
      {
        guard: { type: 'commitBelowStallPromise', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'refuseBuild', params: ({ event }) => commitVeto(event, 'stamped below the host promise for the stalled game') },
        ],
      },
      {
        guard: { type: 'commitStampRefused', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'refuseBuild',
            params: ({ context, event }) =>
              commitVeto(event, stampRefusal(context.games[event.from], steps.commitAsStamped(event.payload))!),
          },
        ],
      },
      {
        guard: { type: 'commitUnbooked', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'refuseBuild', params: ({ context, event }) => commitVeto(event, steps.commitUnbooked(context, event.payload)!) },
        ],
      },
      { actions: ['observeNow', { type: 'relayBuildCommit', params: ({ event }) => event }] },
    ],
    'recv.BuildVeto': [
      {
        // Not relayed: logged, and answered to the vetoer alone as late (it applies the build at its stamp).
        guard: { type: 'gameVetoRefused', params: ({ event }) => event },
        actions: ['observeNow', { type: 'refuseGameVeto', params: ({ event }) => event }],
      },
      { actions: ['observeNow', { type: 'relayGameVeto', params: ({ event }) => event }] },
    ],
    'recv.SpeedRequest': [
      {
        guard: { type: 'speedForbidden', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'dropSpeedRequest', params: ({ event }) => ({ from: event.from, speed: event.payload.speed }) },
        ],
      },
      {
        actions: [
          'observeNow',
          { type: 'requestSpeed', params: ({ event }) => ({ speed: event.payload.speed, by: event.from }) },
        ],
      },
    ],
    'cmd.pause': { actions: ['observeNow', { type: 'requestSpeed', params: { speed: 0, by: 'host' } }] },
    'cmd.speed': [
      {
        guard: { type: 'validSpeed', params: ({ event }) => event },
        actions: [
          'observeNow',
          { type: 'requestSpeed', params: ({ event }) => ({ speed: event.speed as Speed, by: 'host' as const }) },
        ],
      },
      {
        actions: [
          'observeNow',
          { type: 'log', params: ({ event }) => ({ msg: 'speed refused: not 0, 1, 2 or 4', speed: event.speed }) },
        ],
      },
    ],
    'cmd.start': {
      actions: ['observeNow', { type: 'log', params: { msg: 'start ignored: the session has started' } }],
    },
    tick: { actions: 'observeNow' },
  },
  states: {
    NotStarted: {
      description:
        'Waits for cmd.start, then for the host game and every ready game to report a clock since its Hello ' +
        '(out.waiting says why not). A game at another time than the host game’s starts as an outsider ' +
        '(context.startApart; the resync round copies the host’s world to it); a relay-only host waits until every ' +
        'game stands at one time.',
      always: [
        {
          guard: and(['startRequested', 'mayStart', 'startsPaused']),
          target: 'Paused',
          actions: [
            'markStartOutsiders',
            'startPaused',
            'pauseOrderPauses',
            'replayClocks',
            'emitSession',
            { type: 'log', params: ({ context }) => steps.startLog(context, 'session started paused') },
          ],
        },
        {
          guard: and(['startRequested', 'mayStart']),
          target: 'Running',
          actions: [
            'markStartOutsiders',
            'startRunning',
            'recomputeLead',
            'pauseOrderRuns',
            { type: 'announce', params: ({ context }) => ({ replay: true, log: steps.startLog(context, 'session started') }) },
          ],
        },
        { guard: 'waitingReasonChanged', actions: 'reportWaiting' },
      ],
      on: {
        'cmd.start': { actions: ['observeNow', 'requestStart'] },
        'speed.requested': [
          { guard: { type: 'requestsStartSpeed', params: ({ event }) => event } },
          {
            actions: [
              { type: 'setStartSpeed', params: ({ event }) => event },
              'recomputeLead',
              { type: 'log', params: ({ event }) => ({ msg: 'start speed set', speed: event.speed, by: event.by }) },
            ],
          },
        ],
      },
    },
    Running: {
      description:
        'The games run at the session speed: waits for a pause or a speed (cmd.pause, cmd.speed, an allowed ' +
        'SpeedRequest). Each tick gives every game’s pacing chart the view it applies the stall rule to.',
      entry: 'enterRunning',
      on: {
        'speed.requested': [
          {
            guard: { type: 'requestsPause', params: ({ event }) => event },
            target: 'Paused',
            actions: [
              'pauseSession',
              'pauseOrderPauses',
              'emitSession',
              {
                type: 'log',
                params: ({ context, event }) => ({
                  msg: 'session paused',
                  pauseAt: context.session.pauseAt,
                  by: event.by,
                }),
              },
            ],
          },
          { guard: { type: 'requestsSpeedInForce', params: ({ event }) => event } },
          {
            actions: [
              { type: 'setSpeed', params: ({ event }) => event },
              'emitSession',
              { type: 'log', params: ({ event }) => ({ msg: 'speed changed', speed: event.speed, by: event.by }) },
            ],
          },
        ],
        tick: { actions: ['observeNow', 'expireBuilds', 'tickPacing'] },
      },
    },
    Paused: {
      description:
        'Every game runs to pauseAt and stands still: waits for a speed (cmd.speed, an allowed SpeedRequest). Each ' +
        'tick gives the pause order every game’s stop; it flushes what it holds once every ready pacing game stopped.',
      on: {
        'speed.requested': [
          { guard: { type: 'requestsPause', params: ({ event }) => event } },
          {
            target: 'Running',
            actions: [
              'pauseOrderResumes',
              { type: 'setSpeed', params: ({ event }) => event },
              {
                type: 'announce',
                params: ({ event }) => ({ replay: false, log: { msg: 'session resumed', speed: event.speed, by: event.by } }),
              },
            ],
          },
        ],
        tick: { actions: ['observeNow', 'expireBuilds', 'tickPauseOrder'] },
      },
    },
  },
});

/** Applies a step from machines/rules/lockstepSteps.ts: its context patch, then its outputs in order. */
function apply(
  enqueue: { assign(patch: Partial<LockstepContext>): void; emit(event: LockstepEmitted): void },
  { patch, out }: Step,
): void {
  if (Object.keys(patch).length > 0) enqueue.assign(patch);
  for (const event of out) enqueue.emit(event);
}

/** The host's refusal of a BuildCommit: its build (owner:seq) is refused on every game. */
function commitVeto(event: { payload: BuildCommitPayload }, why: string) {
  return { owner: event.payload.owner, seq: event.payload.seq, why };
}

function veto(event: { from: number; payload: ActionPayload }, why: string) {
  return { from: event.from, seq: event.payload.seq, why };
}
