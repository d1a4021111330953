// Driving a memory network on a simulated clock (DESIGN.md "Tests: simulation"): the SimulatedClock jumps, so these
// step it from one due delivery to the next and let the microtasks that deliveries start (a resumed socket's reads,
// a resolved connect) run in between. Same calls, same seed → same steps.
import type { ManualClock } from '../clock.ts';
import type { MemoryNetwork } from './memory.ts';

/** Lets every pending microtask (and promise continuation) run: one turn of the event loop, no time passes. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Moves the clock `ms` forward, stopping at every delivery due on the way (so each one happens at its own time)
 * and settling after each step.
 */
export async function advanceBy(clock: ManualClock, network: Pick<MemoryNetwork, 'nextEventAt'>, ms: number): Promise<void> {
  const end = clock.now() + ms;
  await settle();
  for (;;) {
    const next = network.nextEventAt();
    if (next === undefined || next > end) break;
    clock.increment(Math.max(0, next - clock.now()));
    await settle();
  }
  if (clock.now() < end) clock.increment(end - clock.now());
  await settle();
}

export interface RunUntilOptions {
  /** Give up after this much clock time (default 60 000 ms). */
  maxMs?: number;
  /** With no delivery due, move the clock this much at a time (default 10 ms): other timers may be waited for. */
  idleStepMs?: number;
  /** Named in the error when giving up. */
  what?: string;
}

/**
 * Steps the clock (deliveries one by one, else `idleStepMs`) until `probe` returns something other than
 * undefined/false, and returns it. Throws after `maxMs` of clock time.
 */
export async function runUntil<T>(
  clock: ManualClock,
  network: Pick<MemoryNetwork, 'nextEventAt'>,
  probe: () => T | undefined | false,
  options: RunUntilOptions = {},
): Promise<T> {
  const maxMs = options.maxMs ?? 60_000;
  const idle = options.idleStepMs ?? 10;
  const end = clock.now() + maxMs;
  for (;;) {
    await settle();
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (clock.now() >= end) throw new Error(`gave up after ${maxMs} ms of clock time waiting for ${options.what ?? 'a condition'}`);
    const next = network.nextEventAt();
    const target = next !== undefined && next <= clock.now() + idle ? next : clock.now() + idle;
    clock.increment(Math.max(0, Math.min(target, end) - clock.now()));
  }
}
