// Joins per address (docs/SECURITY.md "Joins per address"): a burst of 8, then one per 20 s; addresses apart.
import { describe, expect, it } from 'vitest';
import { createJoinRate, JOIN_ADDRESSES, JOIN_BURST, JOIN_REFILL_MS, takeJoin } from '../../../machines/rules/joinRate.ts';

describe('join rate per address', () => {
  it('allows a burst, then one join per refill period, each address on its own', () => {
    const rate = createJoinRate();
    for (let i = 0; i < JOIN_BURST; i++) expect(takeJoin(rate, 'a', 0)).toBe(true);
    expect(takeJoin(rate, 'a', 0)).toBe(false);
    expect(takeJoin(rate, 'b', 0)).toBe(true);
    expect(takeJoin(rate, 'a', JOIN_REFILL_MS - 1)).toBe(false);
    expect(takeJoin(rate, 'a', JOIN_REFILL_MS)).toBe(true);
    expect(takeJoin(rate, 'a', JOIN_REFILL_MS)).toBe(false);
  });

  it('at the steady rate one address needs more than two weeks to use up the 65 534 ids', () => {
    const days = (65_534 * JOIN_REFILL_MS) / 86_400_000;
    expect(days).toBeGreaterThan(14);
  });

  it('remembers a bounded number of addresses, forgetting the least recently seen', () => {
    const rate = createJoinRate();
    for (let i = 0; i < JOIN_ADDRESSES + 10; i++) takeJoin(rate, `addr${i}`, 0);
    expect(rate.buckets.size).toBe(JOIN_ADDRESSES);
    expect(rate.buckets.has('addr0')).toBe(false);
    expect(rate.buckets.has(`addr${JOIN_ADDRESSES + 9}`)).toBe(true);
  });
});
