// One player's outbox on the host (lockstep.md "Catching up"; spec "Catching up"): every message the host made for
// the player since the player's last acknowledged frame, so a returner is given exactly what it missed. Kept for the
// slot's life (connected and away), bounded by age (60 s) and bytes (32 MiB); save chunks are never kept (a round's
// chunks mark a gap: a returner whose `last` lies before one cannot be caught up).
//
// Acknowledgement without a new message: the player answers Ping n with Pong n after reading every frame before it
// (one ordered stream), so Pong n acknowledges everything up to the counter Ping n was sealed with. What the host
// makes while the player is away is kept without a counter (never sent) and is always after any `last`.
//
// Entries are kept as messages, not frames: a resend is sealed anew with fresh counters (a nonce is never reused).

/** How long an entry is kept (lockstep.md: 60 s). */
export const OUTBOX_MAX_AGE_MS = 60_000;
/** The most bytes kept per player (lockstep.md: 32 MiB), measured as the sealed frames' lengths. */
export const OUTBOX_MAX_BYTES = 32 * 1024 * 1024;
/** The most unanswered pings remembered (the host keeps 8 per player; a few more cost nothing). */
const MAX_PINGS = 16;

interface Entry<M> {
  /** The counter it was sealed with; undefined: made while the player was away (never sent). */
  counter: number | undefined;
  at: number;
  bytes: number;
  /** undefined: a gap (save chunks went out here; the stream cannot be replayed across it). */
  message: M | undefined;
}

/**
 * One message written to several players at once (a broadcast: one frame, one counter), kept in each of their outboxes
 * as this one object: an outbox never changes an entry that holds a message (only its own gaps), so they may share it.
 */
export type SharedEntry<M> = Readonly<Entry<M>>;

/** Whether everything after `last` is still held, and if so what to resend. */
export type OutboxCover<M> = { covers: true; messages: M[] } | { covers: false; why: string };

export class Outbox<M> {
  private entries: Entry<M>[] = [];
  private head = 0;
  private bytes = 0;
  /** The highest counter of an entry dropped by the bounds (not acknowledged): a `last` below it cannot be caught up. */
  private lostThrough = 0;
  /** An entry made while away was dropped by the bounds: no returner can be caught up any more. */
  private lostUnsent = false;
  /** Everything up to this counter is acknowledged (Pong). */
  private ackedThrough = 0;
  /** Ping n → the counter it was sealed with. */
  private readonly pings = new Map<number, number>();

  private readonly maxAgeMs: number;
  private readonly maxBytes: number;

  constructor(maxAgeMs = OUTBOX_MAX_AGE_MS, maxBytes = OUTBOX_MAX_BYTES) {
    this.maxAgeMs = maxAgeMs;
    this.maxBytes = maxBytes;
  }

  /** A message written to the player's connection, sealed with `counter`. */
  sent(message: M, counter: number, bytes: number, now: number): void {
    this.push({ counter, at: now, bytes, message }, now);
  }

  /** The entry of a message written, sealed with `counter`, to every outbox that keeps it (see {@link keep}). */
  static entry<M>(message: M, counter: number, bytes: number, now: number): SharedEntry<M> {
    return { counter, at: now, bytes, message };
  }

  /** As {@link sent}, with an entry shared with other outboxes (one broadcast, one entry, not one per receiver). */
  keep(entry: SharedEntry<M>, now: number): void {
    this.push(entry as Entry<M>, now);
  }

  /** A message made for the player while it is away: kept for its return, never sent. */
  missed(message: M, bytes: number, now: number): void {
    this.push({ counter: undefined, at: now, bytes, message }, now);
  }

  /** Save chunks went to (or were made while away for) the player: the stream cannot be replayed across this point. */
  gap(counter: number | undefined, now: number): void {
    // One gap stands for a run of chunks: it moves up to the latest, so it is acknowledged only with the last of them.
    const last = this.head < this.entries.length ? this.entries[this.entries.length - 1] : undefined;
    if (last !== undefined && last.message === undefined && (last.counter === undefined) === (counter === undefined)) {
      last.counter = counter;
      return;
    }
    this.push({ counter, at: now, bytes: 0, message: undefined }, now);
  }

  /** Ping n went out sealed with `counter`. */
  pinged(n: number, counter: number): void {
    this.pings.set(n, counter);
    if (this.pings.size > MAX_PINGS) this.pings.delete(this.pings.keys().next().value!);
  }

  /** Pong n: everything up to Ping n's counter was read; dropped from the outbox. */
  ponged(n: number): void {
    const counter = this.pings.get(n);
    if (counter === undefined) return;
    for (const k of [...this.pings.keys()]) if (k <= n) this.pings.delete(k);
    this.acknowledge(counter);
  }

  /** A new connection numbers its pings from 1 again: the old numbers mean nothing now. */
  newConnection(): void {
    this.pings.clear();
  }

  /** Everything up to `counter` was read by the player. */
  acknowledge(counter: number): void {
    if (counter <= this.ackedThrough) return;
    this.ackedThrough = counter;
    while (this.head < this.entries.length) {
      const e = this.entries[this.head]!;
      if (e.counter === undefined || e.counter > counter) break;
      this.bytes -= e.bytes;
      this.head++;
    }
    this.compact();
  }

  /**
   * For a returner whose last read host frame is `last` (0 or undefined: none): the messages after it, in order, if
   * every one is still held and no gap lies after it; else why not.
   */
  cover(last: number | undefined, now: number): OutboxCover<M> {
    this.expire(now);
    const read = last ?? 0;
    if (this.lostUnsent) return { covers: false, why: 'what it missed while away outgrew the outbox (60 s or 32 MiB)' };
    if (this.lostThrough > read) return { covers: false, why: `frames after ${read} are no longer held` };
    if (read < this.ackedThrough) return { covers: false, why: `last ${read} is below its acknowledged ${this.ackedThrough}` };
    const messages: M[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.counter !== undefined && e.counter <= read) continue;
      if (e.message === undefined) return { covers: false, why: 'a resync save was sent since' };
      messages.push(e.message);
    }
    return { covers: true, messages };
  }

  /** The returner was given what it missed (resent with new counters): the old entries are done with. */
  clear(): void {
    this.entries = [];
    this.head = 0;
    this.bytes = 0;
    this.lostThrough = 0;
    this.lostUnsent = false;
    this.pings.clear();
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  private push(entry: Entry<M>, now: number): void {
    this.entries.push(entry);
    this.bytes += entry.bytes;
    this.expire(now);
  }

  /** Drops entries past the age or byte bound, noting what is lost. */
  private expire(now: number): void {
    while (this.head < this.entries.length) {
      const e = this.entries[this.head]!;
      if (now - e.at <= this.maxAgeMs && this.bytes <= this.maxBytes) break;
      if (e.counter === undefined) this.lostUnsent = true;
      else this.lostThrough = Math.max(this.lostThrough, e.counter);
      this.bytes -= e.bytes;
      this.head++;
    }
    this.compact();
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
