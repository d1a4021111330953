// A budget for the log lines peers can cause (docs/SECURITY.md "Log lines a peer can cause"). Most lines a peer
// causes are already written once per player and cause; what is left (a connection opened, rejected and closed;
// an action refused) grows with what peers send. This wrapper lets at most `perSecond` lines through in each
// second of the injected clock; the rest are counted, and the first line of the next second that gets through is
// preceded by `log lines dropped` with the count. A peer flooding the host costs the disk a bounded rate.
import type { Clock, LogFn } from './ports.ts';

/** Lines per second the launcher writes at most for what peers cause. */
export const LOG_LINES_PER_SECOND = 200;

export function budgetedLog(log: LogFn, clock: Pick<Clock, 'now'>, perSecond = LOG_LINES_PER_SECOND): LogFn {
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  let dropped = 0;
  return (entry) => {
    const now = clock.now();
    if (now - windowStart >= 1000) {
      windowStart = now;
      written = 0;
      if (dropped > 0) {
        log({ msg: 'log lines dropped', dropped, perSecond });
        written = 1;
        dropped = 0;
      }
    }
    if (written >= perSecond) {
      dropped++;
      return;
    }
    written++;
    log(entry);
  };
}
