// Unit tests of the transport limits' defaults and checks (spec "Handshake", last paragraph).
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../../../adapters/transport/limits.ts';

describe('transport limits', () => {
  it("default to the spec's numbers", () => {
    expect(DEFAULT_LIMITS).toEqual({
      handshakeMaxLength: 4096,
      maxPending: 32,
      maxConnections: 64,
      maxPerAddress: 16,
      writeTimeoutMs: 10_000,
      maxFramesPerSecond: 1000,
      maxBytesPerSecond: 1_048_576,
      maxQueuedBytes: 8_388_608,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  it('apply overrides and keep the rest', () => {
    const limits = resolveLimits({ writeTimeoutMs: 300, maxPending: 3 });
    expect(limits.writeTimeoutMs).toBe(300);
    expect(limits.maxPending).toBe(3);
    expect(limits.maxConnections).toBe(64);
  });

  it('refuse a set that cannot work', () => {
    expect(() => resolveLimits({ maxPending: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ writeTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => resolveLimits({ handshakeMaxLength: 11 })).toThrow(RangeError);
    expect(() => resolveLimits({ handshakeMaxLength: 1_048_577 })).toThrow(RangeError);
    expect(() => resolveLimits({ maxBytesPerSecond: 1_048_575 })).toThrow(RangeError);
    expect(() => resolveLimits({ maxQueuedBytes: 1_048_579 })).toThrow(RangeError);
    expect(resolveLimits({ maxQueuedBytes: 1_048_580 }).maxQueuedBytes).toBe(1_048_580);
  });
});
