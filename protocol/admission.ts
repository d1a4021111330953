// Steam invites (spec: wire-protocol "Steam invites"): the connect token Steam carries in
// "+feverlink3_join <payload>", and the four admission messages ("FL3A" + UTF-8 JSON) a friend and
// the host exchange on virtual port 3 before the friend joins with the key. Pure; readers never throw.
import { concatBytes, fromUtf8, utf8 } from './bytes.ts';

/** The token format this code writes and reads; a reader finding another one says "update FeverLink3". */
export const CONNECT_TOKEN_FORMAT = 1;
/** Steam's limit for a rich presence value, which the public token is. */
export const MAX_CONNECT_TOKEN_BYTES = 255;
/** The first four bytes of every admission message. */
export const ADMISSION_MAGIC = 'FL3A';
/** Limit of the JSON after the magic (so a whole message is at most 2052 bytes). */
export const MAX_ADMISSION_JSON_BYTES = 2048;
/** The launch argument Steam puts before the payload. */
export const CONNECT_ARGUMENT = '+feverlink3_join';

const MAGIC_BYTES = utf8(ADMISSION_MAGIC);
const STEAM_ID = /^[0-9]{17}$/;
const HEX16 = /^[0-9a-fA-F]{16}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

/** What a Steam invite carries. Never the secret, the password or the key. */
export interface ConnectToken {
  /** The host's steamID64, 17 decimal digits. */
  host: string;
  /** 64 random bits, 16 lower-case hex digits, new for every hosted session. */
  session: string;
  /** 64 random bits, only in the overlay invite (the public rich presence token has none). */
  ticket?: string;
}

export type TokenResult = { ok: true; token: ConnectToken } | { ok: false; reason: string };

/** One admission message; `type` names it in the JSON (docs/PROTOCOL.md "Steam admission"). */
export type AdmissionMessage =
  | { type: 'request'; session: string; ticket?: string; name: string; version: string }
  | { type: 'waiting' }
  | { type: 'admitted'; key: string }
  | { type: 'refused'; reason: string };

export type AdmissionResult = { ok: true; message: AdmissionMessage } | { ok: false; reason: string };

function checkHex(value: unknown, pattern: RegExp, name: string, digits: number): string {
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string of ${digits} hex digits`);
  if (!pattern.test(value)) throw new RangeError(`${name}: expected ${digits} hex digits, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

function checkString(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name}: expected a string`);
  return value;
}

/**
 * The payload `1:<steamID64>:<session>[:<ticket>]` (hex written lower case). Throws `TypeError` or
 * `RangeError` naming the field for a token of our own that is not well formed.
 */
export function encodeConnectToken(token: ConnectToken): string {
  if (typeof token.host !== 'string' || !STEAM_ID.test(token.host)) {
    throw new RangeError(`token.host: expected a steamID64 of 17 digits, got ${JSON.stringify(token.host)}`);
  }
  const fields = [String(CONNECT_TOKEN_FORMAT), token.host, checkHex(token.session, HEX16, 'token.session', 16)];
  if (token.ticket !== undefined) fields.push(checkHex(token.ticket, HEX16, 'token.ticket', 16));
  return fields.join(':');
}

/**
 * Reads a connect token: the payload alone or the whole "+feverlink3_join <payload>" argument,
 * surrounding spaces ignored, hex in either case (returned lower case). Another format number gives
 * a reason that says "update FeverLink3"; more than 255 bytes, a wrong field count, a steamID64 that
 * is not 17 digits or hex that is not 16 digits give a reason too. Never throws.
 */
export function parseConnectToken(text: string): TokenResult {
  if (typeof text !== 'string') return { ok: false, reason: 'connect token: not text' };
  let payload = text.trim();
  if (payload.startsWith(CONNECT_ARGUMENT)) {
    const rest = payload.slice(CONNECT_ARGUMENT.length);
    if (rest !== '' && !/^\s/.test(rest)) return { ok: false, reason: `not a ${CONNECT_ARGUMENT} argument` };
    payload = rest.trim();
  }
  if (payload === '') return { ok: false, reason: 'connect token: empty' };
  // Measured before anything else is looked at; a string of 256+ characters is always too long.
  const bytes = payload.length > MAX_CONNECT_TOKEN_BYTES ? payload.length : utf8(payload).length;
  if (bytes > MAX_CONNECT_TOKEN_BYTES) {
    return { ok: false, reason: `connect token: ${bytes} bytes, at most ${MAX_CONNECT_TOKEN_BYTES}` };
  }
  const fields = payload.split(':');
  const format = fields[0]!;
  if (!/^[0-9]+$/.test(format)) return { ok: false, reason: 'not a FeverLink3 connect token' };
  if (format !== String(CONNECT_TOKEN_FORMAT)) {
    return {
      ok: false,
      reason: `connect token format ${format}, this FeverLink3 reads format ${CONNECT_TOKEN_FORMAT}: update FeverLink3`,
    };
  }
  if (fields.length !== 3 && fields.length !== 4) {
    return { ok: false, reason: `connect token: expected 3 or 4 fields, got ${fields.length}` };
  }
  const [, host, session, ticket] = fields as [string, string, string, string | undefined];
  if (!STEAM_ID.test(host)) return { ok: false, reason: 'connect token: host is not a steamID64 of 17 digits' };
  if (!HEX16.test(session)) return { ok: false, reason: 'connect token: session is not 16 hex digits' };
  const token: ConnectToken = { host, session: session.toLowerCase() };
  if (ticket !== undefined) {
    if (!HEX16.test(ticket)) return { ok: false, reason: 'connect token: ticket is not 16 hex digits' };
    token.ticket = ticket.toLowerCase();
  }
  return { ok: true, token };
}

/**
 * "FL3A" + the UTF-8 JSON of `message`, with its kind in the field `type` and optional fields
 * left out. Throws `TypeError`/`RangeError` naming the field for a message of our own that is not
 * well formed, and `RangeError` when the JSON is over 2048 bytes.
 */
export function encodeAdmission(message: AdmissionMessage): Uint8Array {
  // Built field by field in a fixed order, so nothing but the known fields is ever sent.
  let json: Record<string, string>;
  switch (message.type) {
    case 'request':
      json = { type: 'request', session: checkHex(message.session, HEX16, 'message.session', 16) };
      if (message.ticket !== undefined) json.ticket = checkHex(message.ticket, HEX16, 'message.ticket', 16);
      json.name = checkString(message.name, 'message.name');
      json.version = checkString(message.version, 'message.version');
      break;
    case 'waiting':
      json = { type: 'waiting' };
      break;
    case 'admitted':
      json = { type: 'admitted', key: checkHex(message.key, HEX64, 'message.key', 64) };
      break;
    case 'refused':
      json = { type: 'refused', reason: checkString(message.reason, 'message.reason') };
      break;
    default:
      throw new TypeError(`message.type: unknown admission message ${JSON.stringify((message as { type: unknown }).type)}`);
  }
  const body = utf8(JSON.stringify(json));
  if (body.length > MAX_ADMISSION_JSON_BYTES) {
    throw new RangeError(`message: JSON is ${body.length} bytes, at most ${MAX_ADMISSION_JSON_BYTES}`);
  }
  return concatBytes(MAGIC_BYTES, body);
}

/** An own property only: a hostile `__proto__` key or a polluted prototype is never read. */
function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}

/**
 * Reads one admission message: checks the magic, the size (before decoding), strict UTF-8, JSON,
 * the `type` and each field's shape. Unknown fields are ignored; a `null` optional field counts as
 * absent. Never throws; anything wrong gives `{ ok: false, reason }`.
 */
export function decodeAdmission(bytes: Uint8Array): AdmissionResult {
  if (!(bytes instanceof Uint8Array)) return { ok: false, reason: 'admission: not bytes' };
  if (bytes.length < MAGIC_BYTES.length || MAGIC_BYTES.some((b, i) => bytes[i] !== b)) {
    return { ok: false, reason: `admission: no ${ADMISSION_MAGIC} magic` };
  }
  const size = bytes.length - MAGIC_BYTES.length;
  if (size > MAX_ADMISSION_JSON_BYTES) {
    return { ok: false, reason: `admission: JSON is ${size} bytes, at most ${MAX_ADMISSION_JSON_BYTES}` };
  }
  const text = fromUtf8(bytes.subarray(MAGIC_BYTES.length));
  if (text === undefined) return { ok: false, reason: 'admission: not UTF-8' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'admission: not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'admission: not a JSON object' };
  }
  const type = own(value, 'type');
  switch (type) {
    case 'request': {
      const session = own(value, 'session');
      const ticket = own(value, 'ticket') ?? undefined;
      const name = own(value, 'name');
      const version = own(value, 'version');
      if (typeof session !== 'string' || !HEX16.test(session)) {
        return { ok: false, reason: 'admission request: session is not 16 hex digits' };
      }
      if (ticket !== undefined && (typeof ticket !== 'string' || !HEX16.test(ticket))) {
        return { ok: false, reason: 'admission request: ticket is not 16 hex digits' };
      }
      if (typeof name !== 'string') return { ok: false, reason: 'admission request: name is not a string' };
      if (typeof version !== 'string') return { ok: false, reason: 'admission request: version is not a string' };
      const message: AdmissionMessage = { type: 'request', session: session.toLowerCase(), name, version };
      if (typeof ticket === 'string') message.ticket = ticket.toLowerCase();
      return { ok: true, message };
    }
    case 'waiting':
      return { ok: true, message: { type: 'waiting' } };
    case 'admitted': {
      const key = own(value, 'key');
      if (typeof key !== 'string' || !HEX64.test(key)) {
        return { ok: false, reason: 'admission admitted: key is not 64 hex digits' };
      }
      return { ok: true, message: { type: 'admitted', key: key.toLowerCase() } };
    }
    case 'refused': {
      const reason = own(value, 'reason');
      if (typeof reason !== 'string') return { ok: false, reason: 'admission refused: reason is not a string' };
      return { ok: true, message: { type: 'refused', reason } };
    }
    default:
      return { ok: false, reason: 'admission: unknown message type' };
  }
}
