// The host's pause order as its own chart (lockstep.md "Pause, speed and the pause order"; prior-projects §2.6
// P1–P4): a child of the lockstep actor with the systemId `pauseOrder`. A pause action (no stamp) gets the next
// pauseSeq and is held; while the session runs it goes out at once at the running stamp; while paused, what is held
// goes out at the first host tick at which every ready pacing game has reported `stop`, at max(furthest stop,
// previous flush stamp); an unpause flushes what is held before its Session. The bounds of rules/pauseOrder.ts
// (64 per game, 512 in all, 4 MiB) refuse the excess.
//
// The chart decides; the lockstep relays. Its reports go to the lockstep through the parent ref of its input
// (`pauseOrder.held`, `.refused`, `.flushed`): the lockstep writes the log line, the host's BuildVeto or the flushed
// Actions to every game, and records the flushed items in flight (rules/inFlight.ts). The lockstep tells it what
// it needs and nothing more: the action to hold with its size as relayed and the running stamp, the session's
// running or pausing, and at each paused tick every game's stop and the ready pacing games.
// Pure: no timers, no clock reads; a tick is an event.
import { assign, enqueueActions, setup } from 'xstate';
import type { ActorRef, Snapshot } from 'xstate';
import { createPauseOrder, flushFrom, flushReady, holdPauseAction, holdRefusal } from './rules/pauseOrder.ts';
import type { FlushedPauseAction, HeldPauseAction, PauseOrder } from './rules/pauseOrder.ts';

/** A pause action as the lockstep will relay it, before the pause order numbers it. */
export type PauseActionToHold = Omit<HeldPauseAction, 'pause' | 'pauseSeq'>;

/** What the pause order tells the lockstep, in the order the lockstep must act on it. */
export type PauseOrderReport =
  /** Held with this pauseSeq (the lockstep logs it). */
  | { type: 'pauseOrder.held'; from: number; seq: number; pauseSeq: number }
  /** Refused: the pause order holds its bound (the lockstep refuses it on every game with its BuildVeto). */
  | { type: 'pauseOrder.refused'; from: number; seq: number; why: string }
  /** Flushed: every item to every game, origin included, in this order, all at `stamp`. */
  | { type: 'pauseOrder.flushed'; stamp: number; items: FlushedPauseAction[] };

/** The lockstep actor as the pause order sees it: where its reports go. */
export type PauseOrderParent = ActorRef<Snapshot<unknown>, PauseOrderReport>;

export interface PauseOrderInput {
  parent: PauseOrderParent;
}

export type PauseOrderEvent =
  /** A pause action to number and hold; `bytes` its size as relayed (the bound); `stamp` the running stamp now. */
  | { type: 'hold'; action: PauseActionToHold; bytes: number; stamp: number }
  /** The session runs from now (start or unpause): what is held goes out at max(furthest, previous flush stamp). */
  | { type: 'session.running'; furthest: number }
  /** The session stands still (a pause, or a start paused). */
  | { type: 'session.paused' }
  /** A host tick while paused: each game's reported stop (id, t) and the ids of the ready pacing games. */
  | { type: 'tick'; stops: readonly (readonly [number, number])[]; pacing: readonly number[] }
  /**
   * A resync round's load replaced the world (a Hello of the load moved pauseAt; spec "The pause after the load"):
   * the floor of the old world's flushes is dropped (the next flush may be stamped below it, where the loaded games
   * stand), and the stops noted describe the world replaced. What is held stays held.
   */
  | { type: 'world.loaded' };

export interface PauseOrderContext extends PauseOrder {
  /** While paused: the ready pacing games whose `stop` the pause order has not seen (as of the last tick). */
  waitingFor: readonly number[];
  /** While paused: the furthest stop once every ready pacing game reported one (the next flush's floor). */
  furthestStop: number | undefined;
  parent: PauseOrderParent;
}

type Hold = Extract<PauseOrderEvent, { type: 'hold' }>;
type Tick = Extract<PauseOrderEvent, { type: 'tick' }>;

const readiness = (p: Tick) => flushReady(new Map(p.stops), p.pacing);

export const pauseOrderMachine = setup({
  types: {
    input: {} as PauseOrderInput,
    context: {} as PauseOrderContext,
    events: {} as PauseOrderEvent,
  },
  guards: {
    refused: ({ context }, p: Hold) => holdRefusal(context, p.action.from, p.bytes) !== undefined,
    holdsSomething: ({ context }) => context.held.length > 0,
    everyGameStopped: (_, p: Tick) => readiness(p).ready,
  },
  actions: {
    hold: enqueueActions(({ context, enqueue }, p: Hold) => {
      const { order, item } = holdPauseAction(context, p.action, p.bytes);
      enqueue.assign(order);
      const report = { type: 'pauseOrder.held' as const, from: p.action.from, seq: p.action.seq, pauseSeq: item.pauseSeq };
      enqueue.sendTo(context.parent, report);
    }),
    refuse: enqueueActions(({ context, enqueue }, p: Hold) => {
      const why = holdRefusal(context, p.action.from, p.bytes)!;
      enqueue.sendTo(context.parent, { type: 'pauseOrder.refused', from: p.action.from, seq: p.action.seq, why });
    }),
    flush: enqueueActions(({ context, enqueue }, p: { furthest: number }) => {
      const { order, items, stamp } = flushFrom(context, p.furthest);
      if (items.length === 0) return;
      enqueue.assign(order);
      enqueue.sendTo(context.parent, { type: 'pauseOrder.flushed', stamp, items });
    }),
    noteStops: assign((_, p: Tick) => {
      const ready = readiness(p);
      return ready.ready ? { waitingFor: [], furthestStop: ready.furthestStop } : { waitingFor: ready.waitingFor, furthestStop: undefined };
    }),
    forgetStops: assign({ waitingFor: [], furthestStop: undefined }),
    dropFloor: assign({ floor: undefined }),
  },
}).createMachine({
  id: 'pauseOrder',
  context: ({ input }) => ({
    // Small fields first: the inspector's trace cuts a long context, and `held` can be long.
    waitingFor: [],
    furthestStop: undefined,
    ...createPauseOrder(),
    parent: input.parent,
  }),
  on: { 'world.loaded': { actions: ['dropFloor', 'forgetStops'] } },
  initial: 'NotStarted',
  states: {
    NotStarted: {
      description:
        'Waits for the lockstep to start the session (session.running or session.paused); holds every pause action ' +
        'of any game until then.',
      on: {
        hold: [
          { guard: { type: 'refused', params: ({ event }) => event }, actions: { type: 'refuse', params: ({ event }) => event } },
          { actions: { type: 'hold', params: ({ event }) => event } },
        ],
        'session.running': { target: 'Running', actions: { type: 'flush', params: ({ event }) => event } },
        'session.paused': 'Paused',
      },
    },
    Running: {
      description:
        'The session runs: waits for the lockstep to pause it (session.paused). A pause action (made before its game ' +
        'read the unpause) is numbered and goes out at once, stamped at the running stamp the lockstep sends with it.',
      on: {
        hold: [
          { guard: { type: 'refused', params: ({ event }) => event }, actions: { type: 'refuse', params: ({ event }) => event } },
          {
            actions: [
              { type: 'hold', params: ({ event }) => event },
              { type: 'flush', params: ({ event }) => ({ furthest: event.stamp }) },
            ],
          },
        ],
        'session.paused': 'Paused',
      },
    },
    Paused: {
      initial: 'Idle',
      on: {
        hold: [
          { guard: { type: 'refused', params: ({ event }) => event }, actions: { type: 'refuse', params: ({ event }) => event } },
          { actions: { type: 'hold', params: ({ event }) => event } },
        ],
        'session.running': {
          target: 'Running',
          actions: ['forgetStops', { type: 'flush', params: ({ event }) => event }],
        },
      },
      states: {
        Idle: {
          description:
            'Paused, nothing held: waits for a pause action of any game (then WaitingForStops) or for the unpause ' +
            '(session.running); each host tick notes in context.waitingFor the ready pacing games not yet stopped.',
          always: { guard: 'holdsSomething', target: 'WaitingForStops' },
          on: { tick: { actions: { type: 'noteStops', params: ({ event }) => event } } },
        },
        WaitingForStops: {
          description:
            'Holds pause actions for every game: waits for the `stop` of each ready pacing game named in ' +
            'context.waitingFor (the lockstep sends every stop at each host tick); the first tick at which none is ' +
            'missing flushes them. An unpause (session.running) flushes them at once, before its Session.',
          on: {
            tick: [
              {
                guard: { type: 'everyGameStopped', params: ({ event }) => event },
                target: 'Flushing',
                actions: { type: 'noteStops', params: ({ event }) => event },
              },
              { actions: { type: 'noteStops', params: ({ event }) => event } },
            ],
          },
        },
        Flushing: {
          description:
            'Every ready pacing game has reported stop: every held item goes to every game, origin included, at ' +
            'max(furthest stop, previous flush stamp) with pauseUpto = its last pauseSeq; then nothing is held.',
          entry: { type: 'flush', params: ({ context }) => ({ furthest: context.furthestStop! }) },
          always: 'Idle',
        },
      },
    },
  },
});
