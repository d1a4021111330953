// One connection's handshake as the player runs it (spec "Handshake", "Reconnect"): the playerHandshake chart on the
// session's clock (systemId `playerHandshake`; a new one for every connection: the first, and each resume), wired
// to the connection (Join out) and to the session (welcomed, ended, log lines, a fault of ours). Each listener is
// guarded: XState rethrows a listener's throw on a timer, which would end the process. Unsealed frames (the
// handshake's kinds) are fed in here: a Challenge or a Reject goes to the chart, anything else is dropped.
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Frame } from '../../protocol/frame.ts';
import { Kind, type Payloads } from '../../protocol/messages/index.ts';
import { playerHandshakeMachine } from '../../machines/playerHandshake.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded } from '../supervise.ts';
import { decodeMessage } from '../wire.ts';
import { joinProof } from '../../protocol/keys.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import type { PlayerOptions } from './playerTypes.ts';

export type PlayerHandshakeActor = Actor<typeof playerHandshakeMachine>;

export interface PlayerHandshakeDeps {
  clock: Clock;
  log: LogFn;
  inspect: ((event: InspectionEvent) => void) | undefined;
  /** The Join answering a Challenge's nonce. */
  makeJoin(nonce: Uint8Array): Payloads['Join'];
  /** Writes the Join (unsealed) to the connection. */
  sendJoin(payload: Payloads['Join']): void;
  welcomed(welcome: Payloads['Welcome']): void;
  ended(reason: string, detail?: string): void;
  /** The chart failed (our bug). */
  failed(err: unknown): void;
}

/** The Join answering a Challenge's nonce: our name, version and proof, `resume` while resuming, mods and caps. */
export function joinPayload(
  crypto: Crypto,
  options: Pick<PlayerOptions, 'name' | 'key' | 'mods' | 'caps'>,
  version: string,
  nonce: Uint8Array,
  resume: Payloads['Join']['resume'] | undefined,
): Payloads['Join'] {
  return {
    name: options.name,
    version,
    proof: joinProof(crypto, options.key, nonce, options.name),
    ...(resume ? { resume } : {}),
    ...(options.mods ? { mods: options.mods } : {}),
    ...(options.caps ? { caps: options.caps } : {}),
  };
}

/** The handshake chart of one connection, not started. */
export function createPlayerHandshake(
  machine: ReturnType<typeof playerHandshakeMachine.provide>,
  deps: PlayerHandshakeDeps,
): PlayerHandshakeActor {
  const handshake = createActor(machine, {
    clock: deps.clock,
    ...(deps.inspect ? { inspect: deps.inspect } : {}),
    systemId: 'playerHandshake',
    input: { makeJoin: (nonce) => deps.makeJoin(nonce) },
  });
  handshake.on('send.Join', guarded(deps.log, 'send Join', (e) => deps.sendJoin(e.payload)));
  handshake.on('out.welcomed', guarded(deps.log, 'welcome', (e) => deps.welcomed(e.welcome)));
  handshake.on('out.ended', guarded(deps.log, 'end', (e) => deps.ended(e.reason, e.detail)));
  handshake.on('out.log', guarded(deps.log, 'log', ({ type: _type, ...entry }) => deps.log(entry)));
  handshake.subscribe({ error: (err) => deps.failed(err) });
  return handshake;
}

/**
 * An unsealed frame for the handshake chart: a Challenge or a Reject goes to it (`rejected` sees a Reject's reason
 * first); anything else is dropped. Returns why it was dropped, for the session's drop log; undefined when handled.
 */
export function handshakeFrame(handshake: PlayerHandshakeActor, frame: Frame, rejected: (reason: string) => void): string | undefined {
  const kind = frame.header.kind;
  const decoded = decodeMessage(kind, frame.body);
  if (!decoded.ok) {
    // The schema refuses a nonce that is not 16 bytes before the chart's guard sees it: tell the chart.
    if (kind === Kind.Challenge) handshake.send({ type: 'recv.badChallenge', detail: decoded.detail });
    return 'unsealed frame did not decode';
  }
  const { message } = decoded;
  if (message.kind === 'Challenge') handshake.send({ type: 'recv.Challenge', payload: message.payload });
  else if (message.kind === 'Reject') {
    rejected(message.payload.reason);
    handshake.send({ type: 'recv.Reject', payload: message.payload });
  } else return 'unsealed frame of a sealed kind';
  return undefined;
}
