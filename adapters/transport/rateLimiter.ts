// Per-connection rate limits (spec: wire-protocol.txt "Handshake": 1000 frames and 1 MiB per second per
// connection; lockstep.md "Limits": exceeding either → `flood`). Token buckets on the injected clock
// (golang.org/x/time/rate style): full at the start, refilled continuously; see docs/DECISIONS.md.
import type { Clock } from '../../actors/ports.ts';

/** A bucket of `capacity` tokens refilled at `perSecond`, starting full. */
export class TokenBucket {
  readonly capacity: number;
  readonly perSecond: number;
  #clock: Clock;
  #tokens: number;
  #at: number;

  constructor(capacity: number, perSecond: number, clock: Clock) {
    this.capacity = capacity;
    this.perSecond = perSecond;
    this.#clock = clock;
    this.#tokens = capacity;
    this.#at = clock.now();
  }

  /** Tokens available now. */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Takes `cost` tokens if there are that many; false (nothing taken) otherwise. */
  take(cost: number): boolean {
    this.#refill();
    if (cost > this.#tokens) return false;
    this.#tokens -= cost;
    return true;
  }

  /** Gives back `amount` tokens taken earlier (never above the capacity). */
  give(amount: number): void {
    if (!(amount > 0)) return;
    this.#refill();
    this.#tokens = Math.min(this.capacity, this.#tokens + amount);
  }

  #refill(): void {
    const now = this.#clock.now();
    // A clock that steps back refills nothing (and the next step forward starts from here).
    const elapsed = Math.max(0, now - this.#at);
    this.#at = now;
    this.#tokens = Math.min(this.capacity, this.#tokens + (elapsed * this.perSecond) / 1000);
  }
}

/**
 * The two limits of one connection. A frame costs one frame token and its length field's value in byte
 * tokens (the 4-byte prefix is not counted, so one largest frame of 1 048 576 passes a full 1 MiB bucket).
 */
export class RateLimiter {
  #frames: TokenBucket;
  #bytes: TokenBucket;

  constructor(limits: { maxFramesPerSecond: number; maxBytesPerSecond: number }, clock: Clock) {
    this.#frames = new TokenBucket(limits.maxFramesPerSecond, limits.maxFramesPerSecond, clock);
    this.#bytes = new TokenBucket(limits.maxBytesPerSecond, limits.maxBytesPerSecond, clock);
  }

  /** Whether a frame whose length field is `length` is within both limits (and charges it if so). */
  admit(length: number): boolean {
    if (this.#frames.tokens < 1 || this.#bytes.tokens < length) return false;
    this.#frames.take(1);
    this.#bytes.take(length);
    return true;
  }

  /**
   * Gives back a frame `admit` charged: one frame token and `length` byte tokens, never above the buckets' capacity
   * (a frame exempt from the limits once its owner has checked it: a repair source's ResyncUpload, see
   * FramedConnection.uncount). The caller bounds `length` by what was charged.
   */
  refund(length: number): void {
    this.#frames.give(1);
    this.#bytes.give(length);
  }
}
