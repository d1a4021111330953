// The Base64 port (protocol/base64.ts) over Node's Buffer: ~10× the pure code's speed on a 256 KiB chunk. Buffer's
// decoder is lenient, so the canonical form the wire requires (RFC 4648 §4 with padding, as pureBase64 decodes it) is
// checked around it, cheaply, without a second pass over the text in JavaScript:
//   - the length is a multiple of 4;
//   - Buffer skips every character outside its alphabet (whitespace, '=' before the end, anything else), so the decoded
//     length must be exactly 3/4 of the text less the padding;
//   - Buffer's alphabet also takes the URL one ('-', '_'): refused by a (native, fast) indexOf;
//   - the pad bits are zero: the last quantum re-encodes to the same four characters.
// Re-encoding the whole text to compare it would cost 3× the decoding itself on 350 000 characters.
//
// encodeAscii / decodeAscii (the chunk codec's fast path) go between bytes and ASCII bytes in pieces of 64 Ki
// characters: each piece is a short-lived JS string below V8's large-object threshold (128 KiB), which costs ~0.06 ms
// per 350 000 characters instead of ~0.4 ms for one string of the whole text (the large-object allocation, not the
// copy). The canonical checks are the same, per piece (each piece a multiple of 4 characters, the padding only in
// the last one): a byte over 0x7f is a latin1 character outside Buffer's alphabet, skipped, and so shortens the result.
import { Buffer } from 'node:buffer';
import type { Base64 } from '../../protocol/base64.ts';

/** Characters per piece (a multiple of 4, its string below V8's 128 KiB large-object threshold). */
export const PIECE_CHARS = 65_536;

function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function plain(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function decode(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const decoded = Buffer.from(text, 'base64');
  if (decoded.length !== (text.length / 4) * 3 - pad) return undefined;
  if (text.indexOf('-') !== -1 || text.indexOf('_') !== -1) return undefined;
  if (pad > 0 && decoded.subarray(decoded.length - (3 - pad)).toString('base64') !== text.slice(-4)) return undefined;
  return plain(decoded);
}

function encode(bytes: Uint8Array): string {
  return view(bytes).toString('base64');
}

/**
 * encodeAscii / decodeAscii with pieces of `pieceChars` characters (a positive multiple of 4): PIECE_CHARS in
 * `nodeBase64`; tests take a few characters to try every piece boundary on short texts.
 */
export function asciiCodec(pieceChars: number): Required<Pick<Base64, 'encodeAscii' | 'decodeAscii'>> {
  if (!Number.isInteger(pieceChars) || pieceChars <= 0 || pieceChars % 4 !== 0) throw new RangeError(`pieceChars ${pieceChars}: not a positive multiple of 4`);
  const pieceBytes = (pieceChars / 4) * 3;

  function encodeAscii(bytes: Uint8Array, head: Uint8Array, tail: Uint8Array): Uint8Array {
    const chars = 4 * Math.ceil(bytes.length / 3);
    const src = view(bytes);
    // Every byte is written below (head, the text, tail): uninitialised memory never leaves.
    const out = Buffer.allocUnsafe(head.length + chars + tail.length);
    out.set(head, 0);
    let at = head.length;
    for (let from = 0; from < src.length; from += pieceBytes) {
      at += out.write(src.toString('base64', from, Math.min(from + pieceBytes, src.length)), at, 'latin1');
    }
    if (at !== head.length + chars) throw new Error(`base64: wrote ${at - head.length} characters, expected ${chars}`);
    out.set(tail, at);
    return plain(out);
  }

  function decodeAscii(text: Uint8Array): Uint8Array | undefined {
    const n = text.length;
    if (n % 4 !== 0) return undefined;
    const pad = n > 0 && text[n - 1] === 0x3d ? (text[n - 2] === 0x3d ? 2 : 1) : 0;
    const length = (n / 4) * 3 - pad;
    const src = view(text);
    const out = Buffer.allocUnsafe(length);
    let at = 0;
    for (let from = 0; from < n; from += pieceChars) {
      const piece = src.toString('latin1', from, Math.min(from + pieceChars, n));
      if (piece.indexOf('-') !== -1 || piece.indexOf('_') !== -1) return undefined;
      const want = (piece.length / 4) * 3 - (from + pieceChars >= n ? pad : 0);
      // Never more than `want` (see the top); fewer when a character was skipped.
      if (at + want > length || out.write(piece, at, 'base64') !== want) return undefined;
      at += want;
    }
    if (pad > 0 && out.toString('base64', length - (3 - pad)) !== src.toString('latin1', n - 4)) return undefined;
    return plain(out);
  }

  return { encodeAscii, decodeAscii };
}

/** Base64 through Node's Buffer, canonical on decode exactly like `pureBase64`. */
export const nodeBase64: Base64 = { name: 'node', encode, decode, ...asciiCodec(PIECE_CHARS) };
