// The host's lockstep chart (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12, Clock 31, SpeedRequest
// 32, Action 50, BuildVeto 52, Permissions; prior-projects §2.6 H1–H8, P1–P4): it relays clocks and actions in one
// order, starts the session once the games agree, pauses and changes speed, runs the pause order and marks stalls.
// Time comes in the events (`now`: the host's clock in ms, from the actor's injected clock); no timers here.
import { and, assign, emit, enqueueActions, raise, setup } from 'xstate';
import { joinGame, sessionPayloadOf, stalledIds } from './rules/lockstep.ts';
import type { FlushedPauseAction } from './rules/lockstep.ts';
import type { LockstepContext } from './lockstepContext.ts';
import { clockRefusal, helloRefusal, stampRefusal } from './rules/screen.ts';
import * as steps from './rules/lockstepSteps.ts';
import type { Step } from './rules/lockstepSteps.ts';
import { SPEEDS } from './rules/lockstepTypes.ts';
import type {
  ActionPayload,
  ClockPayload,
  HelloPayload,
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
 * chart raises it from `cmd.pause`, a valid `cmd.speed` and an allowed SpeedRequest.
 */
export type LockstepEvent =
  | { type: 'recv.Hello'; from: number; payload: HelloPayload; now: number }
  | { type: 'recv.Clock'; from: number; payload: ClockPayload; now: number; wall?: number }
  | { type: 'recv.Action'; from: number; payload: ActionPayload; now: number; wall?: number }
  | { type: 'recv.SpeedRequest'; from: number; payload: SpeedRequestPayload; now: number }
  | { type: 'cmd.start'; now?: number }
  | { type: 'cmd.pause'; now?: number }
  | { type: 'cmd.speed'; speed: number; now?: number }
  | { type: 'game.joined'; id: number; now?: number }
  | { type: 'game.left'; id: number; now?: number }
  /** maxRtt: the largest smoothed round trip (ms); rtt/off per player (ms) for the hop's sr/so. */
  | { type: 'rtt.updated'; maxRtt: number; rtt?: Record<number, number>; off?: Record<number, number>; now?: number }
  | { type: 'permissions.changed'; permissions: Partial<PermissionsPayload>; now?: number }
  | { type: 'tick'; now: number }
  | { type: 'speed.requested'; speed: Speed; by: number | 'host' };

/** What the actor sends, in the order the receivers must see it (one ordered path per receiver). */
export type LockstepEmitted =
  | { type: 'send.Session'; to: 'all'; payload: SessionPayload }
  | { type: 'send.PeerClock'; to: 'allBut'; except: number; payload: PeerClockPayload }
  | { type: 'send.Action'; to: 'allBut'; except: number; payload: RelayedActionPayload }
  | { type: 'send.Action'; to: 'all'; payload: FlushedPauseAction }
  | { type: 'send.BuildVeto'; to: 'all'; payload: HostBuildVetoPayload }
  | { type: 'out.waiting'; reason: string }
  | { type: 'out.log'; msg: string; [k: string]: unknown };

export type { LockstepContext, LockstepSession } from './lockstepContext.ts';

/** The Session the host would broadcast now (also for Welcome.session). */
export function sessionOf(context: LockstepContext): SessionPayload {
  return sessionPayloadOf(context.session, stalledIds(context.games));
}

type RecvParams<P> = { from: number; payload: P; wall?: number | undefined };

export const lockstepMachine = setup({
  types: {
    input: {} as LockstepInput,
    context: {} as LockstepContext,
    events: {} as LockstepEvent,
    emitted: {} as LockstepEmitted,
  },
  guards: {
    startRequested: ({ context }) => context.startRequested,
    gamesAgree: ({ context }) => steps.startCheckOf(context).ok,
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
    flushDue: ({ context }) => steps.flushDue(context),
    fromStranger: ({ context }, p: { from: number }) => context.games[p.from]?.ready !== true,
    fromOutsider: ({ context }, p: { from: number }) => context.games[p.from]?.hasWorld === false,
    isPauseAction: (_, p: { payload: ActionPayload }) => p.payload.pause === true,
    hasNoStamp: (_, p: { payload: ActionPayload }) => p.payload.stamp === undefined,
    helloRefused: (_, p: { payload: HelloPayload }) => helloRefusal(p.payload) !== undefined,
    clockRefused: (_, p: { payload: ClockPayload }) => clockRefusal(p.payload) !== undefined,
    stampRefused: ({ context }, p: { from: number; payload: ActionPayload }) =>
      stampRefusal(context.games[p.from], p.payload) !== undefined,
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
    addGame: assign({
      games: ({ context }, p: { id: number }) => joinGame(context.games, p.id, context.session.started, context.now),
    }),
    removeGame: enqueueActions(({ context, enqueue }, p: { id: number }) =>
      apply(enqueue, steps.onLeave(context, p.id)),
    ),
    recordRtt: assign((_, p: Extract<LockstepEvent, { type: 'rtt.updated' }>) => ({
      maxRtt: p.maxRtt,
      ...(p.rtt ? { rtt: p.rtt } : {}),
      ...(p.off ? { off: p.off } : {}),
    })),
    recomputeLead: assign({ session: ({ context }) => ({ ...context.session, lead: steps.recomputedLead(context) }) }),
    announceLead: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.announceLead(context))),
    setPermissions: assign({ permissions: (_, p: { permissions: Partial<PermissionsPayload> }) => p.permissions }),
    takeHello: enqueueActions(({ context, enqueue }, p: RecvParams<HelloPayload>) =>
      apply(enqueue, steps.onHello(context, p.from, p.payload)),
    ),
    takeClock: enqueueActions(({ context, enqueue }, p: RecvParams<ClockPayload>) =>
      apply(enqueue, steps.onClock(context, p.from, p.payload, p.wall)),
    ),
    relayAction: enqueueActions(({ context, enqueue }, p: RecvParams<ActionPayload>) =>
      apply(enqueue, steps.onAction(context, p.from, p.payload, p.wall)),
    ),
    holdPause: enqueueActions(({ context, enqueue }, p: RecvParams<ActionPayload>) =>
      apply(enqueue, steps.onPauseAction(context, p.from, p.payload, p.wall)),
    ),
    vetoAction: enqueueActions(({ context, enqueue }, p: { from: number; seq: number; why: string }) =>
      apply(enqueue, steps.onVeto(context, p.from, p.seq, p.why)),
    ),
    flushIfRunning: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.flushIfRunning(context))),
    flushStopped: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.flushStopped(context))),
    flushOnResume: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.flushOnResume(context))),
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
    enterRunning: assign(({ context }) => steps.enterRunning(context)),
    pauseSession: assign(({ context }) => steps.pauseSession(context)),
    setSpeed: assign(({ context }, p: { speed: Speed }) => steps.setSpeed(context, p.speed as Exclude<Speed, 0>)),
    checkStalls: enqueueActions(({ context, enqueue }) => apply(enqueue, steps.checkStalls(context))),
  },
}).createMachine({
  id: 'lockstep',
  context: ({ input }) => steps.createLockstepContext(input),
  initial: 'NotStarted',
  on: {
    'game.joined': { actions: ['observeNow', { type: 'addGame', params: ({ event }) => ({ id: event.id }) }] },
    'game.left': { actions: ['observeNow', { type: 'removeGame', params: ({ event }) => ({ id: event.id }) }] },
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
      {
        guard: { type: 'fromStranger', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'logOnce',
            params: ({ event }) => ({
              key: `action-unready:${event.from}`,
              msg: 'action from a game not ready dropped',
              from: event.from,
            }),
          },
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
        actions: ['observeNow', { type: 'holdPause', params: ({ event }) => event }, 'flushIfRunning'],
      },
      {
        guard: { type: 'hasNoStamp', params: ({ event }) => event },
        actions: [
          'observeNow',
          {
            type: 'log',
            params: ({ event }) => ({
              msg: 'action without a stamp dropped',
              from: event.from,
              seq: event.payload.seq,
            }),
          },
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
        'Waits for cmd.start, then for the host game and every ready game to report a clock at the same time ' +
        '(out.waiting says why not).',
      always: [
        {
          guard: and(['startRequested', 'gamesAgree', 'startsPaused']),
          target: 'Paused',
          actions: ['startPaused', 'replayClocks', 'emitSession', { type: 'log', params: { msg: 'session started paused' } }],
        },
        {
          guard: and(['startRequested', 'gamesAgree']),
          target: 'Running',
          actions: [
            'startRunning',
            'recomputeLead',
            'flushIfRunning',
            'replayClocks',
            'emitSession',
            { type: 'log', params: { msg: 'session started' } },
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
      description: 'The games run at the session speed; each tick looks for stalled games.',
      entry: 'enterRunning',
      on: {
        'speed.requested': [
          {
            guard: { type: 'requestsPause', params: ({ event }) => event },
            target: 'Paused',
            actions: [
              'pauseSession',
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
        tick: { actions: ['observeNow', 'checkStalls'] },
      },
    },
    Paused: {
      description:
        'Every game runs to pauseAt and stands still; held pause actions are flushed at the first tick at which ' +
        'every ready pacing game reported stop. Waits for a speed.',
      on: {
        'speed.requested': [
          { guard: { type: 'requestsPause', params: ({ event }) => event } },
          {
            target: 'Running',
            actions: [
              'flushOnResume',
              { type: 'setSpeed', params: ({ event }) => event },
              'emitSession',
              { type: 'log', params: ({ event }) => ({ msg: 'session resumed', speed: event.speed, by: event.by }) },
            ],
          },
        ],
        tick: [{ guard: 'flushDue', actions: ['observeNow', 'flushStopped'] }, { actions: 'observeNow' }],
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

function veto(event: { from: number; payload: ActionPayload }, why: string) {
  return { from: event.from, seq: event.payload.seq, why };
}
