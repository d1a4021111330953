// What a player sent that the host has not acknowledged yet (lockstep.md "Catching up"): each message with the
// counter it was sealed with, let go of when a Ping's `ack` covers it, and resent — sealed anew, never the old
// frame — after a resumed Welcome for every counter above its `catchUp`. Bounded like the host's outbox (60 s of
// sending and 32 MiB); what falls out is counted, so a resume that could not resend everything is logged as such.
import { OUTBOX_MAX_AGE_MS, OUTBOX_MAX_BYTES } from '../host/outbox.ts';

interface Entry<M> {
  counter: number;
  at: number;
  bytes: number;
  message: M;
}

export class Unacked<M> {
  private entries: Entry<M>[] = [];
  private bytes = 0;
  /** Messages dropped by the bounds before the host acknowledged them. */
  lost = 0;

  /** A message just sealed with `counter` and written. */
  sent(message: M, counter: number, bytes: number, now: number): void {
    this.entries.push({ counter, at: now, bytes, message });
    this.bytes += bytes;
    let drop = 0;
    while (drop < this.entries.length && (now - this.entries[drop]!.at > OUTBOX_MAX_AGE_MS || this.bytes > OUTBOX_MAX_BYTES)) {
      this.bytes -= this.entries[drop]!.bytes;
      drop++;
    }
    if (drop > 0) {
      this.lost += drop;
      this.entries = this.entries.slice(drop);
    }
  }

  /** The host read everything up to `counter` (Ping.ack, Welcome.catchUp). */
  acknowledge(counter: number): void {
    let drop = 0;
    while (drop < this.entries.length && this.entries[drop]!.counter <= counter) {
      this.bytes -= this.entries[drop]!.bytes;
      drop++;
    }
    if (drop > 0) this.entries = drop === this.entries.length ? [] : this.entries.slice(drop);
  }

  /** Takes every message above `counter`, in order (a resumed Welcome's catchUp); the list is empty after. */
  takeAfter(counter: number): M[] {
    this.acknowledge(counter);
    const messages = this.entries.map((e) => e.message);
    this.clear();
    return messages;
  }

  clear(): void {
    this.entries = [];
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.length;
  }
}
