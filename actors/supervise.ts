// Supervision helpers (DESIGN.md "Supervision"): a fault while handling one event is logged once with its stack
// and contained. An XState actor reports a throw from an emitted-event listener, and an actor error without an
// error observer, by rethrowing it on a timer (`reportUnhandledError`), which would end the process: every listener
// and timer callback in actors/ goes through `guarded`, and every long-lived actor has an error observer.
import type { Clock, LogFn } from './ports.ts';

/** The stack of a thrown value (or its text). */
export function stackOf(err: unknown): string {
  return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
}

/** `fn`, but a throw is logged as `internal error` (with `while: what` and the stack) instead of escaping. */
export function guarded<A extends unknown[]>(log: LogFn, what: string, fn: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    try {
      fn(...args);
    } catch (err) {
      try {
        log({ msg: 'internal error', while: what, stack: stackOf(err) });
      } catch {
        // The log itself failed: nothing more to do here; the process goes on.
      }
    }
  };
}

/**
 * Calls `tick` every `everyMs` on the injected clock, guarded (a throw is logged as `internal error` while `what`, and
 * the ticks go on), until the returned stop is called.
 */
export function startTicker(clock: Clock, log: LogFn, what: string, everyMs: number, tick: () => void): () => void {
  const guardedTick = guarded(log, what, tick);
  let stopped = false;
  let timer: unknown;
  const loop = (): void => {
    if (stopped) return;
    guardedTick();
    timer = clock.setTimeout(loop, everyMs);
  };
  timer = clock.setTimeout(loop, everyMs);
  return () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
}
