// The chunk kinds' codec with a chosen base64 (spec: "Bounds", "Receiving side"; issue 11 item 10): ResyncChunk 18,
// ResyncUpload 39, ReportBundle 24 and ReportPart 41 carry up to 256 KiB of base64 each, so the save path encodes and
// decodes them through a Base64 port (protocol/base64.ts) instead of the pure default. Same schema, same bounds,
// same reasons as decodePayload/encodePayload (the tests compare the two on every input); only the base64 differs.
import type { Base64 } from '../base64.ts';
import { fromUtf8, utf8 } from '../bytes.ts';
import { LIMITS } from './limits.ts';
import { chunk } from './payloads/common.ts';
import type { ChunkPayload } from './payloads/common.ts';
import type { DecodeResult, Schema } from './schema.ts';

/** The kinds whose payload has the shape of ResyncChunk. */
export const CHUNK_KINDS = ['ResyncChunk', 'ResyncUpload', 'ReportBundle', 'ReportPart'] as const;
export type ChunkKind = (typeof CHUNK_KINDS)[number];

const ENCODER = new TextEncoder();
/** The end of our layout: the data's closing quote and the object's brace. */
const TAIL = new Uint8Array([0x22, 0x7d]);

/** One schema per Base64 implementation, made on first use. */
const schemas = new WeakMap<Base64, Schema<ChunkPayload>>();

function schemaFor(base64: Base64): Schema<ChunkPayload> {
  let schema = schemas.get(base64);
  if (schema === undefined) {
    schema = chunk(base64);
    schemas.set(base64, schema);
  }
  return schema;
}

/**
 * A chunk payload → its UTF-8 JSON bytes, the data in base64 through `base64`: the same bytes as encodePayload (the
 * tests compare them), written directly instead of through JSON.stringify, which would scan the ~350 000 base64
 * characters for escapes that base64 never has.
 */
export function encodeChunkPayload(payload: ChunkPayload, base64: Base64): Uint8Array {
  const { id, index, count, sha256, data } = payload;
  const head = utf8(`{"id":${JSON.stringify(id)},"index":${JSON.stringify(index)},"count":${JSON.stringify(count)},"sha256":${JSON.stringify(sha256)},"data":"`);
  // The port's fast path: the base64 straight into the payload, never one string of ~350 000 characters.
  if (base64.encodeAscii !== undefined) return base64.encodeAscii(data, head, TAIL);
  const text = base64.encode(data);
  // Base64 is ASCII: one byte per character, written straight after the head (no concatenated string to flatten).
  const out = new Uint8Array(head.length + text.length + 2);
  out.set(head, 0);
  const { written } = ENCODER.encodeInto(text, out.subarray(head.length));
  out[head.length + written] = 0x22; // "
  out[head.length + written + 1] = 0x7d; // }
  return written === text.length ? out : utf8(`${new TextDecoder().decode(head)}${text}"}`);
}

/** The exact layout encodeChunkPayload writes, up to the data's first character. */
const OUR_LAYOUT = /^\{"id":(0|[1-9][0-9]{0,19}),"index":(0|[1-9][0-9]{0,19}),"count":(0|[1-9][0-9]{0,19}),"sha256":"([0-9a-fA-F]{64})","data":"/;

/**
 * JSON.parse of a chunk in our own layout, without scanning the ~350 000 base64 characters: the fields before the
 * data by a pattern, the data as the rest of the text up to the closing `"}`. `undefined` when the text is not in
 * that layout. Only used when the schema then accepts the value: accepted data is canonical base64 (no quote, no
 * backslash, no control character), so JSON.parse would have given the very same object.
 */
function parseOurLayout(text: string): unknown {
  const head = OUR_LAYOUT.exec(text.slice(0, 200));
  if (head === null || !text.endsWith('"}')) return undefined;
  const data = text.slice(head[0].length, text.length - 2);
  return { id: Number(head[1]), index: Number(head[2]), count: Number(head[3]), sha256: head[4], data };
}

/** How many bytes of a payload may hold our layout's head (the fields before the data): 175 at most. */
const HEAD_SCAN = 200;

/**
 * The fast path over the bytes, for a port with `decodeAscii`: our layout's head read from the first bytes, the data
 * decoded straight from the bytes between it and the closing `"}`, never turned into a string. The fields before the
 * data go through the SAME schema, with a one-byte stand-in for the data; the data gets the checks the schema's
 * `bytes` would give it (canonical base64, 1..chunkBytes bytes; at most 4·⌈max/3⌉ characters follows). `undefined`
 * (the caller takes the exact path) for anything else.
 *
 * Why it gives what the exact path gives: accepted means the head matched the ASCII pattern and every data byte is
 * a character of canonical base64, so the whole payload is ASCII. It is then valid UTF-8, decodes to the same
 * characters one for one, and JSON.parse gives the very object the schema is run on here (the data's text decodes
 * to the same bytes through either `decode` or `decodeAscii`, tested).
 */
function decodeOurLayout(kind: ChunkKind, bytes: Uint8Array, base64: Base64, schema: Schema<ChunkPayload>): DecodeResult<ChunkPayload> | undefined {
  const n = bytes.length;
  if (n < 2 || bytes[n - 2] !== 0x22 || bytes[n - 1] !== 0x7d) return undefined;
  const scan = bytes.subarray(0, Math.min(HEAD_SCAN, n - 2));
  // One character per byte (latin1): a byte over 0x7f can match nothing in the pattern.
  const head = OUR_LAYOUT.exec(String.fromCharCode.apply(null, scan as unknown as number[]));
  if (head === null) return undefined;
  const data = base64.decodeAscii!(bytes.subarray(head[0].length, n - 2));
  if (data === undefined || data.length < 1 || data.length > LIMITS.chunkBytes) return undefined;
  const fields = { id: Number(head[1]), index: Number(head[2]), count: Number(head[3]), sha256: head[4], data: STAND_IN };
  const checked = schema.check(fields, kind);
  return checked.ok ? { ok: true, value: { ...checked.value, data } } : undefined;
}

/** A one-byte data that every chunk schema accepts: the rest of a chunk is checked with it in the data's place. */
const STAND_IN = 'AA==';

/** Payload bytes of a chunk kind → the validated chunk, the data decoded through `base64`. Never throws. */
export function decodeChunkPayload(kind: ChunkKind, bytes: Uint8Array, base64: Base64): DecodeResult<ChunkPayload> {
  if (bytes.length > LIMITS.payloadBytes) return { ok: false, reason: `${kind}: larger than ${LIMITS.payloadBytes} bytes` };
  const schema = schemaFor(base64);
  if (base64.decodeAscii !== undefined) {
    const fast = decodeOurLayout(kind, bytes, base64, schema);
    if (fast !== undefined) return fast;
  }
  const text = fromUtf8(bytes);
  if (text === undefined) return { ok: false, reason: `${kind}: not UTF-8` };
  const fast = parseOurLayout(text);
  if (fast !== undefined) {
    const checked = schema.check(fast, kind);
    if (checked.ok) return checked;
  }
  // Anything else (another sender's layout, or a value the schema refuses): JSON.parse, for the exact reason.
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: `${kind}: not JSON` };
  }
  try {
    return schema.check(value, kind);
  } catch {
    return { ok: false, reason: `${kind}: not a JSON value` };
  }
}
