// Unit tests of the rate limits (spec "Handshake": 1000 frames and 1 MiB per second per connection;
// reliability-tests §7.4 L6, L7), on xstate's SimulatedClock.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { RateLimiter, TokenBucket } from '../../../adapters/transport/rateLimiter.ts';
import { DEFAULT_LIMITS } from '../../../adapters/transport/limits.ts';

const MAX = 1_048_576;

describe('TokenBucket', () => {
  it('starts full, refuses past its capacity, and refills with time', () => {
    const clock = createSimulatedClock();
    const bucket = new TokenBucket(10, 10, clock);
    for (let i = 0; i < 10; i++) expect(bucket.take(1)).toBe(true);
    expect(bucket.take(1)).toBe(false);
    clock.increment(99);
    expect(bucket.take(1)).toBe(false);
    clock.increment(1);
    expect(bucket.take(1)).toBe(true);
    clock.increment(60_000);
    expect(bucket.tokens).toBe(10);
  });

  it('takes nothing when it refuses', () => {
    const clock = createSimulatedClock();
    const bucket = new TokenBucket(10, 10, clock);
    expect(bucket.take(11)).toBe(false);
    expect(bucket.tokens).toBe(10);
  });

  it('refills nothing when the clock steps back', () => {
    let now = 1000;
    const clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} };
    const bucket = new TokenBucket(5, 5, clock);
    expect(bucket.take(5)).toBe(true);
    now = 0;
    expect(bucket.take(1)).toBe(false);
    now = 200;
    expect(bucket.take(1)).toBe(true);
  });
});

describe('RateLimiter (L6, L7)', () => {
  it('L6: the 1001st frame at one instant is refused', () => {
    const limiter = new RateLimiter(DEFAULT_LIMITS, createSimulatedClock());
    for (let i = 0; i < 1000; i++) expect(limiter.admit(12)).toBe(true);
    expect(limiter.admit(12)).toBe(false);
  });

  it('L6: a steady 950 frames/s for 30 s is never refused', () => {
    const clock = createSimulatedClock();
    const limiter = new RateLimiter(DEFAULT_LIMITS, clock);
    // 19 frames every 20 ms = 950/s.
    let refused = 0;
    for (let tick = 0; tick < 1500; tick++) {
      for (let i = 0; i < 19; i++) if (!limiter.admit(40)) refused++;
      clock.increment(20);
    }
    expect(refused).toBe(0);
  });

  it('L6: a sustained 1050 frames/s is refused within the first seconds', () => {
    const clock = createSimulatedClock();
    const limiter = new RateLimiter(DEFAULT_LIMITS, clock);
    let refusedAt: number | undefined;
    for (let tick = 0; tick < 1000 && refusedAt === undefined; tick++) {
      for (let i = 0; i < 21 && refusedAt === undefined; i++) if (!limiter.admit(12)) refusedAt = clock.now();
      clock.increment(20);
    }
    expect(refusedAt).toBeDefined();
    expect(refusedAt!).toBeLessThanOrEqual(21_000);
  });

  it('L7: one largest frame passes (the prefix is not counted), a second within 1 s does not', () => {
    const clock = createSimulatedClock();
    const limiter = new RateLimiter(DEFAULT_LIMITS, clock);
    expect(limiter.admit(MAX)).toBe(true);
    clock.increment(999);
    expect(limiter.admit(MAX)).toBe(false);
    clock.increment(1);
    expect(limiter.admit(MAX)).toBe(true);
  });

  it('a frame refused for bytes charges no frame token, and the reverse', () => {
    const clock = createSimulatedClock();
    const limiter = new RateLimiter({ maxFramesPerSecond: 2, maxBytesPerSecond: 100 }, clock);
    expect(limiter.admit(100)).toBe(true);
    expect(limiter.admit(1)).toBe(false);
    clock.increment(1000);
    expect(limiter.admit(1)).toBe(true);
    expect(limiter.admit(1)).toBe(true);
    expect(limiter.admit(1)).toBe(false);
  });

  it('never admits more than capacity + rate × elapsed (any schedule)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ wait: fc.integer({ min: 0, max: 50 }), count: fc.integer({ min: 0, max: 300 }) }), {
          maxLength: 40,
        }),
        (steps) => {
          const clock = createSimulatedClock();
          const limiter = new RateLimiter({ maxFramesPerSecond: 1000, maxBytesPerSecond: MAX }, clock);
          let admitted = 0;
          for (const step of steps) {
            clock.increment(step.wait);
            for (let i = 0; i < step.count; i++) if (limiter.admit(12)) admitted++;
          }
          expect(admitted).toBeLessThanOrEqual(1000 + clock.now());
        },
      ),
    );
  });
});
