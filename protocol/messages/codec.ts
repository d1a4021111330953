// Payload bytes ↔ typed payloads (spec: Frame, "Payloads are UTF-8 JSON, camelCase, nulls omitted, byte arrays
// base64, doubles in their shortest exact form … Unknown fields are ignored"). Decoding never throws: hostile
// bytes give a reason naming the kind and, where there is one, the field.

import { fromUtf8, utf8 } from '../bytes.ts';
import { isKindName } from './kinds.ts';
import type { KindName } from './kinds.ts';
import { LIMITS } from './limits.ts';
import type { DecodeResult } from './schema.ts';
import { SCHEMAS } from './table.ts';
import type { Payloads } from './table.ts';

/**
 * An already-parsed JSON value → the validated, typed payload of `kind`. Never throws; unknown fields are
 * dropped; the result is built afresh, field by field.
 */
export function validatePayload<K extends KindName>(kind: K, value: unknown): DecodeResult<Payloads[K]> {
  if (!isKindName(kind)) return { ok: false, reason: `${String(kind).slice(0, 40)}: unknown kind` };
  const schema = SCHEMAS[kind];
  try {
    return schema.check(value, kind);
  } catch {
    // Only a hostile in-process value (a Proxy, a throwing getter) gets here: parsed JSON never does.
    return { ok: false, reason: `${kind}: not a JSON value` };
  }
}

/** Payload bytes → UTF-8 JSON → the validated, typed payload of `kind`. Never throws. */
export function decodePayload<K extends KindName>(kind: K, bytes: Uint8Array): DecodeResult<Payloads[K]> {
  if (!isKindName(kind)) return { ok: false, reason: `${String(kind).slice(0, 40)}: unknown kind` };
  if (bytes.length > LIMITS.payloadBytes) {
    return { ok: false, reason: `${kind}: larger than ${LIMITS.payloadBytes} bytes` };
  }
  const text = fromUtf8(bytes);
  if (text === undefined) return { ok: false, reason: `${kind}: not UTF-8` };
  return payloadFromJson(kind, text);
}

/** A payload's JSON text → the validated, typed payload of `kind` (decodePayload after the UTF-8). Never throws. */
export function payloadFromJson<K extends KindName>(kind: K, text: string): DecodeResult<Payloads[K]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `${kind}: not JSON` };
  }
  return validatePayload(kind, value);
}

/**
 * The payload last measured (payloadByteLength) and its text, kept for the next encoding only: the host measures a
 * relayed Action before it commits to it (machines/rules/lockstepSteps/relay.ts onAction) and then seals that very object
 * (actors/wire.ts sealedFrame), so its JSON is written once, not twice. Any encoding takes the slot (a hit or not),
 * so only the encoding right after the measure can use it; nothing changes a payload object between the two.
 */
let measured: { kind: KindName; payload: unknown; text: string } | undefined;

/**
 * A typed payload → its JSON text: camelCase fields as typed, undefined and null fields left out, byte arrays as
 * base64, numbers in their shortest exact form. Fields the schema does not know are not written. The payload is
 * not validated here: a caller that builds one from untrusted parts validates those parts first.
 */
export function payloadToJson<K extends KindName>(kind: K, payload: Payloads[K]): string {
  const memo = measured;
  measured = undefined;
  if (memo !== undefined && memo.payload === payload && memo.kind === kind) return memo.text;
  return JSON.stringify(SCHEMAS[kind].toJson(payload));
}

/** payloadToJson, the text kept for the next payloadToJson of the same object (see `measured`). */
export function measuredJson<K extends KindName>(kind: K, payload: Payloads[K]): string {
  const text = payloadToJson(kind, payload);
  measured = { kind, payload, text };
  return text;
}

/** A typed payload → UTF-8 JSON bytes (see payloadToJson). */
export function encodePayload<K extends KindName>(kind: K, payload: Payloads[K]): Uint8Array {
  return utf8(payloadToJson(kind, payload));
}
