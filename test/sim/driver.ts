// Moves the simulator's one clock (issue 9 item 1): from one due timer to the next (the network's deliveries, the
// sessions' and machines' timers, the games' frames all live on it), letting the promise continuations each step
// starts run before the next. Work that is asynchronous without being timed (a Lua state being made, a link being
// opened) is `blocking`: the clock waits for it, so how long it takes in real time never shows in a run. Real file
// work started by the sessions (a resync save hashed, streamed, received, spooled) holds the clock too: a step waits
// until no file request of this process is pending (fileWorkPending), so a save's chunks leave at the same clock time
// on every run of a seed, however fast the disk is.
import type { ManualClock } from '../../adapters/clock.ts';
import { settle } from '../../adapters/transport/memoryDriver.ts';

interface TimeoutEntry {
  start: number;
  timeout: number;
}

/** Node's handles of file requests in flight (fs callbacks, fs.promises, a FileHandle's close). */
const FILE_REQUESTS = new Set(['FSReqCallback', 'FSReqPromise', 'CloseReq', 'FileHandleCloseReq']);

/** Some file request of this process has not completed yet (a read, a write, an open, a close). */
export function fileWorkPending(): boolean {
  return process.getActiveResourcesInfo().some((r) => FILE_REQUESTS.has(r));
}

export class SimDriver {
  readonly clock: ManualClock;
  private busy = 0;
  private waiters: { probe: () => boolean; deadline: number; resolve: (ok: boolean) => void }[] = [];
  /** Steps taken (for the speed figures). */
  steps = 0;

  constructor(clock: ManualClock) {
    this.clock = clock;
  }

  /** The clock waits for `work` (untimed asynchronous work: it must not race the clock). */
  async blocking<T>(work: () => Promise<T>): Promise<T> {
    this.busy += 1;
    try {
      return await work();
    } finally {
      this.busy -= 1;
    }
  }

  /**
   * Resolves true once `probe` holds, false once `maxMs` of clock time passed: for work that waits on the session
   * (a join) while the one loop of runUntil/runFor moves the clock. Checked after every step.
   */
  until(probe: () => boolean, maxMs: number): Promise<boolean> {
    if (probe()) return Promise.resolve(true);
    return new Promise((resolve) => this.waiters.push({ probe, deadline: this.clock.now() + maxMs, resolve }));
  }

  private checkWaiters(): void {
    if (this.waiters.length === 0) return;
    const now = this.clock.now();
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.probe()) w.resolve(true);
      else if (now >= w.deadline) w.resolve(false);
      else keep.push(w);
    }
    this.waiters = keep;
  }

  /** When the next timer of the clock is due (undefined: none). */
  private nextDue(): number | undefined {
    const timeouts = (this.clock as unknown as { timeouts: Map<number, TimeoutEntry> }).timeouts;
    let next: number | undefined;
    for (const t of timeouts.values()) {
      const due = t.start + t.timeout;
      if (next === undefined || due < next) next = due;
    }
    return next;
  }

  private async quiet(): Promise<void> {
    await settle();
    // bounded: a file request that never ends (it cannot, here) would otherwise hold the run forever
    for (let turns = 0; this.busy > 0 || (fileWorkPending() && turns < 100_000); turns++) await settle();
  }

  /** One step: to the next due timer, at most to `limit`. */
  async step(limit: number): Promise<void> {
    await this.quiet();
    const now = this.clock.now();
    const due = this.nextDue();
    let next = due === undefined ? limit : Math.min(limit, Math.max(now, due));
    for (const w of this.waiters) next = Math.min(next, Math.max(now, w.deadline));
    this.steps += 1;
    if (next <= now) this.clock.increment(0);
    else this.clock.set(next);
    await this.quiet();
    this.checkWaiters();
    await this.quiet();
  }

  /** Runs until `probe` holds (returns true) or `maxMs` of clock time passed (returns false). */
  async runUntil(probe: () => boolean, maxMs: number): Promise<boolean> {
    const end = this.clock.now() + maxMs;
    await this.quiet();
    for (;;) {
      if (probe()) return true;
      if (this.clock.now() >= end) return false;
      const before = this.clock.now();
      await this.step(end);
      // a timer due now that keeps re-arming itself at now would spin: time moves at least 1 ms then
      if (this.clock.now() === before && this.nextDue() !== undefined && this.nextDue()! <= before) this.clock.increment(1);
    }
  }

  /** Runs `ms` of clock time. */
  async runFor(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    await this.runUntil(() => this.clock.now() >= end, ms + 1);
  }
}
