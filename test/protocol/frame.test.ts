// The frame layout and header codec (spec: wire-protocol.txt "Frame"): constants, byte layout, round trips,
// unsealed handshake frames, and the ranges the encoder refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../protocol/bytes.ts';
import {
  FrameError,
  HANDSHAKE_MAX_LENGTH,
  HEADER_BYTES,
  HOST_SENDER,
  MAX_FRAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  MIN_FRAME_LENGTH,
  PREFIX_BYTES,
  UNASSIGNED_SENDER,
  decodeHeader,
  decodeWireFrame,
  encodeFrame,
  encodeHeader,
  encodeUnsealedFrame,
  type FrameHeader,
} from '../../protocol/frame.ts';
import { headerArb } from '../support/frameArb.ts';

describe('constants', () => {
  it('match the spec', () => {
    expect([PREFIX_BYTES, HEADER_BYTES, MIN_FRAME_LENGTH, MAX_FRAME_LENGTH, HANDSHAKE_MAX_LENGTH]).toEqual([
      4, 12, 12, 1_048_576, 4096,
    ]);
    expect(MAX_PAYLOAD_BYTES).toBe(1_048_548);
    expect([HOST_SENDER, UNASSIGNED_SENDER]).toEqual([0, 65535]);
  });
});

describe('header', () => {
  it('is version ‖ kind ‖ u16 sender ‖ u64 counter, big-endian', () => {
    const bytes = encodeHeader({ version: 1, kind: 30, sender: 0x0102, counter: 0x030405060708090an });
    expect(toHex(bytes)).toBe('011e0102030405060708090a');
  });

  it('round-trips every field value, counters past 2^53 included', () => {
    let past53 = 0;
    fc.assert(
      fc.property(headerArb, (h) => {
        expect(decodeHeader(encodeHeader(h))).toEqual(h);
        if (h.counter > 2n ** 53n) past53++;
      }),
    );
    // Counters past 2^53 (measured about 84 of 100).
    expect(past53).toBeGreaterThanOrEqual(30);
    const h: FrameHeader = { version: 1, kind: 1, sender: 1, counter: 2n ** 53n + 1n };
    expect(decodeHeader(encodeHeader(h)).counter).toBe(2n ** 53n + 1n);
  });

  it.each([
    ['kind 256', { kind: 256 }],
    ['kind -1', { kind: -1 }],
    ['kind 1.5', { kind: 1.5 }],
    ['sender 65536', { sender: 65536 }],
    ['version 256', { version: 256 }],
    ['counter 2^64', { counter: 2n ** 64n }],
    ['counter -1', { counter: -1n }],
  ])('refuses %s with a RangeError', (_n, change) => {
    expect(() => encodeHeader({ version: 1, kind: 1, sender: 1, counter: 1n, ...change })).toThrow(RangeError);
  });

  it('decodeHeader reads a view at any offset', () => {
    const buffer = new Uint8Array(20);
    buffer.set(encodeHeader({ version: 1, kind: 7, sender: 9, counter: 11n }), 5);
    expect(decodeHeader(buffer.subarray(5, 17))).toEqual({ version: 1, kind: 7, sender: 9, counter: 11n });
  });
});

describe('encodeFrame / decodeWireFrame', () => {
  it('writes prefix = 12 + body length, then header, then body', () => {
    const wire = encodeFrame({ version: 1, kind: 51, sender: 3, counter: 2n }, new Uint8Array([0xaa, 0xbb]));
    expect(toHex(wire)).toBe('0000000e' + '013300030000000000000002' + 'aabb');
  });

  it('round-trips any header and body', () => {
    const seen = { empty: 0, short: 0, long: 0 };
    fc.assert(
      // size 'max': bodies spread to 600 bytes (the default size keeps them under a few dozen).
      fc.property(headerArb, fc.uint8Array({ maxLength: 600, size: 'max' }), (h, body) => {
        seen[body.length === 0 ? 'empty' : body.length >= 100 ? 'long' : 'short']++;
        const frame = decodeWireFrame(encodeFrame(h, body));
        expect(frame).not.toBeInstanceOf(FrameError);
        if (frame instanceof FrameError) return;
        expect(frame.header).toEqual(h);
        expect(toHex(frame.headerBytes)).toBe(toHex(encodeHeader(h)));
        expect(toHex(frame.body)).toBe(toHex(body));
      }),
    );
    // Bodies under 100 bytes and of 100–600 (measured about 30 and 70 of 100).
    expect(seen.short + seen.empty).toBeGreaterThanOrEqual(10);
    expect(seen.long).toBeGreaterThanOrEqual(35);
  });

  it('builds a frame of exactly MAX_FRAME_LENGTH and refuses one byte more', () => {
    const h = { version: 1, kind: 18, sender: 0, counter: 1n };
    const wire = encodeFrame(h, new Uint8Array(MAX_FRAME_LENGTH - HEADER_BYTES));
    expect(wire.length).toBe(PREFIX_BYTES + MAX_FRAME_LENGTH);
    expect(() => encodeFrame(h, new Uint8Array(MAX_FRAME_LENGTH - HEADER_BYTES + 1))).toThrow(RangeError);
  });

  it('returns (never throws) a FrameError for a bad prefix, a count mismatch or another version', () => {
    const good = encodeFrame({ version: 1, kind: 1, sender: 1, counter: 1n }, new Uint8Array(3));
    const cases: [Uint8Array, 'length' | 'version'][] = [
      [good.subarray(0, 3), 'length'],
      [good.subarray(0, good.length - 1), 'length'],
      [new Uint8Array([0, 0, 0, 11, ...new Uint8Array(11)]), 'length'],
      [encodeFrame({ version: 2, kind: 1, sender: 1, counter: 1n }, new Uint8Array(0)), 'version'],
    ];
    for (const [wire, code] of cases) {
      const result = decodeWireFrame(wire);
      expect(result).toBeInstanceOf(FrameError);
      expect((result as FrameError).code).toBe(code);
    }
    expect((decodeWireFrame(good, 12) as FrameError).length).toBe(15);
  });
});

describe('unsealed handshake frames', () => {
  it('carry counter 0 and the payload as the body', () => {
    const payload = new TextEncoder().encode('{"reason":"full"}');
    const wire = encodeUnsealedFrame(3, UNASSIGNED_SENDER, payload);
    const frame = decodeWireFrame(wire, HANDSHAKE_MAX_LENGTH);
    expect(frame).not.toBeInstanceOf(FrameError);
    if (frame instanceof FrameError) return;
    expect(frame.header).toEqual({ version: 1, kind: 3, sender: 65535, counter: 0n });
    expect(new TextDecoder().decode(frame.body)).toBe('{"reason":"full"}');
    const length = (12 + payload.length).toString(16).padStart(8, '0');
    expect(toHex(wire.subarray(0, 16))).toBe(`${length}0103ffff0000000000000000`);
  });
});
