// The frames a player's session drops (not from the host's sender, unsealed after Welcome, failed to open or decode,
// a message before Welcome): counted, and each cause and kind logged once. Anyone on the path can write frames, and
// each would otherwise be a line.
import type { LogFn } from '../ports.ts';

/** Causes remembered as logged; past this, a new cause is still logged but no longer remembered. */
const REMEMBERED = 256;

export class FrameDrops {
  /** Frames dropped so far. */
  count = 0;
  readonly #logged = new Set<string>();
  readonly #log: LogFn;

  constructor(log: LogFn) {
    this.#log = log;
  }

  drop(msg: string, kind: number): void {
    this.count++;
    const key = `${msg}:${kind}`;
    if (this.#logged.has(key)) return;
    if (this.#logged.size < REMEMBERED) this.#logged.add(key);
    this.#log({ msg, kind });
  }
}
