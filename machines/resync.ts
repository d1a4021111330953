// The host's resync round (spec wire-protocol.txt "Resync round" up to "Hot join"; issue 11 item 1), systemId
// `resync`: Idle → Pausing (120 s) → Saving (180 s; 180 + 600 s with a repair source) → Transferring (600 s) →
// Loading (600 s, never fails) → Verifying (120 s, a paused checksum round) → Idle. One round at a time, ids 1, 2, …
//
// Pure and driven by events: the session tells it the roster (player.joined/left), the speed in force between
// rounds (session.speed), whom the pause still waits for (pause.progress), the saving game's SaveDone, the repair
// source's upload (source.uploaded), the launcher's resync_file_ready (cmd.fileReady), each participant's finished
// transfer (transfer.done), the Hellos, and the verification round's verdict (checksum.verified/differs). It emits
// what the session must do (`out.*`): the progress of every state change (Session `resync`), the pause, ResyncSave,
// the announcement that starts the chunks, ResyncLoad, the moves of pauseAt, the verification round, and the end
// (succeeded: resume the previous speed; failed: ResyncFailed, the session stays paused). Time is only the named
// delays below, on the actor's injected clock.
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

export const RESYNC_SYSTEM_ID = 'resync';
/** Why a round started: the host's button or the policy (any text), a hot join, a returner. */
export const HOT_JOIN_REASON = { joined: 'new player', returned: 'player returned' } as const;
/**
 * Why the round of a session that started with games at different times started (spec "Outsiders": every game but
 * the host's whose time differs is an outsider; the round copies the host's world to them). Like a hot join it
 * ignores the cooldown.
 */
export const START_ROUND_REASON = 'start: games at different times';

export type { ResyncEmitted, ResyncEvent, ResyncInput, ResyncProgressState, RoundContext } from './resyncTypes.ts';

type Ev<T extends ResyncEvent['type']> = Extract<ResyncEvent, { type: T }>;
const without = (list: readonly number[], id: number) => list.filter((x) => x !== id);
/** The game that saves for the round reports an action partial, and was not marked yet. */
const savingGameMarked = (c: RoundContext, id: number) => id === c.source && !c.marked.includes(id);
export const resyncMachine = setup({
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
}).createMachine({
  id: 'resync',
  context: ({ input }) => ({
    hostReloads: input.hostReloads ?? true,
    hostLoadsEarly: input.hostLoadsEarly ?? true,
    started: false,
    speed: 0,
    players: [],
    marked: [],
    queued: [],
    queuedReason: HOT_JOIN_REASON.joined,
    id: 0,
    reason: '',
    speedBefore: 0,
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
  }),
  on: {
    'player.left': { actions: { type: 'removePlayer', params: ({ event }) => event } },
    'player.returned': { actions: { type: 'addPlayer', params: ({ event }) => event } },
    'game.partial': { actions: { type: 'mark', params: ({ event }) => event } },
  },
  initial: 'Idle',
  states: {
    Idle: {
      description:
        'No round runs: waits for the session to start (session.started; a start with games at different times ' +
        'starts a round at once: reason start: games at different times), then for the host or the policy to ask ' +
        'for a round (cmd.start) or for a player to join the started session (a hot join: reason new player / ' +
        'player returned). A joiner remembered during the last round starts the next round at once (no cooldown).',
      always: { guard: 'queuedJoin', target: 'Round', actions: ['startQueuedRound', { type: 'newRound', params: ({ context }) => ({ reason: context.queuedReason }) }] },
      on: {
        'session.started': [
          {
            guard: { type: 'startsApart', params: ({ event }) => event },
            target: 'Round',
            actions: [{ type: 'setStarted', params: ({ event }) => event }, { type: 'newRound', params: { reason: START_ROUND_REASON } }],
          },
          { actions: { type: 'setStarted', params: ({ event }) => event } },
        ],
        'session.speed': { actions: { type: 'setSpeed', params: ({ event }) => event } },
        'cmd.start': [
          { guard: 'started', target: 'Round', actions: { type: 'newRound', params: ({ event }) => event } },
          { actions: { type: 'ignore', params: { what: 'start before the session started' } } },
        ],
        'player.joined': [
          {
            guard: 'started',
            target: 'Round',
            actions: [
              { type: 'addPlayer', params: ({ event }) => event },
              { type: 'newRound', params: ({ event }) => ({ reason: event.returned ? HOT_JOIN_REASON.returned : HOT_JOIN_REASON.joined }) },
            ],
          },
          { actions: { type: 'addPlayer', params: ({ event }) => event } },
        ],
      },
    },
    Round: {
      initial: 'Pausing',
      on: {
        'cmd.start': { actions: { type: 'ignore', params: { what: 'start while a round runs' } } },
        'recv.SpeedRequest': { actions: { type: 'ignore', params: ({ event }) => ({ what: 'speed request during a round', from: event.from }) } },
        'cmd.setSpeed': { actions: { type: 'ignore', params: { what: "the host's speed during a round" } } },
        'cmd.pause': { actions: { type: 'ignore', params: { what: "the host's pause during a round" } } },
        'session.speed': { actions: { type: 'ignore', params: { what: 'a speed change during a round' } } },
      },
      states: {
        Pausing: {
          description:
            'Waits for every ready game in the session\'s world (context.waitingFor, as the session reports them in ' +
            'pause.progress; outsiders are not waited for) to stand at pauseAt with speed 0; fails after 120 s ' +
            'naming those games.',
          entry: [{ type: 'progress', params: { state: 'Pausing' } }, 'emitPause'],
          always: { guard: 'paused', target: 'Saving' },
          on: {
            'pause.progress': { actions: { type: 'notePause', params: ({ event }) => event } },
            'player.joined': { actions: { type: 'addPlayer', params: ({ event }) => event } },
          },
          after: {
            pausingTimeout: {
              target: 'Failed',
              actions: {
                type: 'fail',
                params: { state: 'Pausing', reason: (c) => failureReason.pausing(namesOf(c.waitingFor, c.players)), missing: (c) => c.waitingFor },
              },
            },
          },
        },
        Saving: {
          description:
            "Waits on the saving game (context.source: 0 = the host's own game, else the repair source: the first " +
            "player in context.inWorld, not marked, capable) for " +
            'its SaveDone, then, from a repair source, for its upload; fails after 180 s (180 + 600 s with a repair ' +
            'source), on a failed save, or when the source leaves.',
          entry: [{ type: 'progress', params: { state: 'Saving' } }, 'askSave'],
          initial: 'WaitingForSave',
          on: {
            'player.joined': { actions: { type: 'addPlayer', params: ({ event }) => event } },
            'player.left': {
              guard: { type: 'isSource', params: ({ event }) => event },
              target: 'Failed',
              actions: [
                { type: 'fail', params: { state: 'Saving', reason: (c) => failureReason.sourceLeft(namesOf([c.source], c.players)), missing: (c) => [c.source] } },
                { type: 'removePlayer', params: ({ event }) => event },
              ],
            },
          },
          after: {
            savingTimeout: {
              target: 'Failed',
              actions: {
                type: 'fail',
                params: {
                  state: 'Saving',
                  reason: (c) =>
                    failureReason.saveTimeout(namesOf([c.source], c.players), c.source === HOST_GAME ? RESYNC_TIMEOUTS.saving : RESYNC_TIMEOUTS.sourceSaving),
                  missing: (c) => [c.source],
                },
              },
            },
          },
          states: {
            WaitingForSave: {
              description:
                "Waits for the SaveDone of the saving game (context.source) only; another game's is ignored. The saving " +
                "game reporting an action partial first (its save holds that world) makes the round ask the next " +
                "source (Saving again, its timeout anew); with none, the host's world is copied with the warning.",
              on: {
                'game.partial': [
                  {
                    guard: { type: 'savingGameReplaced', params: ({ event }) => event },
                    target: '#resync.Round.Saving',
                    reenter: true,
                    actions: [{ type: 'mark', params: ({ event }) => event }, { type: 'noteSourceMarked', params: ({ event }) => event }],
                  },
                  {
                    guard: { type: 'savingGameMarked', params: ({ event }) => event },
                    actions: [{ type: 'mark', params: ({ event }) => event }, 'warnMarkedSource'],
                  },
                  { actions: { type: 'mark', params: ({ event }) => event } },
                ],
                'recv.SaveDone': [
                  {
                    guard: { type: 'failedSave', params: ({ event }) => event },
                    target: '#resync.Round.Failed',
                    actions: {
                      type: 'fail',
                      params: ({ event }) => ({
                        state: 'Saving' as const,
                        reason: (c: RoundContext) => failureReason.saveFailed(namesOf([c.source], c.players), event.detail),
                        missing: (c: RoundContext) => [c.source],
                      }),
                    },
                  },
                  { guard: { type: 'savedByHost', params: ({ event }) => event }, target: '#resync.Round.Transferring' },
                  { guard: { type: 'fromSource', params: ({ event }) => event }, target: 'Uploading' },
                  { actions: { type: 'ignore', params: ({ event }) => ({ what: "SaveDone not from the round's source", from: event.from }) } },
                ],
              },
            },
            Uploading: {
              description: 'Waits for the repair source (context.source) to upload its save whole and matching its SHA-256 (source.uploaded).',
              on: { 'source.uploaded': { guard: { type: 'thisRound', params: ({ event }) => event }, target: '#resync.Round.Transferring' } },
            },
          },
        },
        Transferring: {
          description:
            "Waits for the launcher's resync_file_ready (AwaitingFile), then for every participant's chunks to be " +
            'handed to its connection (Sending: context.sending); fails after 600 s naming them.',
          entry: { type: 'progress', params: { state: 'Transferring' } },
          initial: 'AwaitingFile',
          after: {
            transferTimeout: {
              target: 'Failed',
              actions: {
                type: 'fail',
                params: {
                  state: 'Transferring',
                  reason: (c) => (c.file ? failureReason.transfer(namesOf(c.sending, c.players)) : failureReason.fileNotReady()),
                  missing: (c) => (c.file ? c.sending : [c.source]),
                },
              },
            },
          },
          states: {
            AwaitingFile: {
              description: "Waits for the host's launcher to read the save and announce it (cmd.fileReady); a joiner now takes part.",
              on: {
                'player.joined': { actions: { type: 'addPlayer', params: ({ event }) => event } },
                'cmd.fileReady': {
                  guard: { type: 'thisRound', params: ({ event }) => event },
                  target: 'Sending',
                  actions: { type: 'announce', params: ({ event }) => event },
                },
              },
            },
            Sending: {
              description: 'Waits for the chunks to be handed to each participant named in context.sending; a joiner waits for the next round.',
              always: { guard: 'nothingToSend', target: '#resync.Round.Loading' },
              on: {
                'player.joined': { actions: [{ type: 'addPlayer', params: ({ event }) => event }, { type: 'queueJoin', params: ({ event }) => event }] },
                'transfer.done': { guard: { type: 'thisRound', params: ({ event }) => event }, actions: { type: 'noteSent', params: ({ event }) => event } },
                'recv.Hello': { actions: { type: 'hearHello', params: ({ event }) => event } },
              },
            },
          },
        },
        Loading: {
          description:
            'Waits for a Hello after the load from each game named in context.awaiting (the participants, and the ' +
            "host's game when it reloads); each Hello moves pauseAt. Never fails: after 600 s it logs the missing ones " +
            'and goes on with the others.',
          entry: ['loadAll', { type: 'progress', params: { state: 'Loading' } }],
          always: { guard: 'everyHello', target: 'Verifying' },
          on: {
            'player.joined': { actions: [{ type: 'addPlayer', params: ({ event }) => event }, { type: 'queueJoin', params: ({ event }) => event }] },
            // Each Hello also updates the progress's `loading` list (Session `loading`, which every window names).
            'recv.Hello': { actions: [{ type: 'hearHello', params: ({ event }) => event }, { type: 'progress', params: { state: 'Loading' } }] },
          },
          after: { loadingTimeout: { target: 'Verifying', actions: ['loadingTimedOut', 'clearAwaiting'] } },
        },
        Verifying: {
          description:
            'Waits for the paused verification checksum round at pauseAt over the ready games (those not yet reported ' +
            'in context.awaiting, as checksum.waiting says): identical resumes the previous speed, a difference or ' +
            '120 s fails the round.',
          entry: [{ type: 'progress', params: { state: 'Verifying' } }, 'askVerify'],
          on: {
            'player.joined': { actions: [{ type: 'addPlayer', params: ({ event }) => event }, { type: 'queueJoin', params: ({ event }) => event }] },
            'checksum.waiting': { actions: { type: 'noteWaiting', params: ({ event }) => event } },
            'checksum.verified': { target: '#resync.Idle', actions: ['succeed', { type: 'progress', params: { state: 'Idle' } }] },
            'checksum.differs': {
              target: 'Failed',
              actions: { type: 'fail', params: ({ event }) => ({ state: 'Verifying' as const, reason: () => failureReason.differs(event.detail), missing: () => [] }) },
            },
          },
          after: {
            verifyingTimeout: {
              target: 'Failed',
              actions: {
                type: 'fail',
                params: { state: 'Verifying', reason: (c) => failureReason.verifyTimeout(namesOf(c.awaiting, c.players)), missing: (c) => c.awaiting },
              },
            },
          },
        },
        Failed: {
          description: 'The round failed: ResyncFailed with the reason, the session stays paused; back to Idle at once.',
          entry: 'emitFailed',
          always: { target: '#resync.Idle', actions: { type: 'progress', params: { state: 'Idle' } } },
        },
      },
    },
  },
});
