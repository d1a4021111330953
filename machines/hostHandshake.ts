// The host's side of one connection's handshake (spec "Handshake"): send a Challenge, wait for a Join,
// verify proof, version and mods, ask the session for a slot, then Welcome or Reject — all within the
// join deadline (15 s). The session does the I/O: it feeds decoded frames in and acts on what this emits.
import { assign, emit, setup } from 'xstate';
import type { Payloads, RejectReason } from '../protocol/messages/index.ts';

export const JOIN_DEADLINE_MS = 15_000;
export const PROTOCOL_NUMBER = 1;

type JoinPayload = Payloads['Join'];
type RejectPayload = Payloads['Reject'];

export interface HostHandshakeInput {
  connId: number;
  /** 16 fresh random bytes (machines draw no randomness themselves). */
  nonce: Uint8Array;
  /** Our FeverLink3 version ("0.1"). */
  version: string;
  /** proof = HMAC-SHA256(key, nonce ‖ UTF8(name)), compared in constant time; false for a wrong length. */
  verifyProof(name: string, proof: Uint8Array): boolean;
  /** The mod list check (lockstep.md "Mod list"): undefined when it passes, else the Reject to send. */
  checkMods(mods: JoinPayload['mods']): RejectPayload | undefined;
}

export type HostHandshakeEvent =
  | { type: 'recv.Join'; payload: JoinPayload }
  /** A frame that is not a valid Join (wrong kind, bad JSON, bad fields): Reject malformed. */
  | { type: 'recv.malformed'; detail: string }
  /** The transport counted too many frames or bytes: Reject flood. */
  | { type: 'conn.flood' }
  | { type: 'conn.closed'; reason: string }
  /** The session seated the player. */
  | { type: 'admit.accept'; you: number }
  /** The session has no slot (or no id) left (`full`), or this address joined too often (`flood`). */
  | { type: 'admit.refuse'; reason: 'full' | 'flood'; detail: string };

export type HostHandshakeEmitted =
  | { type: 'send.Challenge'; payload: Payloads['Challenge'] }
  | { type: 'send.Reject'; payload: RejectPayload }
  | { type: 'out.admit'; join: JoinPayload }
  | { type: 'out.log'; msg: string; [k: string]: unknown };

export type HostHandshakeOutput =
  | { result: 'welcomed'; you: number; join: JoinPayload }
  | { result: 'rejected'; reject: RejectPayload }
  | { result: 'closed'; reason: string };

interface Context {
  input: HostHandshakeInput;
  join?: JoinPayload;
  you?: number;
  reject?: RejectPayload;
  closedBecause?: string;
}

function reject(reason: RejectReason, detail?: string): RejectPayload {
  return detail === undefined ? { reason } : { reason, detail };
}

export const hostHandshakeMachine = setup({
  types: {
    input: {} as HostHandshakeInput,
    context: {} as Context,
    events: {} as HostHandshakeEvent,
    emitted: {} as HostHandshakeEmitted,
    output: {} as HostHandshakeOutput,
  },
  delays: { joinDeadline: JOIN_DEADLINE_MS },
  guards: {
    proofIsBad: ({ context }, p: { join: JoinPayload }) => !context.input.verifyProof(p.join.name, p.join.proof),
    versionIsOther: ({ context }, p: { join: JoinPayload }) => p.join.version !== context.input.version,
    modsDiffer: ({ context }, p: { join: JoinPayload }) => context.input.checkMods(p.join.mods) !== undefined,
  },
  actions: {
    sendChallenge: emit(({ context }) => ({
      type: 'send.Challenge' as const,
      payload: { nonce: context.input.nonce, protocol: PROTOCOL_NUMBER, version: context.input.version },
    })),
    setReject: assign((_, p: { reject: RejectPayload }) => ({ reject: p.reject })),
    setVersionReject: assign(({ context }, p: { join: JoinPayload }) => ({
      reject: reject('version', `host runs FeverLink3 ${context.input.version}, player runs ${p.join.version}`),
    })),
    setModsReject: assign(({ context }, p: { join: JoinPayload }) => ({ reject: context.input.checkMods(p.join.mods) })),
    askForSlot: emit((_, p: { join: JoinPayload }) => ({ type: 'out.admit' as const, join: p.join })),
    keepJoin: assign((_, p: { join: JoinPayload }) => ({ join: p.join })),
    keepSeat: assign((_, p: { you: number }) => ({ you: p.you })),
    sendReject: emit(({ context }) => ({ type: 'send.Reject' as const, payload: context.reject ?? reject('malformed') })),
    logReject: emit(({ context }) => ({
      type: 'out.log' as const,
      msg: 'join rejected',
      conn: context.input.connId,
      reason: context.reject?.reason,
      detail: context.reject?.detail,
    })),
    noteClosed: assign((_, p: { reason: string }) => ({ closedBecause: p.reason })),
    logIgnoredJoin: emit(({ context }) => ({
      type: 'out.log' as const,
      msg: 'second Join ignored',
      conn: context.input.connId,
    })),
  },
}).createMachine({
  id: 'hostHandshake',
  context: ({ input }) => ({ input }),
  initial: 'Handshaking',
  output: ({ context }): HostHandshakeOutput =>
    context.you !== undefined && context.join
      ? { result: 'welcomed', you: context.you, join: context.join }
      : context.reject
        ? { result: 'rejected', reject: context.reject }
        : { result: 'closed', reason: context.closedBecause ?? 'closed' },
  states: {
    Handshaking: {
      description: 'The connection has until the join deadline to present an accepted Join.',
      after: { joinDeadline: { target: 'Rejected', actions: { type: 'setReject', params: { reject: reject('timeout') } } } },
      on: {
        'conn.closed': { target: 'Closed', actions: { type: 'noteClosed', params: ({ event }) => ({ reason: event.reason }) } },
        'conn.flood': { target: 'Rejected', actions: { type: 'setReject', params: { reject: reject('flood') } } },
        'recv.malformed': {
          target: 'Rejected',
          actions: { type: 'setReject', params: ({ event }) => ({ reject: reject('malformed', event.detail) }) },
        },
      },
      initial: 'AwaitingJoin',
      states: {
        AwaitingJoin: {
          description: 'Challenge sent; waiting for the Join that answers it.',
          entry: 'sendChallenge',
          on: {
            'recv.Join': [
              {
                guard: { type: 'proofIsBad', params: ({ event }) => ({ join: event.payload }) },
                target: '#hostHandshake.Rejected',
                actions: { type: 'setReject', params: { reject: reject('bad-proof') } },
              },
              {
                guard: { type: 'versionIsOther', params: ({ event }) => ({ join: event.payload }) },
                target: '#hostHandshake.Rejected',
                actions: { type: 'setVersionReject', params: ({ event }) => ({ join: event.payload }) },
              },
              {
                guard: { type: 'modsDiffer', params: ({ event }) => ({ join: event.payload }) },
                target: '#hostHandshake.Rejected',
                actions: { type: 'setModsReject', params: ({ event }) => ({ join: event.payload }) },
              },
              {
                target: 'Admitting',
                actions: [
                  { type: 'keepJoin', params: ({ event }) => ({ join: event.payload }) },
                  { type: 'askForSlot', params: ({ event }) => ({ join: event.payload }) },
                ],
              },
            ],
          },
        },
        Admitting: {
          description: 'Proof, version and mods passed; waiting for the session to seat the player.',
          on: {
            'admit.accept': {
              target: '#hostHandshake.Welcomed',
              actions: { type: 'keepSeat', params: ({ event }) => ({ you: event.you }) },
            },
            'admit.refuse': {
              target: '#hostHandshake.Rejected',
              actions: { type: 'setReject', params: ({ event }) => ({ reject: reject(event.reason, event.detail) }) },
            },
            'recv.Join': { actions: 'logIgnoredJoin' },
          },
        },
      },
    },
    Welcomed: { type: 'final' },
    Rejected: { type: 'final', entry: ['logReject', 'sendReject'] },
    Closed: { type: 'final' },
  },
});
