// One returning player's catch-up on the host (actor `catchUp:<id>`; spec wire-protocol "Reconnect" and "Catching
// up"; lockstep.md "Catching up", "Leave and removal"). The host creates it when a player resumes (valid resume MAC,
// Welcome `resumed: true`) with the outbox's answer for the player's `resume.last`:
//
//   covers              → resend what it missed (out.resend: the held messages after `last`, sealed anew, in order,
//                         then PlayerJoined to the others and Permissions to the returner); the returner stays ready
//                         and catches up as a stalled game; the chart waits for the lockstep's word that its game
//                         reached the host's promise (`game.reached`). In a session that has not started nothing ran
//                         and there is no promise: the resent messages are all it missed, caught up at once.
//   not covers, started → a hot-join round `player returned` (out.returned, round: true); the returner is not ready
//                         until its Hello after the load (`game.loaded`); a failed round is retried by the host and
//                         the chart keeps waiting.
//   not covers, not started → nothing ran, no reload (out.returned, round: false: PlayerJoined and Permissions only,
//                         the returner keeps the ready it had); caught up at once.
//
// While catching up, the catch-up limit (`catchUpLimit`, 300 s) only warns once: the spec gives a caught-up returner
// no round, and the lockstep's stall rule already keeps a slow game from holding the others (its promise stands in,
// its late actions are vetoed); a forked or stuck world is the checksum policy's to repair. A resync round that loads
// the returner meanwhile (any reason) brings it to the host's world: its Hello after the load ends the catch-up too.
//
// Pure: the session does the I/O and the lockstep/resync wiring; time only from the named delay on the actor's clock.
import { assign, emit, setup } from 'xstate';

/** How long a returner may stay behind before the host warns (default of the named delay `catchUpLimit`). */
export const CATCH_UP_LIMIT_MS = 300_000;

/** The system id of a returning player's catch-up actor. */
export const catchUpId = (id: number) => `catchUp:${id}`;

/** The resync round's reason when a returner cannot be caught up (spec "Hot join"). */
export const PLAYER_RETURNED = 'player returned' as const;

/** The outbox's answer for `last` (machines/rules/outbox.ts). */
export type OutboxAnswer = { covers: true; count: number } | { covers: false; why: string };

export interface CatchUpInput {
  id: number;
  name: string;
  /** resume.last from the Join: the counter of the last host frame the player read (undefined: it read none). */
  last: number | undefined;
  /** The host outbox's answer for `last`: every message after `last` still held (count of them), or why not. */
  outbox: OutboxAnswer;
  /** Whether the session has started (a not-started session needs no reload: nothing ran). */
  started: boolean;
}

export type CatchUpEvent =
  /** The lockstep: the returner's game reached the host's promise (its stall mark ended). */
  | { type: 'game.reached' }
  /** The returner's Hello after a resync round's load. */
  | { type: 'game.loaded' }
  /** The `player returned` round failed; the host retries, the chart keeps waiting for the next load. */
  | { type: 'round.failed' }
  /** The returner's connection dropped again (the slot chart holds the slot). */
  | { type: 'conn.closed'; reason: string }
  /** The slot was released (reconnect window over, kick, Leave). */
  | { type: 'slot.released'; reason: string }
  /** The session ends. */
  | { type: 'cmd.shutdown' };

export type CatchUpLogLine = { type: 'out.log'; level: 'info' | 'warn'; msg: string; id: number };

export type CatchUpEmitted =
  /** Resend the `count` held messages after `last`, sealed anew, in order; then PlayerJoined to the others and
   *  Permissions to the returner. The returner stays ready and catches up as a stalled game (no round). */
  | { type: 'out.resend'; id: number; last: number | undefined; count: number }
  /** PlayerJoined to the others, Permissions to the returner; with `round: true` (a started session) start a hot-join
   *  resync round with reason `player returned`, the returner not ready until its Hello after the load; with
   *  `round: false` (not started) no round, the returner keeps the ready it had. */
  | { type: 'out.returned'; id: number; reason: typeof PLAYER_RETURNED; round: boolean }
  | CatchUpLogLine;

export type CatchUpResult = 'caughtUp' | 'reloaded' | 'dropped' | 'released' | 'shutdown';
export type CatchUpOutput = { id: number; result: CatchUpResult };

interface Context extends CatchUpInput {
  result?: CatchUpResult;
}

/** The catch-up limit in force: the named delay as provided (a number, or a function of the state), so the warning
 *  names the limit the timer used. */
function limitMs(args: { context: Context; event: CatchUpEvent; self: unknown; system: unknown }): number {
  const logic = (args.self as { logic?: { implementations?: { delays?: Record<string, unknown> } } }).logic;
  const delay = logic?.implementations?.delays?.catchUpLimit;
  const ms = typeof delay === 'function' ? (delay as (a: unknown, p: unknown) => unknown)(args, undefined) : delay;
  return typeof ms === 'number' ? ms : CATCH_UP_LIMIT_MS;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const lastText = (last: number | undefined) => (last === undefined ? 'none (it read no host frame)' : String(last));
const whyOf = (c: CatchUpInput) => (c.outbox.covers ? 'covered' : c.outbox.why);

/** The catch-up's log lines (prefix `catch-up: <name>`). */
export const CATCH_UP_LOG = {
  resent: (c: CatchUpInput) =>
    `catch-up: ${c.name} resent ${plural(c.outbox.covers ? c.outbox.count : 0, 'message')} after ${lastText(c.last)}`,
  notStartedCovered: (c: CatchUpInput) => `catch-up: ${c.name} caught up: the session has not started, nothing ran`,
  notStarted: (c: CatchUpInput) =>
    `catch-up: ${c.name} cannot be caught up (${whyOf(c)}), but the session has not started: no reload, it keeps its ready`,
  reload: (c: CatchUpInput) => `catch-up: ${c.name} cannot be caught up (${whyOf(c)}): a player returned round`,
  reached: (c: CatchUpInput) => `catch-up: ${c.name} caught up`,
  behind: (c: CatchUpInput, ms: number) => `catch-up: ${c.name} still behind after ${ms / 1000} s`,
  loaded: (c: CatchUpInput) => `catch-up: ${c.name} reloaded: its Hello after the load`,
  loadedWhileCatchingUp: (c: CatchUpInput) => `catch-up: ${c.name} reloaded by a resync round before it caught up`,
  roundFailed: (c: CatchUpInput) => `catch-up: ${c.name}'s player returned round failed; waiting for the next load`,
  dropped: (c: CatchUpInput, reason: string) => `catch-up: ${c.name} dropped again (${reason}) before it caught up`,
  released: (c: CatchUpInput, reason: string) => `catch-up: ${c.name} released (${reason}) before it caught up`,
} as const;

const machineSetup = setup({
  types: {
    input: {} as CatchUpInput,
    context: {} as Context,
    events: {} as CatchUpEvent,
    emitted: {} as CatchUpEmitted,
    output: {} as CatchUpOutput,
  },
  delays: { catchUpLimit: CATCH_UP_LIMIT_MS },
  guards: {
    covers: ({ context }) => context.outbox.covers,
    started: ({ context }) => context.started,
  },
  actions: {
    end: assign((_, p: { result: CatchUpResult }) => ({ result: p.result })),
    log: emit(({ context }, p: { level: 'info' | 'warn'; msg: string }) => ({
      type: 'out.log' as const,
      level: p.level,
      msg: p.msg,
      id: context.id,
    })),
    emitResend: emit(({ context }) => ({
      type: 'out.resend' as const,
      id: context.id,
      last: context.last,
      count: context.outbox.covers ? context.outbox.count : 0,
    })),
    emitReturned: emit(({ context }, p: { round: boolean }) => ({
      type: 'out.returned' as const,
      id: context.id,
      reason: PLAYER_RETURNED,
      round: p.round,
    })),
    warnBehind: emit((args) => ({
      type: 'out.log' as const,
      level: 'warn' as const,
      msg: CATCH_UP_LOG.behind(args.context, limitMs(args)),
      id: args.context.id,
    })),
  },
});

// Whatever the returner is waiting for (CatchingUp, Reloading), the session's end, the slot's release and a drop end it.
// Written on each waiting state rather than on the root: a root handler would also leave the final states in a pure
// `transition()` and in the xstate/graph model (a live done actor ignores events, the model would not).
const ENDS = {
  'slot.released': {
    target: 'Released',
    actions: [
      { type: 'end', params: { result: 'released' } },
      {
        type: 'log',
        params: ({ context, event }: { context: Context; event: Extract<CatchUpEvent, { type: 'slot.released' }> }) => ({
          level: 'info' as const,
          msg: CATCH_UP_LOG.released(context, event.reason),
        }),
      },
    ],
  },
  'cmd.shutdown': { target: 'Shutdown', actions: { type: 'end', params: { result: 'shutdown' } } },
  'conn.closed': {
    target: 'Dropped',
    actions: [
      {
        type: 'log',
        params: ({ context, event }: { context: Context; event: Extract<CatchUpEvent, { type: 'conn.closed' }> }) => ({
          level: 'info' as const,
          msg: CATCH_UP_LOG.dropped(context, event.reason),
        }),
      },
      { type: 'end', params: { result: 'dropped' } },
    ],
  },
} as const;

export const catchUpMachine = machineSetup.createMachine({
  id: 'catchUp',
  context: ({ input }) => ({ ...input }),
  initial: 'Deciding',
  output: ({ context }): CatchUpOutput => ({ id: context.id, result: context.result ?? 'shutdown' }),
  states: {
    Deciding: {
      description:
        'Deciding (transient): the outbox answered for context.last of the returner (context.name, id context.id). ' +
        'Covers → Resending; not covered in a started session → Reloading; not covered before the start → CaughtUp ' +
        '(nothing ran, no reload).',
      always: [
        { guard: 'covers', target: 'Resending' },
        {
          guard: 'started',
          target: 'Reloading',
          actions: { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.reload(context) }) },
        },
        {
          target: 'CaughtUp',
          actions: [
            { type: 'emitReturned', params: { round: false } },
            { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.notStarted(context) }) },
            { type: 'end', params: { result: 'caughtUp' } },
          ],
        },
      ],
    },
    Resending: {
      description:
        'Resending (transient): the host resends the returner (context.name) the context.outbox.count messages after ' +
        'context.last, then PlayerJoined to the others and Permissions to it. In a started session it then catches ' +
        'up as a stalled game; before the start nothing ran and it is caught up at once.',
      entry: [
        'emitResend',
        { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.resent(context) }) },
      ],
      always: [
        { guard: 'started', target: 'CatchingUp' },
        {
          target: 'CaughtUp',
          actions: [
            { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.notStartedCovered(context) }) },
            { type: 'end', params: { result: 'caughtUp' } },
          ],
        },
      ],
    },
    CatchingUp: {
      description:
        'CatchingUp: the returner (context.name, id context.id) is ready and replays what it missed as a stalled game; ' +
        'waits for the lockstep to say its game reached the host promise (`game.reached`), or for a resync round ' +
        'that reloads it (`game.loaded`). After the catch-up limit (`catchUpLimit`, 300 s) it warns once and keeps ' +
        'waiting (OnTime → Late). A drop (`conn.closed`) ends it as dropped.',
      initial: 'OnTime',
      states: {
        OnTime: {
          description:
            'OnTime: within the catch-up limit (`catchUpLimit`, 300 s) of the resend; waits for the returner (context.name) ' +
            'to reach the host promise.',
          after: {
            catchUpLimit: { target: 'Late', actions: 'warnBehind' },
          },
        },
        Late: {
          description:
            'Late: the returner (context.name) is still behind after the catch-up limit; warned once, still waits for ' +
            '`game.reached` (the stall rule keeps it from holding the others; a fork is the checksum policy\'s).',
        },
      },
      on: {
        'game.reached': {
          target: 'CaughtUp',
          actions: [
            { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.reached(context) }) },
            { type: 'end', params: { result: 'caughtUp' } },
          ],
        },
        'game.loaded': {
          target: 'Reloaded',
          actions: [
            { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.loadedWhileCatchingUp(context) }) },
            { type: 'end', params: { result: 'reloaded' } },
          ],
        },
        ...ENDS,
      },
    },
    Reloading: {
      description:
        'Reloading: a hot-join round `player returned` reloads the returner (context.name, id context.id), not ready ' +
        'until then; waits for its Hello after the load (`game.loaded`). A failed round is logged and the chart keeps ' +
        'waiting (the host retries); a drop (`conn.closed`) ends it as dropped.',
      entry: { type: 'emitReturned', params: { round: true } },
      on: {
        'game.loaded': {
          target: 'Reloaded',
          actions: [
            { type: 'log', params: ({ context }) => ({ level: 'info', msg: CATCH_UP_LOG.loaded(context) }) },
            { type: 'end', params: { result: 'reloaded' } },
          ],
        },
        'round.failed': {
          actions: { type: 'log', params: ({ context }) => ({ level: 'warn', msg: CATCH_UP_LOG.roundFailed(context) }) },
        },
        ...ENDS,
      },
    },
    CaughtUp: {
      type: 'final',
      description: 'CaughtUp: the returner runs with the others (reached the promise, or nothing ran before the start).',
    },
    Reloaded: { type: 'final', description: 'Reloaded: the returner said Hello after a resync round loaded it.' },
    Dropped: {
      type: 'final',
      description: 'Dropped: the returner dropped again before it caught up; the slot chart holds its slot, a new resume starts a new catch-up.',
    },
    Released: { type: 'final', description: 'Released: the slot was released (window over, kick, Leave) before it caught up.' },
    Shutdown: { type: 'final', description: 'Shutdown: the session ended.' },
  },
});
