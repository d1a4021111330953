// Session.lead (lockstep.md "The host's stamps"): clamp(ceil((maxRtt + 2 × clockInterval + 100) × speed / STEP),
// 2, 32) and its hysteresis of 2 steps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LEAD, MIN_LEAD, leadFor, nextLead } from '../../../machines/rules/lead.ts';

describe('leadFor', () => {
  it('follows the formula', () => {
    // (40 + 2 × 200 + 100) × 1 / 200 = 2.7 → 3
    expect(leadFor(40, 200, 1)).toBe(3);
    // (300 + 400 + 100) × 2 / 200 = 8
    expect(leadFor(300, 200, 2)).toBe(8);
    // (150 + 200 + 100) × 4 / 200 = 9
    expect(leadFor(150, 100, 4)).toBe(9);
  });

  it('clamps to [2, 32]', () => {
    expect(leadFor(0, 0, 1)).toBe(MIN_LEAD);
    expect(leadFor(0, 0, 0)).toBe(MIN_LEAD);
    expect(leadFor(5000, 500, 4)).toBe(MAX_LEAD);
  });

  it('treats a non-finite or negative input as 0', () => {
    expect(leadFor(Number.NaN, 200, 1)).toBe(leadFor(0, 200, 1));
    expect(leadFor(-500, 200, 1)).toBe(leadFor(0, 200, 1));
    expect(leadFor(Number.POSITIVE_INFINITY, 200, 1)).toBe(leadFor(0, 200, 1));
  });

  // Any value in range (fast-check's doubles lean to small ones), the values a session sees (round trips under half
  // a second, the mod's 100 ms clock: the lead lies between its clamps) and round trips of seconds (clamped at 32).
  const rtt = fc.oneof(
    fc.double({ min: 0, max: 10_000, noNaN: true }),
    fc.integer({ min: 0, max: 500 }),
    fc.integer({ min: 2000, max: 10_000 }),
  );
  const interval = fc.oneof(fc.double({ min: 0, max: 2000, noNaN: true }), fc.constantFrom(50, 100, 200));
  const speed = fc.constantFrom(0, 1, 2, 4);

  it('is an integer in [2, 32]', () => {
    // Coverage: clamped at 2, clamped at 32, and strictly between (the formula's own value).
    const seen = { low: 0, high: 0, between: 0 };
    fc.assert(
      fc.property(rtt, interval, speed, (r, i, s) => {
        const lead = leadFor(r, i, s);
        expect(Number.isInteger(lead)).toBe(true);
        expect(lead).toBeGreaterThanOrEqual(2);
        expect(lead).toBeLessThanOrEqual(32);
        seen[lead === MIN_LEAD ? 'low' : lead === MAX_LEAD ? 'high' : 'between']++;
      }),
      { numRuns: 300 },
    );
    // Measured of 300: low 129–136, high 62–67, between 97–109.
    expect(seen.low).toBeGreaterThanOrEqual(30);
    expect(seen.high).toBeGreaterThanOrEqual(30);
    expect(seen.between).toBeGreaterThanOrEqual(30);
  });

  it('is monotone in the round trip and in the speed', () => {
    // Coverage: pairs where the larger input gave a strictly larger lead (not only clamped equals).
    const seen = { rttRaised: 0, speedRaised: 0 };
    fc.assert(
      fc.property(rtt, rtt, interval, speed, speed, (a, b, i, s, t) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(leadFor(hi, i, s)).toBeGreaterThanOrEqual(leadFor(lo, i, s));
        const [slow, fast] = s <= t ? [s, t] : [t, s];
        expect(leadFor(a, i, fast)).toBeGreaterThanOrEqual(leadFor(a, i, slow));
        if (leadFor(hi, i, s) > leadFor(lo, i, s)) seen.rttRaised++;
        if (leadFor(a, i, fast) > leadFor(a, i, slow)) seen.speedRaised++;
      }),
      { numRuns: 300 },
    );
    // Measured of 300: 148–161 and 140–152.
    expect(seen.rttRaised).toBeGreaterThanOrEqual(90);
    expect(seen.speedRaised).toBeGreaterThanOrEqual(90);
  });
});

describe('nextLead', () => {
  it('changes only when the proposal moves by 2 or more', () => {
    expect(nextLead(4, 5)).toBe(4);
    expect(nextLead(4, 3)).toBe(4);
    expect(nextLead(4, 6)).toBe(6);
    expect(nextLead(4, 2)).toBe(2);
    expect(nextLead(4, 4)).toBe(4);
  });

  it('returns the current lead or the proposal, by the 2-step rule', () => {
    // Every (current, proposed) pair, 31 × 31: both outcomes, and the ±1 and ±2 edges, are all in it.
    let kept = 0;
    let moved = 0;
    for (let current = 2; current <= 32; current++) {
      for (let proposed = 2; proposed <= 32; proposed++) {
        const next = nextLead(current, proposed);
        expect(next).toBe(Math.abs(proposed - current) >= 2 ? proposed : current);
        if (next === current) kept++;
        else moved++;
      }
    }
    expect(kept).toBe(31 + 2 * 30);
    expect(moved).toBe(31 * 31 - kept);
  });

  it('never flaps while the proposal jitters by one step around the lead', () => {
    const jitter = fc.array(fc.constantFrom(-1, 0, 1), { maxLength: 50 });
    let jittered = 0;
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 31 }), jitter, (start, steps) => {
        let lead = start;
        for (const j of steps) lead = nextLead(lead, start + j);
        expect(lead).toBe(start);
        if (steps.includes(-1) && steps.includes(1)) jittered++;
      }),
    );
    // Runs whose proposal went both ways around the lead (measured 51–59 of 100).
    expect(jittered).toBeGreaterThanOrEqual(30);
  });
});
