// Tests of the clock adapter (DESIGN.md "Adapters: Clock"): the real clock and the simulated one share one port.
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../actors/ports.ts';
import { createSimulatedClock, realClock } from '../../adapters/clock.ts';

describe('clock adapter', () => {
  it('realClock reads like a wall clock and never goes backwards', () => {
    const a = realClock.now();
    expect(Math.abs(a - Date.now())).toBeLessThan(60_000);
    let last = a;
    for (let i = 0; i < 10_000; i++) {
      const t = realClock.now();
      expect(t).toBeGreaterThanOrEqual(last);
      last = t;
    }
  });

  it('realClock runs and cancels timers', async () => {
    const fired: string[] = [];
    const cancelled = realClock.setTimeout(() => fired.push('cancelled'), 1);
    realClock.clearTimeout(cancelled);
    await new Promise<void>((resolve) => realClock.setTimeout(() => resolve(), 5));
    expect(fired).toEqual([]);
  });

  it('the simulated clock fires timers only when moved, in order', () => {
    const clock = createSimulatedClock();
    const port: Clock = clock;
    const fired: string[] = [];
    port.setTimeout(() => fired.push('b'), 200);
    port.setTimeout(() => fired.push('a'), 100);
    const c = port.setTimeout(() => fired.push('c'), 150);
    port.clearTimeout(c);
    expect(port.now()).toBe(0);
    clock.increment(99);
    expect(fired).toEqual([]);
    clock.increment(101);
    expect(fired).toEqual(['a', 'b']);
    expect(port.now()).toBe(200);
  });
});
