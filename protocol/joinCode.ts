// The join code (spec: wire-protocol "Join code"): base32 of version, created, secret and up to 8
// endpoints, closed by the first 4 bytes of SHA-256 of everything before. Also the small pure IP
// text parser/formatter it needs (RFC 4291 §2.2 input, RFC 5952 output), since protocol/ has no node:net.
import { encodeBase32, decodeBase32 } from './base32.ts';
import { concatBytes, u16be, u32be } from './bytes.ts';
import type { Crypto } from './crypto.ts';
import { nobleCrypto } from './nobleCrypto.ts';

/** The join code version this code writes and the only one it reads. */
export const JOIN_CODE_VERSION = 1;
/** spec: "u8 endpoint count (0..8)". */
export const MAX_ENDPOINTS = 8;
/** Bytes of the secret the code carries. */
export const SECRET_BYTES = 16;
/** Bytes of the check: the first 4 of SHA-256 over everything before it. */
export const CHECK_BYTES = 4;
/**
 * Longest text `decodeJoinCode` looks at. The longest code (8 IPv6 endpoints, 178 bytes) is 285
 * characters; the rest is room for dashes and spaces. Longer text is not a join code.
 */
export const MAX_JOIN_CODE_TEXT = 4096;

const FAMILY_V4 = 4;
const FAMILY_V6 = 6;

/** One address to try: IPv4 dotted quad or IPv6 in RFC 5952 text ("::1", "2001:db8::1", "::ffff:1.2.3.4"). */
export interface Endpoint {
  host: string;
  port: number;
}

/** A decoded join code. */
export interface JoinCode {
  version: 1;
  /** Unix seconds when the host made the code. */
  created: number;
  /** The 16-byte session secret (spec "Key"). */
  secret: Uint8Array;
  endpoints: Endpoint[];
}

/** An IP address as bytes: 4 for IPv4, 16 for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

const DECIMAL_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    // Leading zeros refused: "010" means 8 to some readers and 10 to others.
    if (!DECIMAL_OCTET.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    out[i] = value;
  }
  return out;
}

/** Parses the 16-bit groups of one side of "::"; the last group may be a dotted IPv4 (two groups). */
function parseGroups(text: string, allowIpv4Tail: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (allowIpv4Tail && i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else {
      if (!HEX_GROUP.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseIpv6(text: string): Uint8Array | undefined {
  if (text.length > 45) return undefined; // longest form: ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255
  const gap = text.indexOf('::');
  let groups: number[];
  if (gap < 0) {
    const all = parseGroups(text, true);
    if (all === undefined || all.length !== 8) return undefined;
    groups = all;
  } else {
    if (text.indexOf('::', gap + 1) >= 0) return undefined;
    const head = parseGroups(text.slice(0, gap), false);
    const tail = parseGroups(text.slice(gap + 2), true);
    // "::" stands for at least one zero group (RFC 4291 §2.2).
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >>> 8;
    out[2 * i + 1] = g & 255;
  });
  return out;
}

/**
 * Parses an IPv4 dotted quad (no leading zeros) or an IPv6 address in any RFC 4291 text form
 * (compressed, either case, embedded IPv4; no zone, no brackets). `undefined` for anything else.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (typeof text !== 'string') return undefined;
  if (text.includes(':')) {
    const bytes = parseIpv6(text);
    return bytes && { family: FAMILY_V6, bytes };
  }
  const bytes = parseIpv4(text);
  return bytes && { family: FAMILY_V4, bytes };
}

/** True for ::ffff:0:0/96, which RFC 5952 §5 prints with the IPv4 part dotted. */
function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * Formats 4 bytes as a dotted quad and 16 bytes as RFC 5952 text: lower case, no leading zeros, the
 * first longest run of two or more zero groups as "::", IPv4-mapped as ::ffff:1.2.3.4.
 */
export function formatIpAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.length !== 16) throw new RangeError(`bytes: expected 4 or 16 bytes, got ${bytes.length}`);
  if (isIpv4Mapped(bytes)) return `::ffff:${bytes.subarray(12).join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed (RFC 5952 §4.2.2)
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The bytes before the check. Arguments are already validated. */
function body(created: number, secret: Uint8Array, endpoints: readonly { address: IpAddress; port: number }[]) {
  const parts: Uint8Array[] = [Uint8Array.of(JOIN_CODE_VERSION), u32be(created), secret, Uint8Array.of(endpoints.length)];
  for (const { address, port } of endpoints) parts.push(Uint8Array.of(address.family), address.bytes, u16be(port));
  return concatBytes(...parts);
}

/**
 * Encodes a join code as unpadded upper-case base32. Throws `TypeError`/`RangeError` naming the
 * argument for bad data of our own: `created` not an integer 0..2^32-1, a secret that is not 16
 * bytes, more than 8 endpoints, a host that is not an IP address, a port outside 1..65535.
 */
export function encodeJoinCode(
  code: { created: number; secret: Uint8Array; endpoints: readonly Endpoint[] },
  crypto: Crypto = nobleCrypto,
): string {
  const { created, secret, endpoints } = code;
  if (!Number.isInteger(created) || created < 0 || created > 0xffffffff) {
    throw new RangeError(`code.created: expected an integer 0..4294967295 (unix seconds), got ${String(created)}`);
  }
  if (!(secret instanceof Uint8Array)) throw new TypeError('code.secret: expected a Uint8Array');
  if (secret.length !== SECRET_BYTES) {
    throw new RangeError(`code.secret: expected ${SECRET_BYTES} bytes, got ${secret.length}`);
  }
  if (!Array.isArray(endpoints)) throw new TypeError('code.endpoints: expected an array');
  if (endpoints.length > MAX_ENDPOINTS) {
    throw new RangeError(`code.endpoints: at most ${MAX_ENDPOINTS} endpoints, got ${endpoints.length}`);
  }
  const parsed = endpoints.map((endpoint: Endpoint | null | undefined, i) => {
    if (typeof endpoint !== 'object' || endpoint === null) {
      throw new TypeError(`code.endpoints[${i}]: expected an object { host, port }`);
    }
    const address = parseIpAddress(endpoint.host);
    if (address === undefined) {
      throw new RangeError(`code.endpoints[${i}].host: not an IPv4 or IPv6 address: ${JSON.stringify(endpoint.host)}`);
    }
    const port = endpoint.port;
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new RangeError(`code.endpoints[${i}].port: expected an integer 1..65535, got ${String(port)}`);
    }
    return { address, port };
  });
  const bytes = body(created, secret, parsed);
  return encodeBase32(concatBytes(bytes, crypto.sha256(bytes).subarray(0, CHECK_BYTES)));
}

/**
 * Decodes a join code (padding, case, dashes and spaces ignored). Anything that fails the check or
 * the shape (version other than 1, count over 8, family other than 4 or 6, port 0, bytes missing or
 * left over) gives `undefined`; this never throws, whatever it is given.
 */
export function decodeJoinCode(text: string, crypto: Crypto = nobleCrypto): JoinCode | undefined {
  if (typeof text !== 'string' || text.length > MAX_JOIN_CODE_TEXT) return undefined;
  const bytes = decodeBase32(text);
  if (bytes === undefined || bytes.length < 1 + 4 + SECRET_BYTES + 1 + CHECK_BYTES) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length - CHECK_BYTES;
  if (bytes[0] !== JOIN_CODE_VERSION) return undefined;
  const created = view.getUint32(1);
  const secret = bytes.slice(5, 5 + SECRET_BYTES);
  const count = bytes[5 + SECRET_BYTES]!;
  if (count > MAX_ENDPOINTS) return undefined;
  let offset = 6 + SECRET_BYTES;
  const endpoints: Endpoint[] = [];
  for (let i = 0; i < count; i++) {
    const family = bytes[offset];
    const size = family === FAMILY_V4 ? 4 : family === FAMILY_V6 ? 16 : undefined;
    if (size === undefined || offset + 1 + size + 2 > end) return undefined;
    const host = formatIpAddress(bytes.subarray(offset + 1, offset + 1 + size));
    const port = view.getUint16(offset + 1 + size);
    if (port === 0) return undefined;
    endpoints.push({ host, port });
    offset += 1 + size + 2;
  }
  if (offset !== end) return undefined;
  const check = crypto.sha256(bytes.subarray(0, end)).subarray(0, CHECK_BYTES);
  if (!crypto.equal(check, bytes.subarray(end))) return undefined;
  return { version: JOIN_CODE_VERSION, created, secret, endpoints };
}
