// One game's pacing as its own chart (lockstep.md "Stalls and outsiders"; spec "Outsiders"; prior-projects §2.6
// H6): a child of the lockstep actor with the systemId `pacing:<id>`, one per game in the session. NotReady until
// the game's Hello; then Pacing (its world is the session's: it paces and is paced to) or Outsider (it said Hello in
// a started session: its world is not the session's yet); Stalled while the host promises for it. A game that came
// back caught up (the lockstep's `game.returned`: its game kept its world, the host resent what it missed) is
// `returned`: Stalled at once with the host's promise the lockstep gives it (Pacing before the start); its mark has
// no `t` until its first clock (rules/stall.ts `movedSinceMark`) and ends like any other.
//
// The stall rule is this chart's: at each running tick the lockstep sends every game's clock line as it knows it
// (rules/stall.ts over that view, `stallOutcomeOf`): marked when its t has not advanced past its best for 20 s while
// another pacing game stands at the barrier its promise sets, with the host's promise = futureStamp over the pacing
// games not marked in the same pass; the promise rises while it still stands where it was marked; the mark ends when
// its clock reaches the promise. Every pacing chart runs the same pass over the same view, so its outcome is exactly
// its part of the one pass. It tells the lockstep each change through the parent ref of its input (`pacing.stalled`,
// `.raised`, `.ended`, `.reached`); the lockstep keeps that view of the mark for the relay, the stamps and the
// Session, and writes the logs, the Session and the PeerClocks in the order the receivers must see them.
// Pure: no timers, no clock reads; time is the `now` of the tick.
import { assign, enqueueActions, setup } from 'xstate';
import type { ActorRef, Snapshot } from 'xstate';
import type { GameView, StallMark } from './rules/lockstepTypes.ts';
import { stallOutcomeOf } from './rules/stall.ts';
import type { StallOutcome } from './rules/stall.ts';

/** The systemId of game `id`'s pacing actor. */
export const pacingId = (id: number): `pacing:${number}` => `pacing:${id}`;

/** What a pacing chart tells the lockstep, in the order the lockstep must act on it. */
export type PacingReport =
  /** At a tick: the game's mark ended (its clock had reached the promise). */
  | { type: 'pacing.ended'; id: number }
  /** At a tick: the game is stalled; the host promises `mark.promise` for it. */
  | { type: 'pacing.stalled'; id: number; mark: StallMark }
  /** At a tick: the stalled game still stands where it was marked; the host's promise rose. */
  | { type: 'pacing.raised'; id: number; promise: number }
  /** Its clock reached the promise: the mark ended. */
  | { type: 'pacing.reached'; id: number; t: number };

/** The lockstep actor as a pacing chart sees it: where its reports go. */
export type PacingParent = ActorRef<Snapshot<unknown>, PacingReport>;

export interface PacingInput {
  /** The game's id (player 0: the host's own game). */
  id: number;
  parent: PacingParent;
}

export type PacingEvent =
  /** The game said Hello: ready, with the session's world (`hasWorld`) or an outsider. Its old mark is dropped. */
  | { type: 'hello'; hasWorld: boolean }
  /** A tick of the running session: the host's clock (ms), the lead, and the lockstep's view of every game. */
  | { type: 'tick'; now: number; lead: number; games: readonly GameView[] }
  /** The stalled game's clock (the lockstep asks before it relays the clock). */
  | { type: 'clock'; t: number }
  /**
   * The game came back and is caught up (the lockstep's `game.returned`): ready with the session's world, and in a
   * started session marked at once with the host's promise (`mark`, without `t`: its clock is unknown until its
   * first Clock after the return). No report: the lockstep set its view of the mark itself.
   */
  | { type: 'returned'; mark?: StallMark };

export interface PacingContext {
  id: number;
  /** While Stalled: the host's promise, since when, and the t it stood at. */
  mark: StallMark | undefined;
  parent: PacingParent;
}

type Tick = Extract<PacingEvent, { type: 'tick' }>;

/** This game's part of the stall pass over the lockstep's view (its own mark as this chart holds it). */
function outcomeOf(context: PacingContext, p: Tick): StallOutcome {
  const games = p.games.map((game) => {
    if (game.id !== context.id) return game;
    const { stalled: _view, ...rest } = game;
    return context.mark === undefined ? rest : { ...rest, stalled: context.mark };
  });
  return stallOutcomeOf(context.id, { games, now: p.now, running: true, lead: p.lead });
}

export const pacingMachine = setup({
  types: {
    input: {} as PacingInput,
    context: {} as PacingContext,
    events: {} as PacingEvent,
  },
  guards: {
    hasWorld: (_, p: { hasWorld: boolean }) => p.hasWorld,
    returnsMarked: (_, p: { mark?: StallMark | undefined }) => p.mark !== undefined,
    marked: ({ context }, p: Tick) => outcomeOf(context, p).mark !== undefined,
    ended: ({ context }, p: Tick) => outcomeOf(context, p).ended,
    raised: ({ context }, p: Tick) => outcomeOf(context, p).raised !== undefined,
    reachedPromise: ({ context }, p: { t: number }) => context.mark !== undefined && p.t >= context.mark.promise,
  },
  actions: {
    /** Applies this game's outcome of the pass and reports each change in the pass's order: ended, marked, raised. */
    applyOutcome: enqueueActions(({ context, enqueue }, p: Tick) => {
      const outcome = outcomeOf(context, p);
      const { id, parent } = context;
      if (outcome.ended) {
        enqueue.assign({ mark: undefined });
        enqueue.sendTo(parent, { type: 'pacing.ended', id });
      }
      if (outcome.mark !== undefined) {
        enqueue.assign({ mark: outcome.mark });
        enqueue.sendTo(parent, { type: 'pacing.stalled', id, mark: outcome.mark });
      }
      if (outcome.raised !== undefined && context.mark !== undefined) {
        enqueue.assign({ mark: { ...context.mark, promise: outcome.raised } });
        enqueue.sendTo(parent, { type: 'pacing.raised', id, promise: outcome.raised });
      }
    }),
    reportReached: enqueueActions(({ context, enqueue }, p: { t: number }) => {
      enqueue.sendTo(context.parent, { type: 'pacing.reached', id: context.id, t: p.t });
    }),
    dropMark: assign({ mark: undefined }),
    takeMark: assign({ mark: (_, p: { mark?: StallMark | undefined }) => p.mark }),
  },
}).createMachine({
  id: 'pacing',
  context: ({ input }) => ({ id: input.id, mark: undefined, parent: input.parent }),
  initial: 'NotReady',
  on: {
    hello: [
      { guard: { type: 'hasWorld', params: ({ event }) => event }, target: '.Pacing', actions: 'dropMark' },
      { target: '.Outsider', actions: 'dropMark' },
    ],
    returned: [
      {
        guard: { type: 'returnsMarked', params: ({ event }) => event },
        target: '.Stalled',
        actions: { type: 'takeMark', params: ({ event }) => event },
      },
      { target: '.Pacing', actions: 'dropMark' },
    ],
  },
  states: {
    NotReady: {
      description:
        'The game context.id has joined: waits for its Hello. Until then it counts for nothing: no stamp, no pause, ' +
        'no relay of its clock.',
    },
    Outsider: {
      description:
        'The game context.id said Hello in a started session, stood at another time than the host’s game at the ' +
        'start, or came back as an outsider: its world is not the session’s. Relayed stalled without safe or need, ' +
        'it counts for no stamp and holds no pause; its actions are refused. Waits for the Hello of a resync ' +
        'round’s load (the session’s world).',
    },
    Pacing: {
      description:
        'The game context.id paces itself to its peers and they to it. Waits for a running tick at which its t has ' +
        'not advanced past its best for 20 s while another pacing game stands at the barrier its promise sets ' +
        '(then Stalled).',
      on: {
        tick: {
          guard: { type: 'marked', params: ({ event }) => event },
          target: 'Stalled',
          actions: { type: 'applyOutcome', params: ({ event }) => event },
        },
      },
    },
    Stalled: {
      description:
        'The host promises context.mark.promise for the game context.id (its PeerClock safe, Session.stalled) and ' +
        'refuses its actions stamped below it. Waits for the game’s clock to reach the promise (then Pacing); while ' +
        'it still stands where it was marked, each running tick may raise the promise so the others are never held ' +
        'for good. A game that came back (`returned`) is here from its return: its promise rises until its first ' +
        'clock after the return and stays from then on.',
      on: {
        clock: {
          guard: { type: 'reachedPromise', params: ({ event }) => event },
          target: 'Pacing',
          actions: ['dropMark', { type: 'reportReached', params: ({ event }) => event }],
        },
        tick: [
          // Its clock had reached the promise, and it is stalled anew in the same pass.
          {
            guard: { type: 'marked', params: ({ event }) => event },
            target: 'Stalled',
            reenter: true,
            actions: { type: 'applyOutcome', params: ({ event }) => event },
          },
          {
            guard: { type: 'ended', params: ({ event }) => event },
            target: 'Pacing',
            actions: { type: 'applyOutcome', params: ({ event }) => event },
          },
          {
            guard: { type: 'raised', params: ({ event }) => event },
            actions: { type: 'applyOutcome', params: ({ event }) => event },
          },
        ],
      },
    },
  },
});
