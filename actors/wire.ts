// The actors' one path between typed messages and frames: encode + seal on the way out, open + decode on the
// way in (DESIGN.md "data flows one way through the layers"). Shared by the host's and the player's session.
import { encodeUnsealedFrame, UNASSIGNED_SENDER, type Frame } from '../protocol/frame.ts';
import { utf8 } from '../protocol/bytes.ts';
import {
  Kind,
  LIMITS,
  decodePayload,
  encodePayload,
  kindName,
  payloadFromJson,
  payloadToJson,
  type KindName,
  type Payloads,
} from '../protocol/messages/index.ts';
import type { Opener, Sealer } from '../protocol/seal.ts';

/** Any message as a typed pair: its kind's name and its payload. */
export type Message = { [K in KindName]: { kind: K; payload: Payloads[K] } }[KindName];

/** An unsealed handshake frame (Challenge, Join, Reject) from the unassigned sender. */
export function unsealedFrame<K extends 'Challenge' | 'Join' | 'Reject'>(kind: K, payload: Payloads[K]): Uint8Array {
  return encodeUnsealedFrame(Kind[kind], UNASSIGNED_SENDER, encodePayload(kind, payload));
}

/** Room for the UTF-8 of a payload being sealed (a JSON text of n UTF-16 units is at most 3n bytes). */
const SCRATCH_BYTES = 64 * 1024;
const scratch = new Uint8Array(SCRATCH_BYTES);
const encoder = new TextEncoder();

/**
 * The sealed frame of a message, or `undefined` when its payload, measured as it is sealed, does not fit a frame
 * (more than LIMITS.payloadBytes: spec "Frame", "is not sent"); then nothing is sealed and no counter is used.
 */
export function sealedFrame<K extends KindName>(sealer: Sealer, kind: K, payload: Payloads[K]): Uint8Array | undefined {
  return sealedText(sealer, kind, payloadToJson(kind, payload));
}

/**
 * sealedFrame of a payload already written as JSON (payloadToJson's text). The text's UTF-8 goes into one reused
 * scratch buffer, not a fresh Uint8Array per frame (a new ArrayBuffer costs about a µs in Node, more than the
 * encoding): the Sealer's cipher reads the plaintext synchronously and keeps nothing (AeadKey.sealInto), and the
 * frame is a buffer of its own.
 */
export function sealedText(sealer: Sealer, kind: KindName, text: string): Uint8Array | undefined {
  if (text.length * 3 > SCRATCH_BYTES) {
    const bytes = utf8(text);
    return bytes.length > LIMITS.payloadBytes ? undefined : sealer.seal(Kind[kind], bytes);
  }
  const { written } = encoder.encodeInto(text, scratch);
  return sealer.seal(Kind[kind], scratch.subarray(0, written));
}

/**
 * A message kept to be sent later (the host's outboxes and relay ledger): its kind and its payload's JSON text as it
 * was sealed. One string, not the payload's objects: the host keeps every relayed Action for seconds (until a Pong),
 * and objects that live that long are copied by each young-generation GC on their way to the old generation; with
 * the text kept, the relayed payload dies young (docs/DECISIONS.md "Host: kept messages are kept as JSON text").
 */
export interface EncodedMessage {
  readonly kind: KindName;
  readonly text: string;
}

/** An EncodedMessage as a typed message again; undefined if the text does not decode (it was the host's own JSON). */
export function decodeEncoded(message: EncodedMessage): Message | undefined {
  const decoded = payloadFromJson(message.kind, message.text);
  return decoded.ok ? ({ kind: message.kind, payload: decoded.value } as Message) : undefined;
}

export type Inbound =
  | { ok: true; message: Message }
  | { ok: false; why: 'unknown-kind' | 'not-decoded'; kind: number; detail: string };

/** Decodes a payload of a known kind; unknown kinds and bad payloads come back as reasons, never throws. */
export function decodeMessage(kind: number, payload: Uint8Array): Inbound {
  const name = kindName(kind);
  if (!name) return { ok: false, why: 'unknown-kind', kind, detail: `kind ${kind}` };
  const decoded = decodePayload(name, payload);
  if (!decoded.ok) return { ok: false, why: 'not-decoded', kind, detail: decoded.reason };
  return { ok: true, message: { kind: name, payload: decoded.value } as Message };
}

export type Opened = Inbound | { ok: false; why: 'short' | 'tag' | 'replay'; kind: number; detail: string };

/** Opens a sealed frame and decodes its payload. */
export function openMessage(opener: Opener, frame: Frame): Opened {
  const opened = opener.open(frame);
  if (!opened.ok) return { ok: false, why: opened.reason, kind: frame.header.kind, detail: opened.reason };
  return decodeMessage(frame.header.kind, opened.payload);
}
