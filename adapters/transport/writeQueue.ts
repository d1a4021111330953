// The write side's two guards (spec: wire-protocol.txt "Handshake": a 10 s write timeout;
// reliability-tests §4: a peer that never reads let the kernel absorb ≈4 MB, then Node's queue grows
// without end, so a timer alone is not enough): a deadline for the queue to drain and a cap on its size.
import type { Clock } from '../../actors/ports.ts';

/** What the guard writes to: a Node stream's write side. */
export interface WritableSide {
  write(bytes: Uint8Array): boolean;
  readonly writableLength: number;
}

/** Why the guard gave up on the peer (the connection closes with reason `write-timeout` either way). */
export type WriteFailure =
  | { cause: 'queue-full'; queuedBytes: number; adding: number }
  | { cause: 'no-drain'; queuedBytes: number };

/**
 * Writes through `sink` while the peer keeps up. Once a write leaves bytes queued beyond the stream's
 * high-water mark (write() returns false), the queue must drain within `writeTimeoutMs`; a write that would
 * take the queue past `maxQueuedBytes` is not made. Either failure calls `onFailure` once.
 */
export class WriteGuard {
  #sink: WritableSide;
  #limits: { writeTimeoutMs: number; maxQueuedBytes: number };
  #clock: Clock;
  #onFailure: (failure: WriteFailure) => void;
  #timer: unknown;
  #timing = false;
  #stopped = false;

  constructor(
    sink: WritableSide,
    limits: { writeTimeoutMs: number; maxQueuedBytes: number },
    clock: Clock,
    onFailure: (failure: WriteFailure) => void,
  ) {
    this.#sink = sink;
    this.#limits = limits;
    this.#clock = clock;
    this.#onFailure = onFailure;
  }

  /** Bytes accepted but not yet handed to the kernel. */
  get queuedBytes(): number {
    return this.#sink.writableLength;
  }

  /** Writes `bytes` (not copied: do not change them afterwards). False when the guard failed instead. */
  write(bytes: Uint8Array): boolean {
    if (this.#stopped) return false;
    const queued = this.#sink.writableLength;
    if (queued + bytes.length > this.#limits.maxQueuedBytes) {
      this.#fail({ cause: 'queue-full', queuedBytes: queued, adding: bytes.length });
      return false;
    }
    if (!this.#sink.write(bytes) && !this.#timing) {
      this.#timing = true;
      this.#timer = this.#clock.setTimeout(() => {
        this.#timing = false;
        this.#fail({ cause: 'no-drain', queuedBytes: this.#sink.writableLength });
      }, this.#limits.writeTimeoutMs);
    }
    return true;
  }

  /** The stream emitted 'drain': the deadline is met. */
  drained(): void {
    this.#clearTimer();
  }

  /** No more writes or failures (the connection is closing). */
  stop(): void {
    this.#stopped = true;
    this.#clearTimer();
  }

  #clearTimer(): void {
    if (!this.#timing) return;
    this.#timing = false;
    this.#clock.clearTimeout(this.#timer);
  }

  #fail(failure: WriteFailure): void {
    if (this.#stopped) return;
    this.stop();
    this.#onFailure(failure);
  }
}
