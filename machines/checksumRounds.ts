// The host's checksum rounds as a chart (spec ChecksumRequest 15, Authority 16, ChecksumReport 33, ReplayFailed 35,
// ActionRefused 36, "No overlap", "Light rounds", "Spread full rounds", "Chunk size and detail", "Resync policy",
// "Action verdicts"): an actor with the systemId `checksumRounds`, beside the lockstep (actors/host/checksums.ts).
//
// Three regions once the session started: Schedule asks a regular round every checksumSeconds (5 s) at the future
// stamp, at the first host tick at which the previous one is complete (no overlap: a round still open when the timer
// fires makes the next wait for the 10 s mark and the last report); Regular holds that round until every game
// reported (then compare, Authority, the policy) or the round timeout (60 s: dropped, late reports ignored);
// PausedRound holds the one round a pause asks at pauseAt, which does not hold up the timer; a resync's verification
// round drops a regular round still open from before the reload. Verdicts and ReplayFailed go to the policy at once;
// the verdict book waits for the ready games of the last tick or leave only; every host tick asks the policy whether
// a remembered decision is due and writes the no-overlap waits held for the once-a-minute log line.
// The rules are machines/rules/checksum*.ts and verdictBook.ts; the steps machines/rules/checksumRoundSteps.ts.
// Time: the named delays `checksumInterval` and `roundTimeout` on the actor's clock, and the `now` of each event.
import { assign, enqueueActions, raise, setup } from 'xstate';
import type { ActionRefusedPayload, ChecksumReportPayload, ReplayFailedPayload } from '../protocol/messages/index.ts';
import { createChunkSizing } from './rules/checksumChunks.ts';
import { createPolicy } from './rules/checksumPolicy.ts';
import {
  CHECKSUM_SECONDS,
  ROUND_TIMEOUT_SECONDS,
  askPaused,
  askRegular,
  dropForVerification,
  dropRound,
  finishRound,
  gameLeft,
  policyTick,
  readyGames,
  repairBegins,
  repairEnds,
  takeReplayFailed,
  takeReport,
  takeVerdict,
  type ChecksumRoundsContext,
  type ChecksumRoundsEmitted,
  type SessionGame,
  type Step,
  waitsTick,
} from './rules/checksumRoundSteps.ts';
import { createWaits } from './rules/checksumWaits.ts';
import { createVerdictBook } from './rules/verdictBook.ts';

export type { ChecksumRoundsContext, ChecksumRoundsEmitted, SessionGame } from './rules/checksumRoundSteps.ts';

export interface ChecksumRoundsInput {
  /** checksum_seconds (default 5). */
  checksumSeconds?: number;
  /** checksum_round_timeout_seconds (default 60). */
  roundTimeoutSeconds?: number;
  /** full_checksum_every (default 1: every regular round is full). */
  fullChecksumEvery?: number;
  /** The repair policy's cooldown (default 120 s; the simulator's CI sessions, a quarter as long, use 30 s). */
  repairCooldownSeconds?: number;
}

/** Every event carries the host's clock (ms) as `now`. */
export type ChecksumRoundsEvent =
  /** A host tick: the future stamp now (undefined: no pacing game has a clock) and the ready games in the session's world. */
  | { type: 'tick'; now: number; at: number | undefined; games: readonly SessionGame[] }
  /** The session runs (started, unpaused, or a speed change). */
  | { type: 'session.running'; now: number; speed: number }
  /** The session pauses at pauseAt (or started paused). */
  | { type: 'session.paused'; now: number; pauseAt: number }
  | { type: 'game.left'; now: number; id: number }
  | { type: 'recv.ChecksumReport'; now: number; from: number; payload: ChecksumReportPayload }
  | { type: 'recv.ReplayFailed'; now: number; from: number; payload: ReplayFailedPayload }
  | { type: 'recv.ActionRefused'; now: number; from: number; payload: ActionRefusedPayload }
  /** A resync round started: by the policy's request, or for another reason (the host's button, hot join). */
  | { type: 'repair.started'; now: number; byPolicy: boolean }
  /** The resync round ended (finished or failed). */
  | { type: 'repair.ended'; now: number }
  /**
   * The resync round's Verifying: a paused round at pauseAt, asked even when one was asked at that pauseAt before; a
   * regular round still open is from before the reload and is dropped.
   */
  | { type: 'verify.requested'; now: number; pauseAt: number }
  /** Internal: a round was asked; its region opens it. */
  | { type: 'regular.asked' }
  /** Internal: the open regular round was dropped for a resync's verification round; its region closes it. */
  | { type: 'regular.dropped' }
  | { type: 'paused.asked' }
  /** Internal: a host tick, after the context took its stamp and games. */
  | { type: 'schedule.tick' };

type Ev<T extends ChecksumRoundsEvent['type']> = Extract<ChecksumRoundsEvent, { type: T }>;

/** Applies a step: its context patch, then its outputs in order. */
function apply(enqueue: { assign(patch: Partial<ChecksumRoundsContext>): void; emit(event: ChecksumRoundsEmitted): void }, step: Step): void {
  if (Object.keys(step.patch).length > 0) enqueue.assign(step.patch);
  for (const event of step.out) enqueue.emit(event);
}

export const checksumRoundsMachine = setup({
  types: {
    input: {} as ChecksumRoundsInput,
    context: {} as ChecksumRoundsContext,
    events: {} as ChecksumRoundsEvent,
    emitted: {} as ChecksumRoundsEmitted,
  },
  delays: {
    checksumInterval: ({ context }) => context.intervalMs,
    roundTimeout: ({ context }) => context.roundTimeoutMs,
  },
  guards: {
    regularOpen: ({ context }) => context.regular !== undefined,
    canAskRegular: ({ context }) => context.running && context.regular === undefined && context.at !== undefined && context.games.length > 0,
    regularComplete: ({ context }) => context.regular !== undefined && context.regular.waiting.length === 0,
    pausedComplete: ({ context }) => context.paused !== undefined && context.paused.waiting.length === 0,
    newPause: ({ context }, p: { pauseAt: number }) => context.pausedAskedAt !== p.pauseAt,
  },
  actions: {
    observeNow: assign({ now: ({ context }, p: { now: number }) => Math.max(context.now, p.now) }),
    noteTick: assign(({ context }, p: Ev<'tick'>) => ({ at: p.at, ...readyGames(context, p.games) })),
    noteRunning: assign((_, p: Ev<'session.running'>) => ({ running: true, speed: p.speed, pauseAt: undefined })),
    notePaused: assign((_, p: Ev<'session.paused'>) => ({ running: false, pauseAt: p.pauseAt })),
    noteOverdue: assign({ waits: ({ context }) => ({ ...context.waits, overdueSince: context.regular!.askedAt + context.intervalMs }) }),
    askRegular: enqueueActions(({ context, enqueue }) => {
      apply(enqueue, askRegular(context));
      enqueue.raise({ type: 'regular.asked' });
    }),
    askPaused: enqueueActions(({ context, enqueue }) => {
      if (context.games.length === 0) return; // no game to ask (the lockstep starts only with games: not reached)
      if (context.paused) apply(enqueue, dropRound(context, 'paused', context.now - context.paused.askedAt));
      apply(enqueue, askPaused({ ...context, paused: undefined }));
      enqueue.raise({ type: 'paused.asked' });
    }),
    finishRegular: enqueueActions(({ context, enqueue }) => apply(enqueue, finishRound(context, 'regular'))),
    finishPaused: enqueueActions(({ context, enqueue }) => apply(enqueue, finishRound(context, 'paused'))),
    dropRegular: enqueueActions(({ context, enqueue }) => apply(enqueue, dropRound(context, 'regular', context.roundTimeoutMs))),
    dropPaused: enqueueActions(({ context, enqueue }) => apply(enqueue, dropRound(context, 'paused', context.roundTimeoutMs))),
    dropForVerification: enqueueActions(({ context, enqueue }) => {
      if (!context.regular) return;
      apply(enqueue, dropForVerification(context));
      enqueue.raise({ type: 'regular.dropped' });
    }),
    takeReport: assign(({ context }, p: Ev<'recv.ChecksumReport'>) => takeReport(context, p.from, p.payload)),
    takeVerdict: enqueueActions(({ context, enqueue }, p: Ev<'recv.ActionRefused'>) => apply(enqueue, takeVerdict(context, p.from, p.payload))),
    takeReplayFailed: enqueueActions(({ context, enqueue }, p: Ev<'recv.ReplayFailed'>) =>
      apply(enqueue, takeReplayFailed(context, p.from, p.payload.detail)),
    ),
    gameLeft: assign(({ context }, p: Ev<'game.left'>) => gameLeft(context, p.id)),
    policyTick: enqueueActions(({ context, enqueue }) => apply(enqueue, policyTick(context))),
    flushWaits: enqueueActions(({ context, enqueue }) => apply(enqueue, waitsTick(context))),
    repairStarted: enqueueActions(({ context, enqueue }, p: Ev<'repair.started'>) => apply(enqueue, repairBegins(context, p.byPolicy))),
    repairEnded: enqueueActions(({ context, enqueue }) => apply(enqueue, repairEnds(context))),
    /** After the tick's bookkeeping: the schedule sees the tick (a region's own `tick` would run before it). */
    raiseScheduleTick: raise({ type: 'schedule.tick' }),
  },
}).createMachine({
  id: 'checksumRounds',
  context: ({ input }) => ({
    now: 0,
    nextN: 1,
    regularAsked: 0,
    fullEvery: Math.max(1, Math.floor(input.fullChecksumEvery ?? 1)),
    games: [],
    at: undefined,
    running: false,
    speed: 1,
    pauseAt: undefined,
    regular: undefined,
    paused: undefined,
    pausedAskedAt: undefined,
    intervalMs: (input.checksumSeconds ?? CHECKSUM_SECONDS) * 1000,
    roundTimeoutMs: (input.roundTimeoutSeconds ?? ROUND_TIMEOUT_SECONDS) * 1000,
    detail: false,
    sizing: createChunkSizing(),
    policy: createPolicy(input.repairCooldownSeconds === undefined ? undefined : input.repairCooldownSeconds * 1000),
    verdicts: createVerdictBook(),
    differingSince: {},
    notReady: {},
    waits: createWaits(),
    ignoredReports: 0,
  }),
  initial: 'NotStarted',
  on: {
    tick: { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'noteTick', params: ({ event }) => event }] },
    'game.left': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'gameLeft', params: ({ event }) => event }] },
  },
  states: {
    NotStarted: {
      description:
        'Waits for the lockstep to start the session (session.running or session.paused): no round, no verdict and ' +
        'no repair request before the start.',
      on: {
        'session.running': {
          target: 'Started',
          actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'noteRunning', params: ({ event }) => event }],
        },
        'session.paused': {
          target: 'Started',
          actions: [
            { type: 'observeNow', params: ({ event }) => event },
            { type: 'notePaused', params: ({ event }) => event },
            'askPaused',
          ],
        },
      },
    },
    Started: {
      type: 'parallel',
      on: {
        tick: {
          actions: [
            { type: 'observeNow', params: ({ event }) => event },
            { type: 'noteTick', params: ({ event }) => event },
            'policyTick',
            'flushWaits',
            'raiseScheduleTick',
          ],
        },
        'session.running': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'noteRunning', params: ({ event }) => event }] },
        'session.paused': [
          {
            guard: { type: 'newPause', params: ({ event }) => event },
            actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'notePaused', params: ({ event }) => event }, 'askPaused'],
          },
          { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'notePaused', params: ({ event }) => event }] },
        ],
        'recv.ChecksumReport': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'takeReport', params: ({ event }) => event }] },
        'recv.ActionRefused': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'takeVerdict', params: ({ event }) => event }] },
        'recv.ReplayFailed': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'takeReplayFailed', params: ({ event }) => event }] },
        'repair.started': { actions: [{ type: 'observeNow', params: ({ event }) => event }, { type: 'repairStarted', params: ({ event }) => event }] },
        'repair.ended': { actions: [{ type: 'observeNow', params: ({ event }) => event }, 'repairEnded'] },
        'verify.requested': {
          actions: [
            { type: 'observeNow', params: ({ event }) => event },
            'dropForVerification',
            { type: 'notePaused', params: ({ event }) => ({ type: 'session.paused' as const, now: event.now, pauseAt: event.pauseAt }) },
            'askPaused',
          ],
        },
      },
      states: {
        Schedule: {
          initial: 'Counting',
          states: {
            Counting: {
              description: 'Waits checksumSeconds (5 s, the named delay checksumInterval) since the last regular round was asked.',
              after: {
                checksumInterval: [{ guard: 'regularOpen', target: 'Overdue', actions: 'noteOverdue' }, { target: 'Due' }],
              },
            },
            Overdue: {
              description:
                'The 5 s timer fired while the regular round context.regular is still read or reported by the games ' +
                'in context.regular.waiting: the next round waits for the 10 s mark (another checksumInterval), then ' +
                'for the last report (no overlap).',
              after: { checksumInterval: 'Due' },
            },
            Due: {
              description:
                'A regular round is due: waits for the first host tick at which the session runs, the future stamp is ' +
                'known and no regular round is open (every game in context.regular.waiting reported, or it was dropped).',
              on: {
                'schedule.tick': { guard: 'canAskRegular', target: 'Counting', actions: 'askRegular' },
              },
            },
          },
        },
        Regular: {
          initial: 'Idle',
          states: {
            Idle: {
              description: 'No regular round open: waits for the schedule to ask one (regular.asked).',
              on: { 'regular.asked': 'Open' },
            },
            Open: {
              description:
                'Waits for the ChecksumReport of every game in context.regular.waiting (a game that leaves is no ' +
                'longer waited for); after roundTimeout (60 s) the round is dropped and its late reports are ignored. ' +
                'A resync\'s verification round (verify.requested) drops it too (regular.dropped): it is from before the reload.',
              always: { guard: 'regularComplete', target: 'Idle', actions: 'finishRegular' },
              after: { roundTimeout: { target: 'Idle', actions: 'dropRegular' } },
              on: { 'regular.dropped': 'Idle' },
            },
          },
        },
        PausedRound: {
          initial: 'Idle',
          states: {
            Idle: {
              description: 'No paused round open: waits for a pause (session.paused with a new pauseAt) to ask one.',
              on: { 'paused.asked': 'Open' },
            },
            Open: {
              description:
                'Waits for the ChecksumReport of every game in context.paused.waiting for the round at pauseAt; after ' +
                'roundTimeout (60 s) it is dropped. Does not hold up the regular rounds; a new pause replaces it.',
              always: { guard: 'pausedComplete', target: 'Idle', actions: 'finishPaused' },
              after: { roundTimeout: { target: 'Idle', actions: 'dropPaused' } },
              on: { 'paused.asked': { target: 'Open', reenter: true } },
            },
          },
        },
      },
    },
  },
});
