// The host lockstep chart's actions (machines/lockstep.ts names them in `setup`; spec/lockstep.md; wire-protocol.txt
// Session 11, PeerClock 12, Clock 31, SpeedRequest 32, Action 50, BuildVeto 52, BuildCommit 53): each is one line
// around a step of rules/lockstepSteps.ts (its context patch, then its outputs in order: `apply`), or tells a child
// chart what it decides on: the pause order (`pauseOrder`) and each game's pacing (`pacing:<id>`, spawned when the
// game joins or returns, stopped when it leaves), or sends the chart its own marker (`session.announce`,
// `stall.settled`, `clock.relay`) so that its output follows the child's. Time comes in the events; no timers here.
import * as x from 'xstate';
import type { ActorRef, ParameterizedObject, Snapshot } from 'xstate';
import { joinGame, storeClock } from './rules/lockstep.ts';
import type { FlushedPauseAction } from './rules/lockstep.ts';
import { pacingId } from './pacing.ts';
import type { PacingEvent, pacingMachine } from './pacing.ts';
import type { pauseOrderMachine } from './pauseOrder.ts';
import type { LockstepContext } from './lockstepContext.ts';
import type { LockstepEmitted, LockstepEvent, LockstepSelf as Self, LogEntry } from './lockstepEvents.ts';
import * as steps from './rules/lockstepSteps.ts';
import type { Step } from './rules/lockstepSteps.ts';
import { gameList } from './rules/hostGames.ts';
import type {
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  HelloPayload,
  Hop,
  PermissionsPayload,
  Speed,
} from './rules/lockstepTypes.ts';

type RecvParams<P> = { from: number; payload: P; wall?: number | undefined };
type System = { get(systemId: string): ActorRef<Snapshot<unknown>, never> | undefined };

/** A game's pacing actor, if it runs (it always does for a game of the session; not in a graph traversal). */
const pacingOf = (system: System, id: number) =>
  system.get(pacingId(id)) as ActorRef<Snapshot<unknown>, PacingEvent> | undefined;

// XState's action creators, typed for the lockstep chart as `setup` would type them inline (its context, events,
// children and emitted events); each returns what XState's own does.
type Ctx = LockstepContext;
type Ev = LockstepEvent;
type Params = ParameterizedObject['params'] | undefined;
type Children =
  | { src: 'pauseOrder'; logic: typeof pauseOrderMachine; id: string | undefined }
  | { src: 'pacing'; logic: typeof pacingMachine; id: string | undefined };
const assign = <P extends Params = undefined>(a: Parameters<typeof x.assign<Ctx, Ev, P, Ev, Children>>[0]) =>
  x.assign<Ctx, Ev, P, Ev, Children>(a);
const emit = <P extends Params = undefined>(e: Parameters<typeof x.emit<Ctx, Ev, P, Ev, LockstepEmitted>>[0]) =>
  x.emit<Ctx, Ev, P, Ev, LockstepEmitted>(e);
const raise = <P extends Params = undefined>(e: Parameters<typeof x.raise<Ctx, Ev, Ev, P>>[0]) => x.raise<Ctx, Ev, Ev, P>(e);
const enqueueActions = <P extends Params = undefined>(
  collect: Parameters<typeof x.enqueueActions<Ctx, Ev, P, Ev, Children, never, never, never, LockstepEmitted>>[0],
) => x.enqueueActions<Ctx, Ev, P, Ev, Children, never, never, never, LockstepEmitted>(collect);

export const lockstepActions = {
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
    enqueue.assign({ games: storeClock(context.games, p.from, p.payload, context.now, context.session) });
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
  // A Hello of a resync load moved pauseAt: the pause order is told (it drops the old world's floor).
  movePause: enqueueActions(({ context, enqueue }, p: { pauseAt: number }) => {
    if (context.session.pauseAt !== undefined) enqueue.assign({ session: { ...context.session, pauseAt: p.pauseAt } });
    enqueue.sendTo('pauseOrder', { type: 'world.loaded' });
  }),
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
  childFailed: ({ event }: { event: Ev }) => {
    throw (event as { error?: unknown }).error ?? new Error(`a child of the lockstep failed (${event.type})`);
  },
};

/** Applies a step from machines/rules/lockstepSteps.ts: its context patch, then its outputs in order. */
function apply(
  enqueue: { assign(patch: Partial<LockstepContext>): void; emit(event: LockstepEmitted): void },
  { patch, out }: Step,
): void {
  if (Object.keys(patch).length > 0) enqueue.assign(patch);
  for (const event of out) enqueue.emit(event);
}
