// The clock adapter (DESIGN.md "Adapters: Clock"): the real clock and a simulated one behind the same
// `Clock` port (actors/ports.ts). The simulated one is xstate's SimulatedClock, so a test can drive the
// transport's rate limits and timeouts and the machines' delayed transitions with one `increment(ms)`.
import { SimulatedClock } from 'xstate';
import type { Clock } from '../actors/ports.ts';

/**
 * The real clock. `now()` is milliseconds since 1970 as of process start plus monotonic time since then
 * (`performance.timeOrigin + performance.now()`): it reads like a wall clock but never goes backwards,
 * so a system clock step cannot refill a rate limit or fire a timeout early.
 */
export const realClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as ReturnType<typeof setTimeout>),
};

/** A clock that moves only when told (`increment(ms)`, `set(ms)`); it starts at 0. */
export type ManualClock = Clock & { increment(ms: number): void; set(ms: number): void };

/** A fresh simulated clock (xstate's SimulatedClock), usable as an actor's `clock` and as the transport's. */
export function createSimulatedClock(): ManualClock {
  return new SimulatedClock() as ManualClock;
}
