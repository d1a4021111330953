// The launcher's lines for the game lose nothing (issue "a launcher that loses nothing"): every line handed to the
// link is kept, in order, until an append of it to to_game.log succeeded. A failed append is retried with a
// growing pause (driven by the injected clock) and reported as a stalled link, with the reason; the first append
// that succeeds again writes everything kept, in order, and reports the recovery. The backlog is bounded: past the
// bound the link fails with a reason (the launcher ends the session), it never grows the process's memory.
import { Subject, type Observable } from 'rxjs';
import type { Clock } from '../../actors/ports.ts';

/** The bounds and the retry pacing of one send queue. */
export interface SendQueueLimits {
  /** Most lines kept while appends fail (default 20 000). One more fails the link. */
  maxPendingLines: number;
  /** Most bytes kept while appends fail (default 32 MiB). */
  maxPendingBytes: number;
  /** First pause after a failed append, in ms (default 50); doubled after each failure. */
  retryFirstMs: number;
  /** Longest pause between two attempts, in ms (default 2000). */
  retryMaxMs: number;
  /** While stalled, report the stall again at most this often, in ms (default 30 000). */
  stallReportMs: number;
  /** Most bytes in one append (default 1 MiB); the backlog goes out in pieces of whole batches. */
  maxWriteBytes: number;
}

export const DEFAULT_SEND_LIMITS: Readonly<SendQueueLimits> = {
  maxPendingLines: 20_000,
  maxPendingBytes: 32 * 1024 * 1024,
  retryFirstMs: 50,
  retryMaxMs: 2_000,
  stallReportMs: 30_000,
  maxWriteBytes: 1024 * 1024,
};

/** `open`: appends succeed; `stalled`: the last append failed, lines are kept and retried; `failed`: over the
 * backlog bound, nothing more is taken; `closed`: closed by its owner. */
export type LinkState = 'open' | 'stalled' | 'failed' | 'closed';

/** What the launcher shows of the link to its game (status file, window). */
export interface LinkStatus {
  state: LinkState;
  /** Lines handed to the link and not yet appended (the one being written included). */
  pendingLines: number;
  pendingBytes: number;
  /** Failed appends since the link last wrote successfully. */
  failedAttempts: number;
  /** Clock ms when the current stall began (stalled and failed only). */
  stalledSince?: number;
  /** The last append error (stalled), or why the link failed or closed with lines left. */
  reason?: string;
  /** Lines appended since the link opened. */
  writtenLines: number;
}

/** Notices of the link's health, for the launcher's log and status. */
export type LinkNotice =
  | { type: 'link.stalled'; file: string; reason: string; attempts: number; pendingLines: number; pendingBytes: number; stalledMs: number }
  | { type: 'link.recovered'; file: string; attempts: number; stalledMs: number; lines: number }
  | { type: 'link.failed'; file: string; reason: string; lostLines: number }
  | { type: 'link.closed'; file: string; reason: string; lostLines: number };

/** Why a line was not appended: the link failed (backlog over its bound) or was closed with the line still kept. */
export class LinkSendError extends Error {
  override readonly name = 'LinkSendError';
  readonly code: 'failed' | 'closed';

  constructor(code: 'failed' | 'closed', message: string) {
    super(message);
    this.code = code;
  }
}

/** The writer a send queue appends with (the line writer fits): one call = one append of complete lines. */
export interface BatchWriter {
  write(lines: string[]): Promise<void>;
}

interface Batch {
  lines: string[];
  bytes: number;
  resolve(): void;
  reject(error: Error): void;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** An ordered, bounded, retrying queue of line batches in front of one line writer. */
export class SendQueue {
  readonly notices: Observable<LinkNotice>;

  #writer: BatchWriter;
  #clock: Clock;
  #limits: SendQueueLimits;
  #file: string;
  #notices = new Subject<LinkNotice>();
  #pending: Batch[] = [];
  #pendingLines = 0;
  #pendingBytes = 0;
  #state: LinkState = 'open';
  #reason: string | undefined;
  #attempts = 0;
  #stalledSince: number | undefined;
  #lastReport = 0;
  #written = 0;
  #timer: unknown;
  #writing: Promise<void> | undefined;

  constructor(writer: BatchWriter, clock: Clock, limits: Partial<SendQueueLimits> = {}, file = 'to_game.log') {
    this.#writer = writer;
    this.#clock = clock;
    this.#limits = { ...DEFAULT_SEND_LIMITS, ...limits };
    this.#file = file;
    this.notices = this.#notices.asObservable();
  }

  /** Keeps `lines` (each ending in `\n`) and resolves once they are appended, in call order. */
  enqueue(lines: string[]): Promise<void> {
    if (this.#state === 'failed' || this.#state === 'closed') {
      return Promise.reject(new LinkSendError(this.#state, `the link to ${this.#file} is ${this.#state}: ${this.#reason ?? 'closed'}`));
    }
    if (lines.length === 0) return Promise.resolve();
    let bytes = 0;
    for (const line of lines) bytes += Buffer.byteLength(line, 'utf8');
    const { maxPendingLines, maxPendingBytes } = this.#limits;
    if (this.#pendingLines + lines.length > maxPendingLines || this.#pendingBytes + bytes > maxPendingBytes) {
      const since = this.#stalledSince === undefined ? '' : ` after ${Math.round(this.#clock.now() - this.#stalledSince)} ms of failed appends`;
      const last = this.#reason === undefined ? '' : ` (last error: ${this.#reason})`;
      this.#fail(`${this.#file} backlog over ${maxPendingLines} lines or ${maxPendingBytes} bytes${since}${last}`);
      return Promise.reject(new LinkSendError('failed', this.#reason!));
    }
    return new Promise<void>((resolve, reject) => {
      this.#pending.push({ lines, bytes, resolve, reject });
      this.#pendingLines += lines.length;
      this.#pendingBytes += bytes;
      this.#pump();
    });
  }

  status(): LinkStatus {
    const status: LinkStatus = {
      state: this.#state,
      pendingLines: this.#pendingLines,
      pendingBytes: this.#pendingBytes,
      failedAttempts: this.#attempts,
      writtenLines: this.#written,
    };
    if (this.#stalledSince !== undefined) status.stalledSince = this.#stalledSince;
    if (this.#reason !== undefined) status.reason = this.#reason;
    return status;
  }

  /**
   * Stops retrying, makes one last attempt for what is kept, then rejects what is still kept (reported as
   * `link.closed` with the number of lines lost). Later sends reject.
   */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasFailed = this.#state === 'failed';
    this.#state = 'closed';
    this.#clearTimer();
    while (this.#writing) await this.#writing;
    if (!wasFailed) {
      while (this.#pending.length > 0) {
        const ok = await this.#writeHead();
        if (!ok) break;
      }
    }
    if (this.#pending.length > 0) {
      const lost = this.#pendingLines;
      const reason = `closed with ${lost} lines not written to ${this.#file}: ${this.#reason ?? 'closed'}`;
      this.#rejectAll(new LinkSendError('closed', reason));
      this.#emit({ type: 'link.closed', file: this.#file, reason, lostLines: lost });
    }
    this.#notices.complete();
  }

  #pump(): void {
    if (this.#writing || this.#timer !== undefined || this.#state === 'failed' || this.#state === 'closed') return;
    if (this.#pending.length === 0) return;
    const run = (async () => {
      while (this.#pending.length > 0 && this.#state !== 'failed' && this.#state !== 'closed') {
        let ok: boolean;
        try {
          ok = await this.#writeHead();
        } catch (error) {
          // Not expected (#writeHead catches the writer's errors); kept lines stay kept and are retried.
          this.#noteFailure(`send queue: ${describe(error)}`);
          ok = false;
        }
        if (!ok) {
          this.#schedule();
          return;
        }
      }
    })();
    this.#writing = run.finally(() => {
      this.#writing = undefined;
    });
  }

  /** Appends the batches at the head (whole batches, up to maxWriteBytes, at least one). True when it worked. */
  async #writeHead(): Promise<boolean> {
    const take: Batch[] = [];
    let bytes = 0;
    for (const batch of this.#pending) {
      if (take.length > 0 && bytes + batch.bytes > this.#limits.maxWriteBytes) break;
      take.push(batch);
      bytes += batch.bytes;
    }
    const lines = take.length === 1 ? take[0]!.lines : take.flatMap((batch) => batch.lines);
    let failure: unknown;
    let failed = false;
    try {
      await this.#writer.write(lines);
    } catch (error) {
      failed = true;
      failure = error;
    }
    if (this.#pending[0] !== take[0]) {
      // The link failed while this append ran: its batches were already rejected and reported lost.
      if (!failed) this.#written += lines.length;
      return false;
    }
    if (failed) {
      const error = failure;
      if (error instanceof TypeError) {
        // A line that can never be written (a programming error of the sender, checked before it was kept): only
        // these batches fail; the rest goes on.
        this.#remove(take);
        for (const batch of take) batch.reject(error);
        return true;
      }
      this.#noteFailure(describe(error));
      return false;
    }
    this.#remove(take);
    this.#written += lines.length;
    if (this.#stalledSince !== undefined) {
      const stalledMs = Math.round(this.#clock.now() - this.#stalledSince);
      const attempts = this.#attempts;
      this.#stalledSince = undefined;
      this.#attempts = 0;
      this.#reason = undefined;
      if (this.#state === 'stalled') this.#state = 'open';
      this.#emit({ type: 'link.recovered', file: this.#file, attempts, stalledMs, lines: this.#pendingLines + lines.length });
    }
    for (const batch of take) batch.resolve();
    return true;
  }

  #remove(take: Batch[]): void {
    this.#pending.splice(0, take.length);
    for (const batch of take) {
      this.#pendingLines -= batch.lines.length;
      this.#pendingBytes -= batch.bytes;
    }
  }

  #noteFailure(reason: string): void {
    const now = this.#clock.now();
    this.#attempts++;
    this.#reason = reason;
    let report = false;
    if (this.#stalledSince === undefined) {
      this.#stalledSince = now;
      report = true;
    } else if (now - this.#lastReport >= this.#limits.stallReportMs) {
      report = true;
    }
    if (this.#state === 'open') this.#state = 'stalled';
    if (report) {
      this.#lastReport = now;
      this.#emit({
        type: 'link.stalled',
        file: this.#file,
        reason,
        attempts: this.#attempts,
        pendingLines: this.#pendingLines,
        pendingBytes: this.#pendingBytes,
        stalledMs: Math.round(now - this.#stalledSince),
      });
    }
  }

  /** A throwing listener must not break the queue: it is told, the queue goes on. */
  #emit(notice: LinkNotice): void {
    try {
      this.#notices.next(notice);
    } catch {
      // rxjs reports a listener's own error itself; nothing of ours to undo
    }
  }

  #schedule(): void {
    if (this.#state !== 'stalled') return;
    const { retryFirstMs, retryMaxMs } = this.#limits;
    const delay = Math.min(retryMaxMs, retryFirstMs * 2 ** Math.min(30, this.#attempts - 1));
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, delay);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #fail(reason: string): void {
    this.#state = 'failed';
    this.#reason = reason;
    this.#stalledSince ??= this.#clock.now();
    this.#clearTimer();
    const lost = this.#pendingLines;
    this.#rejectAll(new LinkSendError('failed', reason));
    this.#emit({ type: 'link.failed', file: this.#file, reason, lostLines: lost });
  }

  #rejectAll(error: LinkSendError): void {
    const batches = this.#pending.splice(0);
    this.#pendingLines = 0;
    this.#pendingBytes = 0;
    for (const batch of batches) batch.reject(error);
  }
}
