// The Base64 port (protocol/base64.ts): Node's Buffer implementation (adapters/base64/nodeBase64.ts) against the
// project's pure one as the reference — the same text for every byte array, the same bytes or the same refusal for
// every text (canonical padded base64 only) — and the chunk codec giving the same results through either.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeBase64 } from '../../../adapters/base64/nodeBase64.ts';
import { pureBase64 } from '../../../protocol/base64.ts';
import { decodeChunkPayload, decodePayload, encodeChunkPayload, encodePayload } from '../../../protocol/messages/index.ts';

const B64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n';
const b64ish = fc.array(fc.constantFrom(...B64_CHARS), { maxLength: 24 }).map((cs) => cs.join(''));

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
    let refused = 0;
    let accepted = 0;
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
      fc.property(texts, (text) => {
        const want = pureBase64.decode(text);
        const got = nodeBase64.decode(text);
        if (want === undefined) {
          refused++;
          expect(got).toBeUndefined();
        } else {
          accepted++;
          expect(got && Array.from(got)).toEqual(Array.from(want));
        }
      }),
      { numRuns: 6000, seed: 4 },
    );
    expect(refused).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(500);
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
