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
// delays of machines/resyncSetup.ts (its guards and actions), on the actor's injected clock.
import type { RoundContext } from './resyncTypes.ts';
import { failureReason, HOST_GAME, namesOf, RESYNC_TIMEOUTS } from './rules/resyncRound.ts';
import { HOT_JOIN_REASON, ROUND_AT_START, START_ROUND_REASON, resyncSetup } from './resyncSetup.ts';

export const RESYNC_SYSTEM_ID = 'resync';
export { HOT_JOIN_REASON, START_ROUND_REASON } from './resyncSetup.ts';
export type { ResyncEmitted, ResyncEvent, ResyncInput, ResyncProgressState, RoundContext } from './resyncTypes.ts';

export const resyncMachine = resyncSetup.createMachine({
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
    ...ROUND_AT_START,
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
