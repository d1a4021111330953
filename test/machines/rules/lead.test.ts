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

  const rtt = fc.double({ min: 0, max: 10_000, noNaN: true });
  const interval = fc.double({ min: 0, max: 2000, noNaN: true });
  const speed = fc.constantFrom(0, 1, 2, 4);

  it('is an integer in [2, 32]', () => {
    fc.assert(
      fc.property(rtt, interval, speed, (r, i, s) => {
        const lead = leadFor(r, i, s);
        expect(Number.isInteger(lead)).toBe(true);
        expect(lead).toBeGreaterThanOrEqual(2);
        expect(lead).toBeLessThanOrEqual(32);
      }),
    );
  });

  it('is monotone in the round trip and in the speed', () => {
    fc.assert(
      fc.property(rtt, rtt, interval, speed, speed, (a, b, i, s, t) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(leadFor(hi, i, s)).toBeGreaterThanOrEqual(leadFor(lo, i, s));
        const [slow, fast] = s <= t ? [s, t] : [t, s];
        expect(leadFor(a, i, fast)).toBeGreaterThanOrEqual(leadFor(a, i, slow));
      }),
    );
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
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 32 }), fc.integer({ min: 2, max: 32 }), (current, proposed) => {
        const next = nextLead(current, proposed);
        expect(next).toBe(Math.abs(proposed - current) >= 2 ? proposed : current);
      }),
    );
  });

  it('never flaps while the proposal jitters by one step around the lead', () => {
    const jitter = fc.array(fc.constantFrom(-1, 0, 1), { maxLength: 50 });
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 31 }), jitter, (start, steps) => {
        let lead = start;
        for (const j of steps) lead = nextLead(lead, start + j);
        expect(lead).toBe(start);
      }),
    );
  });
});
