// One connection's handshake as the host runs it: the hostHandshake chart on the session's clock, wired to the
// connection (Challenge out, Reject and close) and to the session (a slot asked for; welcomed or not). Frames
// that arrive before the Welcome are fed in here: only an unsealed Join from the unassigned sender counts.
import { createActor, type Actor } from 'xstate';
import type { Crypto } from '../../protocol/crypto.ts';
import { UNASSIGNED_SENDER, type Frame } from '../../protocol/frame.ts';
import { checkJoinProof, checkResumeMac } from '../../protocol/keys.ts';
import { Kind, type Payloads } from '../../protocol/messages/index.ts';
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
  /**
   * Seats the player: its id, or why not (full). `resume`: the Join's resume, its MAC checked against the slot's token
   * (a returner; spec "Reconnect"); undefined for a plain join or a resume that did not check out (logged).
   */
  admit(
    name: string,
    caps: readonly string[] | undefined,
    resume: { id: number; last: number | undefined } | undefined,
  ): { ok: true; you: number } | { ok: false; reason: 'full' | 'flood'; detail: string };
  /** The resume tokens that take slot `id` back now (its last Welcome's, and maybe the one before), while held. */
  resumeTokens(id: number): Uint8Array[];
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
    const seat = deps.admit(e.join.name, e.join.caps, checkedResume(e.join, nonce, conn.id, deps));
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

/**
 * A Join's resume whose MAC checks out (HMAC over the token of the slot it names, this handshake's nonce, the id, the
 * Join's name and `last`, compared in constant time); anything else is a plain join, logged with why.
 */
function checkedResume(join: Payloads['Join'], nonce: Uint8Array, connId: number, deps: HandshakeDeps): { id: number; last: number | undefined } | undefined {
  const resume = join.resume;
  if (resume === undefined) return undefined;
  const tokens = deps.resumeTokens(resume.id);
  const last = resume.last === undefined ? undefined : BigInt(resume.last);
  // Every token is checked (each in constant time), so the answer's timing does not tell which one matched.
  let good = false;
  for (const token of tokens) good = checkResumeMac(deps.crypto, token, nonce, resume.id, join.name, last, resume.mac) || good;
  if (good) return { id: resume.id, last: resume.last };
  deps.log({ msg: 'resume refused: a plain join', conn: connId, id: resume.id, why: tokens.length === 0 ? 'no held slot with that id' : 'the resume MAC does not check out' });
  return undefined;
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
