// The per-turn flush of coalesced frames (adapters/transport/connection.ts): every connection with frames held back
// in one event-loop turn is flushed by one shared immediate, so the frames a host relays from several players' reads
// leave together, one write per connection.
import { setImmediate } from 'node:timers';

/**
 * The connections with coalesced frames waiting, flushed once per event-loop turn (setImmediate: after every I/O
 * callback of this turn's poll phase, so the frames a host relays from several players' reads leave together).
 * One immediate for all of them. `setImmediate` of node:timers: a test's fake timers (which patch the global)
 * do not hold the bytes back.
 */
const dirty: (() => void)[] = [];
let flushScheduled = false;

function flushDirty(): void {
  flushScheduled = false;
  // A flush may write again (a close's final frame is written directly, never queued here): take the list first.
  const flushes = dirty.splice(0);
  for (const flush of flushes) flush();
}

/** Flushes `flush` at the end of this event-loop turn, with every other connection's. */
export function scheduleFlush(flush: () => void): void {
  dirty.push(flush);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushDirty);
  }
}
