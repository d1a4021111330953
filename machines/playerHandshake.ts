// The player's side of the handshake (spec "Handshake"): answer a Challenge only if its nonce has 16
// bytes and the protocol number is ours; honour an (unsealed) Reject only while still joining; drop a
// second Welcome (it would replace the sealer and restart the counter) and any later Reject.
import { assign, emit, setup } from 'xstate';
import type { Payloads } from '../protocol/messages/index.ts';
import { JOIN_DEADLINE_MS, PROTOCOL_NUMBER } from './hostHandshake.ts';

export interface PlayerHandshakeInput {
  /** Builds our Join for the host's nonce (name, version, proof, mods). */
  makeJoin(nonce: Uint8Array): Payloads['Join'];
}

export type PlayerHandshakeEvent =
  | { type: 'recv.Challenge'; payload: Payloads['Challenge'] }
  /** An unsealed Challenge that did not decode (a nonce that is not 16 bytes, bad JSON): ends a first attempt. */
  | { type: 'recv.badChallenge'; detail: string }
  | { type: 'recv.Reject'; payload: Payloads['Reject'] }
  /** A Welcome that opened under the session key from sender 0. */
  | { type: 'recv.Welcome'; payload: Payloads['Welcome'] }
  /** The sealed Kicked: the host ended this player's session. */
  | { type: 'recv.Kicked'; payload: Payloads['Kicked'] }
  | { type: 'conn.closed'; reason: string };

export type PlayerHandshakeEmitted =
  | { type: 'send.Join'; payload: Payloads['Join'] }
  | { type: 'out.welcomed'; welcome: Payloads['Welcome'] }
  | { type: 'out.ended'; reason: string; detail?: string }
  | { type: 'out.log'; msg: string; [k: string]: unknown };

export type PlayerHandshakeOutput = { reason: string; detail?: string };

interface Context {
  input: PlayerHandshakeInput;
  end?: PlayerHandshakeOutput;
}

export const playerHandshakeMachine = setup({
  types: {
    input: {} as PlayerHandshakeInput,
    context: {} as Context,
    events: {} as PlayerHandshakeEvent,
    emitted: {} as PlayerHandshakeEmitted,
    output: {} as PlayerHandshakeOutput,
  },
  delays: { joinDeadline: JOIN_DEADLINE_MS },
  guards: {
    challengeIsOurs: (_, p: { challenge: Payloads['Challenge'] }) =>
      p.challenge.nonce.length === 16 && p.challenge.protocol === PROTOCOL_NUMBER,
    protocolIsOther: (_, p: { challenge: Payloads['Challenge'] }) => p.challenge.protocol !== PROTOCOL_NUMBER,
  },
  actions: {
    sendJoin: emit(({ context }, p: { nonce: Uint8Array }) => ({
      type: 'send.Join' as const,
      payload: context.input.makeJoin(p.nonce),
    })),
    announceWelcome: emit((_, p: { welcome: Payloads['Welcome'] }) => ({ type: 'out.welcomed' as const, welcome: p.welcome })),
    setEnd: assign((_, p: PlayerHandshakeOutput) => ({ end: p })),
    announceEnd: emit(({ context }) => ({
      type: 'out.ended' as const,
      reason: context.end?.reason ?? 'closed',
      ...(context.end?.detail === undefined ? {} : { detail: context.end.detail }),
    })),
    log: emit((_, p: { msg: string }) => ({ type: 'out.log' as const, msg: p.msg })),
  },
}).createMachine({
  id: 'playerHandshake',
  context: ({ input }) => ({ input }),
  initial: 'Joining',
  output: ({ context }) => context.end ?? { reason: 'closed' },
  on: {
    'conn.closed': {
      target: '.Ended',
      actions: { type: 'setEnd', params: ({ event }) => ({ reason: event.reason }) },
    },
  },
  states: {
    Joining: {
      description: 'Connected; no Welcome yet. An unsealed Reject is honoured only here.',
      after: {
        joinDeadline: { target: 'Ended', actions: { type: 'setEnd', params: { reason: 'timeout', detail: 'no Welcome' } } },
      },
      on: {
        'recv.Reject': {
          target: 'Ended',
          actions: {
            type: 'setEnd',
            params: ({ event }) => ({ reason: event.payload.reason, ...(event.payload.detail ? { detail: event.payload.detail } : {}) }),
          },
        },
      },
      initial: 'AwaitingChallenge',
      states: {
        AwaitingChallenge: {
          description: 'Waiting for the host’s Challenge. A Welcome now answers no Join of ours: dropped.',
          on: {
            'recv.Welcome': { actions: { type: 'log', params: { msg: 'Welcome before our Join dropped' } } },
            'recv.Challenge': [
              {
                guard: { type: 'challengeIsOurs', params: ({ event }) => ({ challenge: event.payload }) },
                target: 'AwaitingWelcome',
                actions: { type: 'sendJoin', params: ({ event }) => ({ nonce: event.payload.nonce }) },
              },
              {
                guard: { type: 'protocolIsOther', params: ({ event }) => ({ challenge: event.payload }) },
                target: '#playerHandshake.Ended',
                actions: {
                  type: 'setEnd',
                  params: ({ event }) => ({
                    reason: 'version',
                    detail: `host speaks protocol ${event.payload.protocol}, we speak ${PROTOCOL_NUMBER}`,
                  }),
                },
              },
              {
                target: '#playerHandshake.Ended',
                actions: { type: 'setEnd', params: { reason: 'malformed', detail: 'challenge nonce is not 16 bytes' } },
              },
            ],
            'recv.badChallenge': {
              target: '#playerHandshake.Ended',
              actions: { type: 'setEnd', params: ({ event }) => ({ reason: 'malformed', detail: event.detail }) },
            },
          },
        },
        AwaitingWelcome: {
          description: 'Join sent; waiting for Welcome or Reject.',
          on: {
            'recv.Challenge': { actions: { type: 'log', params: { msg: 'second Challenge ignored' } } },
            'recv.Welcome': {
              target: '#playerHandshake.Joined',
              actions: { type: 'announceWelcome', params: ({ event }) => ({ welcome: event.payload }) },
            },
          },
        },
      },
    },
    Joined: {
      description: 'In the session. Reject and a second Welcome are dropped; only the sealed Kicked ends it.',
      on: {
        'recv.Welcome': { actions: { type: 'log', params: { msg: 'second Welcome dropped' } } },
        'recv.Reject': { actions: { type: 'log', params: { msg: 'Reject after Welcome dropped' } } },
        'recv.Challenge': { actions: { type: 'log', params: { msg: 'Challenge after Welcome dropped' } } },
        'recv.Kicked': {
          target: 'Ended',
          actions: {
            type: 'setEnd',
            params: ({ event }) => ({ reason: event.payload.reason, ...(event.payload.detail ? { detail: event.payload.detail } : {}) }),
          },
        },
      },
    },
    Ended: { type: 'final', entry: 'announceEnd' },
  },
});
