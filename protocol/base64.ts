// Base64 behind a port (spec: Frame, "byte arrays base64"), as the wire layer takes its crypto (protocol/crypto.ts).
// protocol/ stays pure: `pureBase64` (protocol/bytes.ts) is the default everywhere and the reference in tests; the
// save path passes `nodeBase64` (adapters/base64/nodeBase64.ts, Node's Buffer) because a 256 MiB save is 1024 chunks
// of 256 KiB and the pure code costs ~26 s of CPU per player for it (issue 11, item 10).
import { fromBase64, toBase64 } from './bytes.ts';

/** Standard padded base64 (RFC 4648 §4), canonical only on decode. */
export interface Base64 {
  /** A short name for logs and benchmarks ("pure", "node"). */
  readonly name: string;
  encode(bytes: Uint8Array): string;
  /**
   * Canonical padded base64 to bytes; `undefined` for anything else (length not a multiple of 4, a character
   * outside the alphabet, `=` anywhere but the end, non-zero pad bits, whitespace, the URL alphabet).
   */
  decode(text: string): Uint8Array | undefined;
  /**
   * Optional, the chunk codec's fast path (protocol/messages/chunkCodec.ts): `head ‖ encode(bytes) ‖ tail` as bytes
   * (the text is ASCII), without the text ever being one JS string. V8 puts a string over 128 KiB in its
   * large-object space, and making one costs ~5× the conversion itself (a 256 KiB chunk's 350 000 characters:
   * ~0.4 ms against ~0.06 ms in 64 KiB pieces, docs/DECISIONS.md "Bench numbers (bench/resync.bench.ts…)").
   */
  encodeAscii?(bytes: Uint8Array, head: Uint8Array, tail: Uint8Array): Uint8Array;
  /**
   * Optional, the same: `decode` of the text whose characters are these bytes (one byte, one character, so a byte
   * over 0x7f is a character outside the alphabet and refused), without making that text a JS string.
   */
  decodeAscii?(text: Uint8Array): Uint8Array | undefined;
}

/** The project's own pure implementation (protocol/bytes.ts): runs in the browser; the reference in tests. */
export const pureBase64: Base64 = { name: 'pure', encode: toBase64, decode: fromBase64 };
