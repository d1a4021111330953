// The demo's end (adapters/demo/runDemo.ts): the players stop clicking so that the worlds can be compared at rest.
// A file in the session folder is the signal: the demo starts the games only through their launchers, so it has no
// handle on a game's process, and a file works the same on every platform.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The file in a game's session folder that stops its bots for good. */
export const BOTS_STOP_FILE = 'bots.stop';

/**
 * Looks for `<sessionDir>/bots.stop` every `everyMs` (wall ms) and calls `stop` once, the first time it is there.
 * Returns a function that stops looking.
 */
export function watchBotsStop(sessionDir: string, everyMs: number, stop: () => void): () => void {
  const path = join(sessionDir, BOTS_STOP_FILE);
  const timer = setInterval(() => {
    if (!existsSync(path)) return;
    clearInterval(timer);
    stop();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
