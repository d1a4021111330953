// FEVERLINK3_RATE_LIMIT_SCALE (adapters/cli/commands/host.ts): the host operator's factor on the per-connection
// frame and byte rates, for the relay bench's capacity run. Unset or empty, the spec's limits hold; anything but a
// whole number from 1 to 1000 is a usage error that names the variable.
import { describe, expect, it } from 'vitest';
import { RATE_SCALE_ENV, rateLimitScale, scaledRates } from '../../adapters/cli/commands/host.ts';
import { UsageError } from '../../adapters/cli/failure.ts';
import { DEFAULT_LIMITS } from '../../adapters/transport/limits.ts';

describe('the host rate limit scale', () => {
  it('is absent unless set', () => {
    expect(rateLimitScale({})).toBeUndefined();
    expect(rateLimitScale({ [RATE_SCALE_ENV]: '' })).toBeUndefined();
  });

  it('scales both per-second limits of the spec', () => {
    expect(rateLimitScale({ [RATE_SCALE_ENV]: '100' })).toBe(100);
    expect(scaledRates(100)).toEqual({
      maxFramesPerSecond: 100 * DEFAULT_LIMITS.maxFramesPerSecond,
      maxBytesPerSecond: 100 * DEFAULT_LIMITS.maxBytesPerSecond,
    });
  });

  it.each(['0', '1001', '2.5', '-3', 'lots', '1e3'])('refuses %j with the variable named', (text) => {
    expect(() => rateLimitScale({ [RATE_SCALE_ENV]: text })).toThrow(UsageError);
    expect(() => rateLimitScale({ [RATE_SCALE_ENV]: text })).toThrow(RATE_SCALE_ENV);
  });
});
