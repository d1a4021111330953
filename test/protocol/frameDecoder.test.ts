// The streaming frame decoder (spec: wire-protocol.txt "Frame"; reliability-tests.md L1, N1, N2, F1): the same
// frames for every split of the stream, length bounds checked before any allocation, version checked early.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes, toHex } from '../../protocol/bytes.ts';
import {
  FrameDecoder,
  FrameError,
  HANDSHAKE_MAX_LENGTH,
  MAX_FRAME_LENGTH,
  encodeFrame,
  type Frame,
  type FrameHeader,
} from '../../protocol/frame.ts';
import { headerArb } from '../support/frameArb.ts';

const frameArb = fc.tuple(headerArb, fc.uint8Array({ maxLength: 300 }));

function summary(frames: Frame[]): string[] {
  return frames.map((f) => {
    const { kind, sender, counter } = f.header;
    return `${kind}/${sender}/${counter}/${toHex(f.headerBytes)}/${toHex(f.body)}`;
  });
}

function expected(list: [FrameHeader, Uint8Array][]): string[] {
  return list.map(([h, b]) => {
    const headerHex = toHex(encodeFrame(h, b).subarray(4, 16));
    return `${h.kind}/${h.sender}/${h.counter}/${headerHex}/${toHex(b)}`;
  });
}

function prefix(length: number): Uint8Array {
  return new Uint8Array([length >>> 24, (length >>> 16) & 255, (length >>> 8) & 255, length & 255]);
}

function pushAll(decoder: FrameDecoder, pieces: Uint8Array[]): Frame[] {
  return pieces.flatMap((p) => decoder.push(p));
}

describe('splitting and coalescing', () => {
  it('gives the same frames for every split of the stream', () => {
    // Coverage: streams of several frames cut in several places (a cut inside a header or body included).
    const seen = { severalFrames: 0, severalCuts: 0, both: 0 };
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 }), (list, cuts) => {
        const stream = concatBytes(...list.map(([h, b]) => encodeFrame(h, b)));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const pieces: Uint8Array[] = [];
        let at = 0;
        for (const p of [...points, stream.length]) {
          pieces.push(stream.subarray(at, p));
          at = p;
        }
        const decoder = new FrameDecoder();
        expect(summary(pushAll(decoder, pieces))).toEqual(expected(list));
        expect(decoder.bufferedBytes).toBe(0);
        if (list.length >= 2) seen.severalFrames++;
        if (points.filter((p) => p > 0 && p < stream.length).length >= 2) seen.severalCuts++;
        if (list.length >= 2 && points.length >= 2) seen.both++;
      }),
      { numRuns: 500 },
    );
    // Measured of 500: about 357 of several frames, 345 with several cuts, 295 both.
    expect(seen.severalFrames).toBeGreaterThanOrEqual(170);
    expect(seen.severalCuts).toBeGreaterThanOrEqual(170);
    expect(seen.both).toBeGreaterThanOrEqual(140);
  });

  it('byte by byte and all at once give the same frames', () => {
    const list: [FrameHeader, Uint8Array][] = [
      [{ version: 1, kind: 2, sender: 65535, counter: 0n }, new Uint8Array([1, 2, 3])],
      [{ version: 1, kind: 10, sender: 0, counter: 1n }, new Uint8Array(0)],
      [{ version: 1, kind: 50, sender: 7, counter: 2n ** 64n - 1n }, new Uint8Array(1000).fill(9)],
    ];
    const stream = concatBytes(...list.map(([h, b]) => encodeFrame(h, b)));
    const single = new FrameDecoder();
    const bytes = Array.from(stream, (_, i) => stream.subarray(i, i + 1));
    expect(summary(pushAll(single, bytes))).toEqual(expected(list));
    expect(summary(new FrameDecoder().push(stream))).toEqual(expected(list));
  });

  it('holds a partial frame and reports its bytes as buffered', () => {
    const wire = encodeFrame({ version: 1, kind: 1, sender: 1, counter: 1n }, new Uint8Array(50));
    const decoder = new FrameDecoder();
    expect(decoder.push(wire.subarray(0, 30))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(30);
    expect(decoder.push(wire.subarray(30))).toHaveLength(1);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('never copies a frame that arrived in one chunk', () => {
    const wire = encodeFrame({ version: 1, kind: 1, sender: 1, counter: 1n }, new Uint8Array([5, 6]));
    const [frame] = new FrameDecoder().push(wire);
    expect(frame!.body.buffer).toBe(wire.buffer);
  });
});

describe('L1 length bounds', () => {
  it.each([0, 11, 1_048_577, 0xffffffff])('length %i: FrameError before any body byte is held', (length) => {
    const decoder = new FrameDecoder();
    let error: unknown;
    try {
      decoder.push(prefix(length));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FrameError);
    expect((error as FrameError).code).toBe('length');
    expect((error as FrameError).length).toBe(length);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('refuses a bad length split over 1-byte chunks as soon as the 4th byte is in', () => {
    const decoder = new FrameDecoder();
    const bytes = prefix(0xffffffff);
    for (let i = 0; i < 3; i++) expect(decoder.push(bytes.subarray(i, i + 1))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(3);
    expect(() => decoder.push(bytes.subarray(3))).toThrow(FrameError);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('length 12 (empty body) is a frame', () => {
    const wire = encodeFrame({ version: 1, kind: 21, sender: 0, counter: 1n }, new Uint8Array(0));
    const frames = new FrameDecoder().push(wire);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.body).toHaveLength(0);
  });

  it('length 1 048 576 is a frame, and nothing is allocated for it before its bytes arrive', () => {
    const body = new Uint8Array(MAX_FRAME_LENGTH - 12).fill(3);
    const wire = encodeFrame({ version: 1, kind: 18, sender: 0, counter: 1n }, body);
    const decoder = new FrameDecoder();
    expect(decoder.push(wire.subarray(0, 16))).toEqual([]);
    expect(decoder.bufferedBytes).toBe(16);
    const frames = decoder.push(wire.subarray(16));
    expect(frames).toHaveLength(1);
    expect(frames[0]!.body.length).toBe(MAX_FRAME_LENGTH - 12);
  });

  it('the handshake limit: 4096 parsed, 4097 refused; the limit can be raised after the join', () => {
    const at = (n: number) => encodeFrame({ version: 1, kind: 2, sender: 65535, counter: 0n }, new Uint8Array(n - 12));
    const decoder = new FrameDecoder({ maxLength: HANDSHAKE_MAX_LENGTH });
    expect(decoder.push(at(4096))).toHaveLength(1);
    decoder.maxLength = MAX_FRAME_LENGTH;
    expect(decoder.push(at(4097))).toHaveLength(1);
    expect(() => new FrameDecoder({ maxLength: HANDSHAKE_MAX_LENGTH }).push(at(4097))).toThrow(FrameError);
  });

  it('refuses a maxLength outside [12, 1 048 576]', () => {
    expect(() => new FrameDecoder({ maxLength: 11 })).toThrow(RangeError);
    expect(() => new FrameDecoder({ maxLength: MAX_FRAME_LENGTH + 1 })).toThrow(RangeError);
    expect(() => {
      new FrameDecoder().maxLength = 0;
    }).toThrow(RangeError);
  });
});

describe('version and failure', () => {
  it('refuses another version as soon as its byte is in, holding nothing', () => {
    const decoder = new FrameDecoder();
    let error: unknown;
    try {
      decoder.push(new Uint8Array([0, 0, 0, 100, 2]));
    } catch (e) {
      error = e;
    }
    expect((error as FrameError).code).toBe('version');
    expect((error as FrameError).version).toBe(2);
    expect(decoder.bufferedBytes).toBe(0);
  });

  it('hands back the good frames that came before the error in the same chunk, then stays failed', () => {
    const good = encodeFrame({ version: 1, kind: 38, sender: 4, counter: 9n }, new Uint8Array(20));
    const decoder = new FrameDecoder();
    let error: FrameError | undefined;
    try {
      decoder.push(concatBytes(good, good, prefix(5)));
    } catch (e) {
      error = e as FrameError;
    }
    expect(error?.frames.map((f) => f.header.counter)).toEqual([9n, 9n]);
    expect(() => decoder.push(good)).toThrow(error);
  });
});

describe('F1 hostile bytes', () => {
  it('only ever returns frames or throws FrameError, and holds at most one frame', () => {
    const mutated = fc
      .tuple(
        fc.array(frameArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 6 }),
      )
      .map(([list, edits]) => {
        const stream = concatBytes(...list.map(([h, b]) => encodeFrame(h, b)));
        for (const [at, value] of edits) stream[at % stream.length] = value;
        return stream;
      });
    const input = fc.oneof(fc.uint8Array({ maxLength: 8192 }), mutated);
    // Coverage: inputs that gave frames, that threw FrameError, and that ended holding a partial frame.
    const seen = { framed: 0, threw: 0, holding: 0 };
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 97 }), (bytes, step) => {
        const decoder = new FrameDecoder({ maxLength: HANDSHAKE_MAX_LENGTH });
        let frames = 0;
        try {
          for (let i = 0; i < bytes.length; i += step) {
            for (const f of decoder.push(bytes.subarray(i, i + step))) {
              expect(f.header.version).toBe(1);
              frames++;
            }
            expect(decoder.bufferedBytes).toBeLessThanOrEqual(4 + HANDSHAKE_MAX_LENGTH + step);
          }
          if (decoder.bufferedBytes > 0) seen.holding++;
        } catch (e) {
          expect(e).toBeInstanceOf(FrameError);
          seen.threw++;
        }
        if (frames > 0) seen.framed++;
      }),
      { numRuns: 2000 },
    );
    // Measured of 2000: about 635 gave frames, 1010 threw FrameError, 340 ended holding part of a frame.
    expect(seen.framed).toBeGreaterThanOrEqual(300);
    expect(seen.threw).toBeGreaterThanOrEqual(500);
    expect(seen.holding).toBeGreaterThanOrEqual(150);
  });
});
