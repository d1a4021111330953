// The Base64 port (protocol/base64.ts): Node's Buffer implementation (adapters/base64/nodeBase64.ts) against the
// project's pure one as the reference — the same text for every byte array, the same bytes or the same refusal for
// every text (canonical padded base64 only) — and the chunk codec giving the same results through either.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiCodec, nodeBase64, PIECE_CHARS } from '../../../adapters/base64/nodeBase64.ts';
import { pureBase64, type Base64 } from '../../../protocol/base64.ts';
import { decodeChunkPayload, decodePayload, encodeChunkPayload, encodePayload } from '../../../protocol/messages/index.ts';

const B64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n';
const b64ish = fc.array(fc.constantFrom(...B64_CHARS), { maxLength: 24 }).map((cs) => cs.join(''));

/** Counts a decode the way the pure reference decided it (refused or accepted) and checks `got` made the same decision. */
function sameDecision(want: Uint8Array | undefined, got: Uint8Array | undefined, counts: { refused: number; accepted: number }): void {
  if (want === undefined) {
    counts.refused++;
    expect(got).toBeUndefined();
  } else {
    counts.accepted++;
    expect(got && Array.from(got)).toEqual(Array.from(want));
  }
}

describe('base64 port', () => {
  it('node encodes exactly like the pure reference', () => {
    const tails = [0, 0, 0]; // inputs by length mod 3: no padding, '==', '='
    let long = 0;
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300, size: 'max' }), (bytes) => {
          tails[bytes.length % 3]!++;
          if (bytes.length >= 100) long++;
          expect(nodeBase64.encode(bytes)).toBe(pureBase64.encode(bytes));
        }), { numRuns: 500, seed: 5 });
    // Floors (seed 5, 500 runs: 163 / 168 / 169 by length mod 3, 298 of 100 bytes or more).
    for (const n of tails) expect(n).toBeGreaterThanOrEqual(60);
    expect(long).toBeGreaterThanOrEqual(100);
  });

  it('node decodes (or refuses) exactly like the pure reference, hostile texts included', () => {
    const counts = { refused: 0, accepted: 0 };
    // Valid encodings with one character replaced by anything (another letter, padding, the URL alphabet, spaces,
    // controls, non-ASCII), so the near misses are tried as often as the valid texts.
    const mutated = fc
      .tuple(fc.uint8Array({ minLength: 1, maxLength: 30 }), fc.nat(), fc.constantFrom(...B64_CHARS, '\u0000', 'é', '€', '\t', '.', '*'))
      .map(([bytes, at, c]) => {
        const text = pureBase64.encode(bytes);
        const i = at % text.length;
        return text.slice(0, i) + c + text.slice(i + 1);
      });
    const texts = fc.oneof(b64ish, fc.uint8Array({ maxLength: 30 }).map((b) => pureBase64.encode(b)), fc.string({ maxLength: 12 }), mutated);
    fc.assert(
      fc.property(texts, (text) => sameDecision(pureBase64.decode(text), nodeBase64.decode(text), counts)),
      { numRuns: 6000, seed: 4 },
    );
    expect(counts.refused).toBeGreaterThan(500);
    expect(counts.accepted).toBeGreaterThan(500);
  });

  it('refuses the non-canonical forms the pure decoder refuses', () => {
    for (const text of ['QQ', 'QR==', 'QUI', 'QUJ=', 'QU I=', 'QUI=\n', 'Q===', '=QUI', 'QU=I', '-_-_', 'QUI=QUI=']) {
      expect(pureBase64.decode(text), text).toBeUndefined();
      expect(nodeBase64.decode(text), text).toBeUndefined();
    }
    expect(Array.from(nodeBase64.decode('QUI=')!)).toEqual([65, 66]);
  });

  it('the chunk codec gives the same bytes and the same verdicts through either port as the default codec', () => {
    const chunk = { id: 1, index: 0, count: 2, sha256: 'ab'.repeat(32), data: new Uint8Array([1, 2, 3, 250]) };
    const bytes = encodeChunkPayload(chunk, nodeBase64);
    expect(Array.from(bytes)).toEqual(Array.from(encodePayload('ResyncChunk', chunk)));
    expect(decodeChunkPayload('ResyncChunk', bytes, nodeBase64)).toEqual(decodePayload('ResyncChunk', bytes));
    const bad = new TextEncoder().encode(JSON.stringify({ ...chunk, data: 'AQID+g' }));
    expect(decodeChunkPayload('ResyncUpload', bad, nodeBase64)).toEqual(decodePayload('ResyncUpload', bad));
    const over = new TextEncoder().encode(JSON.stringify({ ...chunk, index: 2 }));
    expect(decodeChunkPayload('ReportPart', over, nodeBase64)).toEqual(decodePayload('ReportPart', over));
    expect(decodeChunkPayload('ResyncChunk', new Uint8Array([0xff]), nodeBase64)).toEqual({ ok: false, reason: 'ResyncChunk: not UTF-8' });
  });

  it('chunk codec fast path: the same result as the default codec on valid chunks and on every kind of near miss', () => {
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    const chunkArb = fc.record({
      id: fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
      index: fc.nat({ max: 2100 }),
      count: fc.integer({ min: 0, max: 2100 }),
      sha256: fc.oneof(fc.constant('ab'.repeat(32)), fc.constant('AB'.repeat(32)), fc.constant('ab'.repeat(31))),
      data: fc.uint8Array({ minLength: 0, maxLength: 64 }),
    });
    // Text edits of an encoded chunk: a character replaced, a duplicate key, an escape inside the data, spaces.
    const edit = fc.oneof(
      fc.tuple(fc.constant('replace' as const), fc.nat(), fc.constantFrom('"', '\\', ' ', 'A', '=', '}', ',', '0', '-', 'é')),
      fc.constant(['dupData' as const, 0, ''] as const),
      fc.constant(['escape' as const, 0, ''] as const),
      fc.constant(['spaces' as const, 0, ''] as const),
      fc.constant(['none' as const, 0, ''] as const),
    );
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(chunkArb, edit, fc.constantFrom('ResyncChunk', 'ResyncUpload', 'ReportBundle', 'ReportPart') , (c, [how, at, ch], kind) => {
        let text = dec.decode(encodeChunkPayload(c, nodeBase64));
        if (how === 'replace') {
          const i = at % text.length;
          text = text.slice(0, i) + ch + text.slice(i + 1);
        } else if (how === 'dupData') text = text.slice(0, -1) + ',"data":"AAAA"}';
        else if (how === 'escape') text = text.replace('"data":"', '"data":"\\u0041');
        else if (how === 'spaces') text = text.replace(',"data"', ', "data"');
        const bytes = enc.encode(text);
        const want = decodePayload(kind as 'ResyncChunk', bytes);
        const got = decodeChunkPayload(kind as 'ResyncChunk', bytes, nodeBase64);
        expect(got).toEqual(want);
        if (want.ok) accepted++;
        else refused++;
      }),
      { numRuns: 4000, seed: 9 },
    );
    expect(accepted).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(1000);
  });

});

// The byte-level fast path (encodeAscii / decodeAscii: ASCII bytes in and out, the text turned into JS strings only in
// pieces below V8's large-object threshold). The piece size is a parameter so that short texts cross many pieces.
describe('base64 port, ASCII bytes (the chunk codec fast path)', () => {
  const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');
  const ascii = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
  const codecs: [string, Required<Pick<Base64, 'encodeAscii' | 'decodeAscii'>>][] = [
    ['4-char pieces', asciiCodec(4)],
    ['8-char pieces', asciiCodec(8)],
    ['12-char pieces', asciiCodec(12)],
    ['nodeBase64', nodeBase64 as Required<Base64>],
  ];

  it('refuses a piece size that is not a positive multiple of 4', () => {
    for (const n of [0, -4, 6, 4.5]) expect(() => asciiCodec(n)).toThrow(RangeError);
  });

  it.each(codecs)('%s: encodeAscii writes head, the reference text and tail', (_, codec) => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ maxLength: 5 }), fc.uint8Array({ maxLength: 3 }), (bytes, head, tail) => {
        const got = codec.encodeAscii(bytes, head, tail);
        expect(Array.from(got)).toEqual([...head, ...ascii(pureBase64.encode(bytes)), ...tail]);
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it.each(codecs)('%s: decodeAscii decodes or refuses exactly like the pure reference (every byte value, every place)', (_, codec) => {
    const counts = { refused: 0, accepted: 0 };
    // A valid encoding with one byte replaced by any value (0x80..0xff included: a latin1 character, never base64).
    const mutated = fc
      .tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(), fc.integer({ min: 0, max: 255 }))
      .map(([bytes, at, b]) => {
        const text = ascii(pureBase64.encode(bytes));
        text[at % text.length] = b;
        return text;
      });
    const b64ishBytes = b64ish.map(ascii);
    const valid = fc.uint8Array({ maxLength: 40 }).map((b) => ascii(pureBase64.encode(b)));
    fc.assert(
      fc.property(fc.oneof(mutated, b64ishBytes, valid, fc.uint8Array({ maxLength: 12 })), (text) =>
        sameDecision(pureBase64.decode(latin1(text)), codec.decodeAscii(text), counts)),
      { numRuns: 4000, seed: 12 },
    );
    expect(counts.refused).toBeGreaterThan(500);
    expect(counts.accepted).toBeGreaterThan(500);
  });

  it('nodeBase64 on chunk-sized data: the same as the string port, at and around every piece boundary', () => {
    const data = new Uint8Array(Buffer.from(Array.from({ length: 262_144 }, (_, i) => (i * 7919 + (i >> 9)) & 255)));
    for (const n of [49_151, 49_152, 49_153, 98_305, 262_143, 262_144]) {
      const bytes = data.subarray(0, n);
      const text = nodeBase64.encodeAscii!(bytes, new Uint8Array(0), new Uint8Array(0));
      expect(latin1(text)).toBe(nodeBase64.encode(bytes));
      expect(Buffer.compare(nodeBase64.decodeAscii!(text)!, bytes)).toBe(0);
    }
    const text = nodeBase64.encodeAscii!(data.subarray(0, 262_142), new Uint8Array(0), new Uint8Array(0)); // '=' at the end
    const places = [0, PIECE_CHARS - 1, PIECE_CHARS, PIECE_CHARS + 1, 2 * PIECE_CHARS, text.length - 4, text.length - 3, text.length - 2, text.length - 1];
    for (const at of places) {
      for (const b of [0x00, 0x20, 0x2b, 0x2d, 0x2f, 0x3d, 0x41, 0x5f, 0x7f, 0x80, 0xc3, 0xff]) {
        const copy = text.slice();
        copy[at] = b;
        const want = nodeBase64.decode(latin1(copy));
        const got = nodeBase64.decodeAscii!(copy);
        expect(got === undefined ? undefined : Buffer.compare(got, want ?? new Uint8Array(0)), `${at}: ${b}`).toBe(want === undefined ? undefined : 0);
      }
    }
  });

  it('the chunk codec through a port with small pieces: the same result as the default codec, byte edits included', () => {
    const small: Base64 = { name: 'node-8', encode: nodeBase64.encode, decode: nodeBase64.decode, ...asciiCodec(8) };
    const chunkArb = fc.record({
      id: fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER)),
      index: fc.nat({ max: 2100 }),
      count: fc.integer({ min: 0, max: 2100 }),
      sha256: fc.oneof(fc.constant('ab'.repeat(32)), fc.constant('AB'.repeat(32)), fc.constant('ab'.repeat(31))),
      data: fc.uint8Array({ minLength: 0, maxLength: 64 }),
    });
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(chunkArb, fc.nat(), fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 255 })), fc.constantFrom('ResyncChunk', 'ReportPart'), (c, at, b, kind) => {
        const bytes = encodeChunkPayload(c, small);
        expect(Array.from(bytes)).toEqual(Array.from(encodePayload('ResyncChunk', c)));
        if (b >= 0) bytes[at % bytes.length] = b; // -1: unchanged
        const want = decodePayload(kind as 'ResyncChunk', bytes);
        expect(decodeChunkPayload(kind as 'ResyncChunk', bytes, small)).toEqual(want);
        if (want.ok) accepted++;
        else refused++;
      }),
      { numRuns: 4000, seed: 13 },
    );
    expect(accepted).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(1000);
  });

  it('the chunk codec on a chunk of several pieces: valid, and one byte changed near the edges of the data', () => {
    const data = new Uint8Array(Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 31 + (i >> 8)) & 255))); // 2 pieces
    const chunk = { id: 7, index: 3, count: 1024, sha256: 'Ab'.repeat(32), data };
    const bytes = encodeChunkPayload(chunk, nodeBase64);
    expect(Buffer.compare(bytes, encodePayload('ResyncChunk', chunk))).toBe(0);
    const want = decodePayload('ResyncChunk', bytes);
    expect(want.ok).toBe(true);
    expect(decodeChunkPayload('ResyncChunk', bytes, nodeBase64)).toEqual(want);
    // It took the fast path: the data never went through the string decoder (only the one-byte stand-in did).
    const lengths: number[] = [];
    const watched: Base64 = { ...nodeBase64, name: 'watched', decode: (t) => (lengths.push(t.length), nodeBase64.decode(t)) };
    expect(decodeChunkPayload('ResyncChunk', bytes, watched)).toEqual(want);
    expect(lengths).toEqual([4]);
    // Through a port without decodeAscii (the string path): the same.
    expect(decodeChunkPayload('ResyncChunk', bytes, pureBase64)).toEqual(want);
    const start = bytes.indexOf(0x22, bytes.indexOf(0x3a, bytes.lastIndexOf(0x2c, 200))) + 1; // after "data":"
    const places = [5, start - 1, start, start + PIECE_CHARS - 1, start + PIECE_CHARS, bytes.length - 3, bytes.length - 2, bytes.length - 1];
    for (const at of places) {
      for (const b of [0x22, 0x5c, 0x3d, 0x2d, 0x39, 0xc3, 0xff]) {
        const copy = bytes.slice();
        copy[at] = b;
        expect(decodeChunkPayload('ResyncChunk', copy, nodeBase64), `${at}: ${b}`).toEqual(decodePayload('ResyncChunk', copy));
      }
    }
  });
});
