// The per-sender anti-replay window of sealed frames (spec: wire-protocol.txt "Frame"; RFC 4303 §3.4.3 with a
// 64-frame window, reliability-tests.md §1). Counters are BigInt end to end: 2^53 and 2^53 + 1 are different.
import { MAX_COUNTER } from './frame/codec.ts';

/** Number of counters the window remembers behind the highest one. */
export const REPLAY_WINDOW_SIZE = 64;

const MASK = (1n << BigInt(REPLAY_WINDOW_SIZE)) - 1n;

/**
 * RFC 4303 style, 64 frames. `check(c)` is true when c may be accepted: c > highest, or highest − c ≤ 63 and c
 * was not seen; 0 is never valid (counters start at 1) and neither is anything above 2^64 − 1. `check` has no
 * side effect; `commit` records c (call it only once the frame's tag verified).
 */
export class ReplayWindow {
  #highest = 0n;
  /** Bit i set = counter highest − i was seen. */
  #bits = 0n;

  /** Whether `counter` would be accepted now. Changes nothing. */
  check(counter: bigint): boolean {
    if (counter <= 0n || counter > MAX_COUNTER) return false;
    if (counter > this.#highest) return true;
    const behind = this.#highest - counter;
    if (behind >= BigInt(REPLAY_WINDOW_SIZE)) return false;
    return ((this.#bits >> behind) & 1n) === 0n;
  }

  /** Records `counter` as seen; a counter that `check` refuses changes nothing. */
  commit(counter: bigint): void {
    if (!this.check(counter)) return;
    if (counter > this.#highest) {
      const shift = counter - this.#highest;
      this.#bits = shift >= BigInt(REPLAY_WINDOW_SIZE) ? 1n : ((this.#bits << shift) | 1n) & MASK;
      this.#highest = counter;
    } else {
      this.#bits |= 1n << (this.#highest - counter);
    }
  }

  /** The highest counter committed so far; 0n before the first. */
  get highest(): bigint {
    return this.#highest;
  }
}
