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
//
// The chart's input, events and outputs are in machines/lockstepEvents.ts, its context in lockstepContext.ts, its
// guards in lockstepGuards.ts and its actions in lockstepActions.ts; this file is the chart.
import { and, setup } from 'xstate';
import { sessionPayloadOf, stalledIds } from './rules/lockstep.ts';
import { pacingMachine } from './pacing.ts';
import { pauseOrderMachine } from './pauseOrder.ts';
import type { LockstepContext } from './lockstepContext.ts';
import type { LockstepEmitted, LockstepEvent, LockstepInput, LockstepSelf as Self } from './lockstepEvents.ts';
import { commitVeto, lockstepGuards, veto } from './lockstepGuards.ts';
import { lockstepActions } from './lockstepActions.ts';
import { clockRefusal, helloRefusal, stampRefusal } from './rules/screen.ts';
import * as steps from './rules/lockstepSteps.ts';
import type { SessionPayload, Speed } from './rules/lockstepTypes.ts';

export { DEFAULT_CLOCK_INTERVAL_MS } from './rules/lockstepSteps.ts';
export type { LockstepEmitted, LockstepEvent, LockstepInput } from './lockstepEvents.ts';
export type { LockstepContext, LockstepSession } from './lockstepContext.ts';

/** The Session the host would broadcast now (also for Welcome.session). */
export function sessionOf(context: LockstepContext): SessionPayload {
  return sessionPayloadOf(context.session, stalledIds(context.games));
}

export const lockstepMachine = setup({
  types: {
    input: {} as LockstepInput,
    context: {} as LockstepContext,
    events: {} as LockstepEvent,
    emitted: {} as LockstepEmitted,
  },
  actors: { pauseOrder: pauseOrderMachine, pacing: pacingMachine },
  guards: lockstepGuards,
  actions: lockstepActions,
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
