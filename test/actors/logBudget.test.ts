// The log budget (docs/SECURITY.md "Log lines a peer can cause"): at most N lines a second of the injected clock,
// the rest counted and reported in one line when the next second opens.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { budgetedLog } from '../../actors/logBudget.ts';

describe('budgetedLog', () => {
  it('writes at most perSecond lines a second and then says how many it dropped', () => {
    const clock = new SimulatedClock();
    const lines: { msg: string; [k: string]: unknown }[] = [];
    const log = budgetedLog((e) => lines.push(e), clock, 5);
    for (let i = 0; i < 12; i++) log({ msg: 'connection opened', i });
    expect(lines.map((l) => l.i)).toEqual([0, 1, 2, 3, 4]);
    clock.increment(999);
    log({ msg: 'still the same second' });
    expect(lines).toHaveLength(5);
    clock.increment(1);
    log({ msg: 'next second' });
    expect(lines.slice(5)).toEqual([{ msg: 'log lines dropped', dropped: 8, perSecond: 5 }, { msg: 'next second' }]);
    for (let i = 0; i < 10; i++) log({ msg: 'more' });
    expect(lines).toHaveLength(5 + 5); // the summary counts towards the new second's five
  });
});
