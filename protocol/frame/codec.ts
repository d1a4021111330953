// Frame layout, bounds and the header codec (spec: wire-protocol.txt "Frame").
// u32 length ‖ u8 version ‖ u8 kind ‖ u16 sender ‖ u64 counter ‖ body, all big-endian; the 12 header
// bytes after the length prefix are the AEAD's additional authenticated data.
import { TAG_BYTES } from '../crypto.ts';

/** The only protocol version this code speaks. */
export const FRAME_VERSION = 1;
/** The u32 length prefix; it counts everything after itself. */
export const PREFIX_BYTES = 4;
/** version, kind, sender, counter: the AAD of a sealed frame. */
export const HEADER_BYTES = 12;
/** Smallest legal value of the length prefix: a header with an empty body. */
export const MIN_FRAME_LENGTH = 12;
/** Largest legal value of the length prefix (1 MiB). */
export const MAX_FRAME_LENGTH = 1_048_576;
/** Length limit for the first frame of a connection that has not joined (FrameCodec::HANDSHAKE_MAX_LENGTH). */
export const HANDSHAKE_MAX_LENGTH = 4096;
/** Largest payload a sealed frame can carry: 1 048 548 bytes. */
export const MAX_PAYLOAD_BYTES = MAX_FRAME_LENGTH - HEADER_BYTES - TAG_BYTES;
/** Sender id of the host. */
export const HOST_SENDER = 0;
/** Sender id of a connection that has not been given an id yet (handshake frames). */
export const UNASSIGNED_SENDER = 65535;
/** Largest counter a u64 holds; a sender never seals past it. */
export const MAX_COUNTER = 0xffff_ffff_ffff_ffffn;

/** The 12 header bytes, decoded. */
export interface FrameHeader {
  version: number;
  kind: number;
  sender: number;
  counter: bigint;
}

/** One decoded frame. `headerBytes` and `body` may be views into the bytes the decoder was given. */
export interface Frame {
  header: FrameHeader;
  /** The 12 header bytes exactly as received: the AAD. */
  headerBytes: Uint8Array;
  body: Uint8Array;
}

/** A stream that can no longer be read: the caller closes the connection with this as the reason. */
export class FrameError extends Error {
  readonly code: 'length' | 'version';
  /** The offending length prefix (code 'length'). */
  readonly length?: number;
  /** The offending version byte (code 'version'). */
  readonly version?: number;
  /** Complete frames that came before the error in the same push, in order (the caller may still use them). */
  readonly frames: Frame[];

  constructor(
    code: 'length' | 'version',
    message: string,
    detail: { length?: number; version?: number },
    frames: Frame[],
  ) {
    super(message);
    this.name = 'FrameError';
    this.code = code;
    if (detail.length !== undefined) this.length = detail.length;
    if (detail.version !== undefined) this.version = detail.version;
    this.frames = frames;
  }
}

function isUint(value: number, max: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= max;
}

function checkHeader(header: FrameHeader): void {
  const { version, kind, sender, counter } = header;
  if (!isUint(version, 255)) throw new RangeError(`frame version ${version} is not a u8`);
  if (!isUint(kind, 255)) throw new RangeError(`frame kind ${kind} is not a u8`);
  if (!isUint(sender, 65535)) throw new RangeError(`frame sender ${sender} is not a u16`);
  if (typeof counter !== 'bigint' || counter < 0n || counter > MAX_COUNTER) {
    throw new RangeError(`frame counter ${String(counter)} is not a u64`);
  }
}

/** Writes a u32 big-endian at `offset`. */
export function writeU32(out: Uint8Array, offset: number, value: number): void {
  out[offset] = value >>> 24;
  out[offset + 1] = value >>> 16;
  out[offset + 2] = value >>> 8;
  out[offset + 3] = value;
}

/** Writes a u64 big-endian at `offset` (value already known to fit). */
export function writeU64(out: Uint8Array, offset: number, value: bigint): void {
  writeU32(out, offset, Number(value >> 32n));
  writeU32(out, offset + 4, Number(value & 0xffff_ffffn));
}

/** Reads a u32 big-endian at `offset`. */
export function readU32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

/** Reads a u64 big-endian at `offset` as a BigInt. */
export function readU64(bytes: Uint8Array, offset: number): bigint {
  return (BigInt(readU32(bytes, offset)) << 32n) | BigInt(readU32(bytes, offset + 4));
}

/**
 * Writes the 12 header bytes into `out` at `offset` (no allocation; used by the sealer's single buffer).
 * Byte by byte on purpose: a DataView per frame costs more than the AES of a 100-byte payload.
 */
export function writeHeader(out: Uint8Array, offset: number, header: FrameHeader): void {
  checkHeader(header);
  out[offset] = header.version;
  out[offset + 1] = header.kind;
  out[offset + 2] = header.sender >>> 8;
  out[offset + 3] = header.sender;
  writeU64(out, offset + 4, header.counter);
}

/** The 12 header bytes of `header` (the AAD). Throws RangeError for a field out of its range. */
export function encodeHeader(header: FrameHeader): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  writeHeader(out, 0, header);
  return out;
}

/** Reads a header from 12 bytes; the version is returned as found, not checked. */
export function decodeHeader(bytes: Uint8Array): FrameHeader {
  if (bytes.length < HEADER_BYTES) throw new RangeError(`a header is ${HEADER_BYTES} bytes, got ${bytes.length}`);
  return {
    version: bytes[0]!,
    kind: bytes[1]!,
    sender: (bytes[2]! << 8) | bytes[3]!,
    counter: readU64(bytes, 4),
  };
}

/** Writes the u32 length prefix. */
export function writePrefix(out: Uint8Array, offset: number, length: number): void {
  writeU32(out, offset, length);
}

/**
 * The complete wire frame: prefix + header + body. Throws RangeError for a header field out of range or a
 * body that would make the length exceed MAX_FRAME_LENGTH (we never send what a peer must refuse).
 */
export function encodeFrame(header: FrameHeader, body: Uint8Array): Uint8Array {
  const length = HEADER_BYTES + body.length;
  if (length > MAX_FRAME_LENGTH) throw new RangeError(`frame length ${length} exceeds ${MAX_FRAME_LENGTH}`);
  const out = new Uint8Array(PREFIX_BYTES + length);
  writePrefix(out, 0, length);
  writeHeader(out, PREFIX_BYTES, header);
  out.set(body, PREFIX_BYTES + HEADER_BYTES);
  return out;
}

/** Unsealed handshake frame (Challenge 1, Join 2, Reject 3): counter 0, body = the payload. */
export function encodeUnsealedFrame(kind: number, sender: number, payload: Uint8Array): Uint8Array {
  return encodeFrame({ version: FRAME_VERSION, kind, sender, counter: 0n }, payload);
}

/**
 * Reads one frame from `bytes` = header + body (the length prefix already removed and checked).
 * The result views `bytes`; nothing is copied.
 */
export function frameFromBytes(bytes: Uint8Array): Frame {
  const headerBytes = bytes.subarray(0, HEADER_BYTES);
  return { header: decodeHeader(headerBytes), headerBytes, body: bytes.subarray(HEADER_BYTES) };
}

/**
 * Reads exactly one complete wire frame (prefix included), e.g. the output of encodeFrame or Sealer.seal.
 * Returns a FrameError (never throws) when the prefix is out of [12, maxLength], does not match the byte count,
 * or the version is not 1. The frame views `wire`.
 */
export function decodeWireFrame(wire: Uint8Array, maxLength: number = MAX_FRAME_LENGTH): Frame | FrameError {
  if (wire.length < PREFIX_BYTES) {
    return new FrameError('length', `frame of ${wire.length} bytes has no length prefix`, {}, []);
  }
  const length = readU32(wire, 0);
  if (length < MIN_FRAME_LENGTH || length > maxLength || length !== wire.length - PREFIX_BYTES) {
    const message = `frame length ${length} outside [${MIN_FRAME_LENGTH}, ${maxLength}] or not the byte count`;
    return new FrameError('length', message, { length }, []);
  }
  const version = wire[PREFIX_BYTES]!;
  if (version !== FRAME_VERSION) {
    return new FrameError('version', `frame version ${version}, expected ${FRAME_VERSION}`, { version }, []);
  }
  return frameFromBytes(wire.subarray(PREFIX_BYTES));
}
