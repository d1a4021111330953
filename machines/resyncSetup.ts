// The resync round's implementations (machines/resync.ts is the chart): its guards, actions and named delays, each a
// pure function of the round's context and the event's params. Split from the chart so that each file has one job:
// here what a step does, there which step follows which.
import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ResyncState } from '../protocol/messages/payloads/session.ts';
import type { ResyncEmitted, ResyncEvent, ResyncInput, ResyncProgressState, RoundContext } from './resyncTypes.ts';
import {
  chooseSource,
  failureReason,
  helloAwaited,
  HOST_GAME,
  namesOf,
  resyncSaveName,
  RESYNC_TIMEOUTS,
} from './rules/resyncRound.ts';

/** Why a round started: the host's button or the policy (any text), a hot join, a returner. */
export const HOT_JOIN_REASON = { joined: 'new player', returned: 'player returned' } as const;
/**
 * Why the round of a session that started with games at different times started (spec "Outsiders": every game but
 * the host's whose time differs is an outsider; the round copies the host's world to them). Like a hot join it
 * ignores the cooldown.
 */
export const START_ROUND_REASON = 'start: games at different times';

/** What a round holds when it starts (and the context before the first round): nothing asked, heard or sent yet. */
export const ROUND_AT_START = {
  waitingFor: [],
  inWorld: [],
  pauseReported: false,
  source: HOST_GAME,
  participants: [],
  file: undefined,
  sending: [],
  heard: [],
  pauseAt: undefined,
  awaiting: [],
  failure: undefined,
} as const satisfies Partial<RoundContext>;

type Ev<T extends ResyncEvent['type']> = Extract<ResyncEvent, { type: T }>;
const without = (list: readonly number[], id: number) => list.filter((x) => x !== id);
/** The game that saves for the round reports an action partial, and was not marked yet. */
const savingGameMarked = (c: RoundContext, id: number) => id === c.source && !c.marked.includes(id);
export const resyncSetup = setup({
  types: {
    input: {} as ResyncInput,
    context: {} as RoundContext,
    events: {} as ResyncEvent,
    emitted: {} as ResyncEmitted,
  },
  delays: {
    pausingTimeout: RESYNC_TIMEOUTS.pausing,
    savingTimeout: ({ context }) => (context.source === HOST_GAME ? RESYNC_TIMEOUTS.saving : RESYNC_TIMEOUTS.sourceSaving),
    transferTimeout: RESYNC_TIMEOUTS.transferring,
    loadingTimeout: RESYNC_TIMEOUTS.loading,
    verifyingTimeout: RESYNC_TIMEOUTS.verifying,
  },
  guards: {
    started: ({ context }) => context.started,
    startsApart: (_, p: { outsiders?: readonly number[] | undefined }) => (p.outsiders?.length ?? 0) > 0,
    queuedJoin: ({ context }) => context.started && context.queued.length > 0,
    paused: ({ context }) => context.pauseReported && context.waitingFor.length === 0,
    thisRound: ({ context }, p: { id: number }) => p.id === context.id,
    fromSource: ({ context }, p: Ev<'recv.SaveDone'>) => p.from === context.source && p.id === context.id,
    failedSave: ({ context }, p: Ev<'recv.SaveDone'>) => p.from === context.source && p.id === context.id && !p.ok,
    savedByHost: ({ context }, p: Ev<'recv.SaveDone'>) => p.from === HOST_GAME && context.source === HOST_GAME && p.id === context.id && p.ok,
    isSource: ({ context }, p: { id: number }) => context.source !== HOST_GAME && p.id === context.source,
    // The saving game's partial verdict before its SaveDone: the game applied it before it saved (its verdicts and its
    // SaveDone leave in that order), so the save holds the partly built world (spec "Repair source").
    savingGameMarked: ({ context }, p: { id: number }) => savingGameMarked(context, p.id),
    // … and the round has another game to ask (a player, or the host's game when a player source was marked)
    savingGameReplaced: ({ context }, p: { id: number }) =>
      savingGameMarked(context, p.id) &&
      chooseSource(context.players, [...context.marked, p.id], context.hostReloads, context.inWorld).source !== context.source,
    nothingToSend: ({ context }) => context.sending.length === 0,
    everyHello: ({ context }) => context.awaiting.length === 0,
  },
  actions: {
    setStarted: assign((_, p: { speed: number }) => ({ started: true, speed: p.speed })),
    setSpeed: assign((_, p: { speed: number }) => ({ speed: p.speed })),
    addPlayer: assign(({ context }, p: Ev<'player.joined'> | Ev<'player.returned'>) => ({
      players: [...context.players.filter((x) => x.id !== p.id), { id: p.id, name: p.name, capable: p.capable ?? false }],
    })),
    queueJoin: assign(({ context }, p: Ev<'player.joined'>) => ({
      queued: context.queued.includes(p.id) ? context.queued : [...context.queued, p.id],
      queuedReason: context.queued.length > 0 ? context.queuedReason : p.returned ? HOT_JOIN_REASON.returned : HOT_JOIN_REASON.joined,
    })),
    removePlayer: assign(({ context }, p: { id: number }) => ({
      players: context.players.filter((x) => x.id !== p.id),
      marked: without(context.marked, p.id),
      queued: without(context.queued, p.id),
      waitingFor: without(context.waitingFor, p.id),
      participants: without(context.participants, p.id),
      sending: without(context.sending, p.id),
      awaiting: without(context.awaiting, p.id),
    })),
    mark: assign(({ context }, p: { id: number }) => ({
      marked: context.marked.includes(p.id) ? context.marked : [...context.marked, p.id],
    })),
    newRound: assign(({ context }, p: { reason: string }) => ({
      id: context.id + 1,
      reason: p.reason,
      speedBefore: context.speed,
      speed: 0,
      ...ROUND_AT_START,
    })),
    startQueuedRound: assign(({ context }) => ({ queued: [], reason: context.queuedReason })),
    notePause: assign((_, p: Ev<'pause.progress'>) => ({ waitingFor: [...p.waitingFor], inWorld: [...p.inWorld], pauseReported: true })),
    progress: emit(({ context }, p: { state: ResyncProgressState }) => ({
      type: 'out.progress' as const,
      id: context.id,
      state: p.state,
      reason: context.reason,
      ...(context.file ? { participants: context.participants } : {}),
      ...(p.state === 'Loading' ? { loading: context.awaiting } : {}),
      ...(p.state === 'Idle' ? { result: context.failure ? ('failed' as const) : ('verified' as const) } : {}),
    })),
    emitPause: emit(({ context }) => ({ type: 'out.pause' as const, id: context.id })),
    askSave: enqueueActions(({ context, enqueue }) => {
      const { source, warning } = chooseSource(context.players, context.marked, context.hostReloads, context.inWorld);
      enqueue.assign({ source });
      if (warning) enqueue.emit({ type: 'out.sourceWarning', id: context.id, text: warning });
      enqueue.emit({ type: 'out.save', id: context.id, to: source, name: resyncSaveName(context.id) });
    }),
    noteSourceMarked: emit(({ context }, p: { id: number }) => ({
      type: 'out.sourceMarked' as const,
      id: context.id,
      from: p.id,
      names: namesOf([p.id], context.players),
    })),
    /** The host's game, marked while it saves and with no player to ask instead: its world is copied, with the warning. */
    warnMarkedSource: enqueueActions(({ context, enqueue }) => {
      const { warning } = chooseSource(context.players, context.marked, context.hostReloads, context.inWorld);
      if (warning) enqueue.emit({ type: 'out.sourceWarning', id: context.id, text: warning });
    }),
    announce: enqueueActions(({ context, enqueue }, p: Ev<'cmd.fileReady'>) => {
      const participants = context.players.map((x) => x.id);
      const file = { sha256: p.sha256, bytes: p.bytes };
      enqueue.assign({ participants, file, sending: participants });
      enqueue.emit({ type: 'out.announced', id: context.id, ...file, participants });
      if (context.hostReloads && context.hostLoadsEarly) {
        enqueue.emit({ type: 'out.load', id: context.id, to: [HOST_GAME], name: resyncSaveName(context.id), sha256: p.sha256 });
      }
    }),
    noteSent: assign(({ context }, p: Ev<'transfer.done'>) => ({ sending: without(context.sending, p.player) })),
    loadAll: enqueueActions(({ context, enqueue }) => {
      const hostNow = context.hostReloads && !context.hostLoadsEarly;
      const to = hostNow ? [HOST_GAME, ...context.participants] : context.participants;
      enqueue.assign({ awaiting: helloAwaited(context.participants, context.hostReloads, context.heard) });
      if (to.length > 0) enqueue.emit({ type: 'out.load', id: context.id, to, name: resyncSaveName(context.id), sha256: context.file!.sha256 });
    }),
    hearHello: enqueueActions(({ context, enqueue }, p: Ev<'recv.Hello'>) => {
      const awaited =
        context.awaiting.includes(p.from) ||
        (p.from === HOST_GAME && context.hostReloads && context.hostLoadsEarly && context.file !== undefined && !context.heard.includes(HOST_GAME));
      if (!awaited) return;
      const differ = context.pauseAt !== undefined && context.pauseAt !== p.time;
      const time = Math.max(context.pauseAt ?? p.time, p.time);
      enqueue.assign({ heard: [...context.heard, p.from], awaiting: without(context.awaiting, p.from), pauseAt: time });
      enqueue.emit({ type: 'out.pauseAt', id: context.id, from: p.from, time, differ });
    }),
    loadingTimedOut: emit(({ context }) => ({
      type: 'out.loadingTimedOut' as const,
      id: context.id,
      missing: context.awaiting,
      names: namesOf(context.awaiting, context.players),
    })),
    clearAwaiting: assign({ awaiting: [] }),
    askVerify: emit(({ context }) => ({ type: 'out.verify' as const, id: context.id })),
    noteWaiting: assign((_, p: Ev<'checksum.waiting'>) => ({ awaiting: [...p.players] })),
    fail: assign(({ context }, p: { state: ResyncState; reason: (c: RoundContext) => string; missing: (c: RoundContext) => number[] }) => ({
      failure: { state: p.state, reason: p.reason(context), missing: p.missing(context) },
    })),
    emitFailed: emit(({ context }) => ({ type: 'out.failed' as const, id: context.id, ...context.failure! })),
    succeed: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ speed: context.speedBefore, marked: [] });
      enqueue.emit({ type: 'out.succeeded', id: context.id, speed: context.speedBefore });
    }),
    ignore: emit(({ context }, p: { what: string; from?: number }) => ({ type: 'out.ignored' as const, id: context.id, ...p })),
  },
});
