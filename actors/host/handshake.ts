// One connection's handshake as the host runs it: the hostHandshake chart on the session's clock, wired to the
// connection (Challenge out, Reject and close) and to the session (a slot asked for; welcomed or not). Frames
// that arrive before the Welcome are fed in here: only an unsealed Join from the unassigned sender counts.
import { createActor, type Actor } from 'xstate';
import type { Crypto } from '../../protocol/crypto.ts';
import { UNASSIGNED_SENDER, type Frame } from '../../protocol/frame.ts';
import { checkJoinProof } from '../../protocol/keys.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { hostHandshakeMachine } from '../../machines/hostHandshake.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Clock, LogFn } from '../ports.ts';
import { decodeMessage, unsealedFrame } from '../wire.ts';
import { checkMods, type ModEntry } from './mods.ts';
import type { InspectionObserver } from './hostTypes.ts';

export type HandshakeActor = Actor<typeof hostHandshakeMachine>;

export interface HandshakeDeps {
  crypto: Crypto;
  clock: Clock;
  log: LogFn;
  key: Uint8Array;
  version: string;
  mods: ModEntry[] | undefined;
  joinDeadlineMs: number;
  /** The session's inspection observer (HostPorts.inspect), if any. */
  inspect?: InspectionObserver;
  /** Seats the player: its id, or why not (full). */
  admit(name: string, caps?: readonly string[]): { ok: true; you: number } | { ok: false; reason: 'full' | 'flood'; detail: string };
  /** The handshake ended with a Welcome to give. */
  welcomed(you: number): void;
  /** The handshake ended (welcomed, rejected or closed). */
  ended(): void;
}

/** Creates (not yet started) the handshake actor of `conn`. */
export function createHandshake(conn: ConnectionHandle, deps: HandshakeDeps): HandshakeActor {
  const { crypto } = deps;
  const nonce = crypto.randomBytes(16);
  const machine = hostHandshakeMachine.provide({ delays: { joinDeadline: deps.joinDeadlineMs } });
  const actor = createActor(machine, {
    clock: deps.clock,
    systemId: `handshake:${conn.id}`,
    ...(deps.inspect ? { inspect: deps.inspect } : {}),
    input: {
      connId: conn.id,
      nonce,
      version: deps.version,
      verifyProof: (name, proof) => checkJoinProof(crypto, deps.key, nonce, name, proof),
      checkMods: (mods) => checkMods(deps.mods, mods),
    },
  });
  actor.on('send.Challenge', (e) => conn.write(unsealedFrame('Challenge', e.payload)));
  actor.on('send.Reject', (e) => conn.close(e.payload.reason, unsealedFrame('Reject', e.payload)));
  actor.on('out.log', ({ type: _type, ...entry }) => deps.log(entry));
  actor.on('out.admit', (e) => {
    const seat = deps.admit(e.join.name, e.join.caps);
    actor.send(seat.ok ? { type: 'admit.accept', you: seat.you } : { type: 'admit.refuse', reason: seat.reason, detail: seat.detail });
  });
  actor.subscribe({
    complete: () => {
      deps.ended();
      const output = actor.getSnapshot().output;
      if (output?.result === 'welcomed') deps.welcomed(output.you);
    },
  });
  return actor;
}

/** A frame before the Welcome: an unsealed Join from the unassigned sender, or the handshake is malformed. */
export function handshakeFrame(actor: HandshakeActor, frame: Frame): void {
  if (frame.header.kind !== Kind.Join || frame.header.sender !== UNASSIGNED_SENDER) {
    actor.send({ type: 'recv.malformed', detail: `expected Join, got kind ${frame.header.kind}` });
    return;
  }
  const decoded = decodeMessage(frame.header.kind, frame.body);
  if (!decoded.ok || decoded.message.kind !== 'Join') {
    actor.send({ type: 'recv.malformed', detail: decoded.ok ? 'not a Join' : decoded.detail });
    return;
  }
  actor.send({ type: 'recv.Join', payload: decoded.message.payload });
}
