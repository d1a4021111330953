// The in-memory network's one timer: events at clock times, run in (time, sequence) order on the injected clock,
// so a run is a function of the seed, the clock's steps and the calls made (adapters/transport/memorySocket.ts).
import type { Clock, LogFn } from '../../actors/ports.ts';

interface ScheduledEvent {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * Events at clock times, run in (time, sequence) order through one timer on the clock. An event due now runs when
 * the timer fires (on a SimulatedClock: at the next increment, even `increment(0)`), never inside the call that
 * scheduled it.
 */
export class EventQueue {
  #clock: Clock;
  #log: LogFn;
  #heap: ScheduledEvent[] = [];
  #seq = 0;
  #timer: unknown;
  #armedAt: number | undefined;
  #running = false;

  constructor(clock: Clock, log: LogFn) {
    this.#clock = clock;
    this.#log = log;
  }

  /** Events not yet run. */
  get size(): number {
    return this.#heap.length;
  }

  /** When the next event is due (undefined: none). */
  nextAt(): number | undefined {
    return this.#heap[0]?.at;
  }

  at(time: number, run: () => void): void {
    this.#push({ at: Math.max(time, this.#clock.now()), seq: this.#seq++, run });
    if (!this.#running) this.#arm();
  }

  #arm(): void {
    const next = this.#heap[0]?.at;
    if (next === this.#armedAt) return;
    if (this.#armedAt !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#armedAt = next;
    if (next === undefined) return;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), Math.max(0, next - this.#clock.now()));
  }

  #fire(): void {
    this.#armedAt = undefined;
    this.#running = true;
    try {
      const now = this.#clock.now();
      while (this.#heap.length > 0 && this.#heap[0]!.at <= now) {
        const event = this.#pop();
        try {
          event.run();
        } catch (error) {
          this.#log({ msg: 'handler failed', handler: 'memory network', error: String(error) });
        }
      }
    } finally {
      this.#running = false;
      this.#arm();
    }
  }

  #less(a: ScheduledEvent, b: ScheduledEvent): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(event: ScheduledEvent): void {
    const heap = this.#heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): ScheduledEvent {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.#less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && this.#less(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}
