// The trace recorder (DESIGN.md "Actors": every actor of a launcher is created with its one `inspect` observer,
// and this writes those events to `trace.jsonl` in the session folder, which the inspector replays and bug reports
// carry). The line format is inspect/traceFormat.ts, the encoder inspect/traceEncoder.ts; this file is the I/O: a bounded queue, asynchronous
// appends (one at a time, so order is kept and the event loop never waits on the disk), rotation by size to
// trace.1.jsonl … trace.<files-1>.jsonl, and a write failure logged once that never throws.
import { appendFileSync, mkdirSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { TRACE_FORMAT, TRACE_VERSION, type TraceFileLine } from '../../inspect/traceFormat.ts';
import { TraceEncoder, type EncoderOptions } from '../../inspect/traceEncoder.ts';

export interface TraceRecorderOptions extends EncoderOptions {
  /** The session folder. Created if missing. */
  dir: string;
  /** The launcher's clock: the one its actors schedule with (`t` of each line, `due` of a delayed event). */
  clock: Pick<Clock, 'now'>;
  log: LogFn;
  /** The size at which trace.jsonl is rotated. 16 MiB. */
  maxBytes?: number;
  /** How many files are kept: trace.jsonl plus trace.1.jsonl … (the oldest dropped). 3. */
  files?: number;
  /** Lines waiting for the disk, bytes; past it lines are dropped and counted (@trace.dropped). 4 MiB. */
  maxQueueBytes?: number;
  /** The current file's name; rotated names insert `.1`, `.2` … before the extension. `trace.jsonl`. */
  fileName?: string;
  /** Wall clock (ms since 1970) written in each file's first line, to line `t` up with launcher.log. */
  wallClock?: () => number;
  /** Which inspection events to record (all by default). */
  filter?: (event: InspectionEvent) => boolean;
}

export interface TraceStats {
  /** Lines written to disk. */
  lines: number;
  /** Bytes written to disk (all files). */
  bytes: number;
  /** Lines waiting (queued and being written). */
  pending: number;
  /** Lines dropped because the queue was full, plus inspection events arriving after a write failure or close. */
  dropped: number;
  /** Inspection events that could not be turned into a line (a bug of ours; counted, never thrown). */
  errors: number;
  /** Lines with a value cut to fit. */
  truncated: number;
  /** Snapshots skipped as unchanged. */
  unchanged: number;
  /** Actions seen (written only with `actions: true`). */
  actions: number;
  /** Rotations done. */
  rotations: number;
  /** A write failed: recording stopped (logged once). */
  failed: boolean;
  /** The current file. */
  file: string;
}

export interface TraceRecorder {
  /** The observer every root actor of the launcher gets: `createActor(machine, { inspect: recorder.inspect })`. */
  readonly inspect: (event: InspectionEvent) => void;
  /** Resolves when every line recorded so far is on disk (or recording failed). Never rejects. */
  flush(): Promise<void>;
  /**
   * The last resort before `process.exit` (the fatal handler): appends the queued lines synchronously. Lines of a
   * write already under way may land after these, or be lost with the process. Never throws.
   */
  flushSync(): void;
  /** Flushes and closes the file; later events are dropped. Never rejects. Idempotent. */
  close(): Promise<void>;
  stats(): TraceStats;
}

const MiB = 1024 * 1024;

export function createTraceRecorder(options: TraceRecorderOptions): TraceRecorder {
  const { dir, clock, log, filter, wallClock } = options;
  const maxBytes = Math.max(1, options.maxBytes ?? 16 * MiB);
  const files = Math.max(1, Math.floor(options.files ?? 3));
  const maxQueueBytes = options.maxQueueBytes ?? 4 * MiB;
  const fileName = options.fileName ?? 'trace.jsonl';
  const dot = fileName.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
  const pathOf = (n: number) => join(dir, n === 0 ? fileName : `${stem}.${n}${ext}`);
  const current = pathOf(0);
  const encoder = new TraceEncoder(options);

  let queue: string[] = [];
  let queuedBytes = 0;
  let inFlight = 0;
  let droppedSinceLast = 0;
  let writing: Promise<void> | undefined;
  let kicked = false;
  let closed = false;
  let failed = false;
  let handle: FileHandle | undefined;
  let size = 0;
  let seq = 0;
  const stats = { lines: 0, bytes: 0, dropped: 0, errors: 0, rotations: 0 };

  function enqueue(line: string): void {
    // String length as the byte measure: cheap, and within 3× of the UTF-8 size, which is all a bound needs.
    if (queuedBytes + line.length > maxQueueBytes) {
      stats.dropped++;
      droppedSinceLast++;
      return;
    }
    if (droppedSinceLast > 0) {
      const note = encoder.dropped(droppedSinceLast, clock.now());
      droppedSinceLast = 0;
      queue.push(note);
      queuedBytes += note.length;
    }
    queue.push(line);
    queuedBytes += line.length;
    if (!kicked && !writing) {
      kicked = true;
      // One write per burst: the events of one synchronous step go out together.
      setImmediate(start);
    }
  }

  function inspect(event: InspectionEvent): void {
    if (closed || failed) {
      stats.dropped++;
      return;
    }
    try {
      if (filter && !filter(event)) return;
      const now = clock.now();
      const line = encoder.encode(event, now);
      if (line !== undefined) enqueue(line);
      const counts = encoder.counts(now);
      if (counts !== undefined) enqueue(counts);
    } catch {
      stats.errors++;
    }
  }

  function start(): void {
    kicked = false;
    if (writing || failed || queue.length === 0) return;
    writing = drain().finally(() => {
      writing = undefined;
      if (queue.length > 0 && !failed) start();
    });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0 && !failed) {
      const batch = queue;
      queue = [];
      queuedBytes = 0;
      inFlight = batch.length;
      try {
        await writeBatch(batch);
      } catch (err) {
        fail(err);
      } finally {
        inFlight = 0;
      }
    }
  }

  async function writeBatch(batch: string[]): Promise<void> {
    if (!handle) await openCurrent();
    let chunk = '';
    let chunkBytes = 0;
    let chunkLines = 0;
    for (const line of batch) {
      const bytes = Buffer.byteLength(line) + 1;
      // Rotate before a line that would pass maxBytes, unless the file holds nothing but its header yet (a line
      // longer than maxBytes still gets written, alone).
      if (size + chunkBytes + bytes > maxBytes && !(onlyHeader && chunkLines === 0)) {
        await append(chunk, chunkBytes, chunkLines);
        chunk = '';
        chunkBytes = 0;
        chunkLines = 0;
        await rotate();
      }
      chunk += `${line}\n`;
      chunkBytes += bytes;
      chunkLines++;
    }
    await append(chunk, chunkBytes, chunkLines);
  }

  /** The current file holds only the header this recorder wrote (rotating it would gain nothing). */
  let onlyHeader = false;

  async function append(text: string, bytes: number, lines: number): Promise<void> {
    if (lines === 0) return;
    await handle!.appendFile(text);
    onlyHeader = false;
    size += bytes;
    stats.bytes += bytes;
    stats.lines += lines;
  }

  async function openCurrent(): Promise<void> {
    await mkdir(dir, { recursive: true });
    handle = await open(current, 'a');
    size = (await handle.stat()).size;
    const text = `${headerText()}\n`;
    const bytes = Buffer.byteLength(text);
    await handle.appendFile(text);
    onlyHeader = size === 0;
    size += bytes;
    stats.bytes += bytes;
  }

  /** The first line of each file: the format, its place in the rotation, and a clock/wall-clock pair. */
  function headerText(): string {
    const header: TraceFileLine = { t: round(clock.now()), type: '@trace.file', format: TRACE_FORMAT, version: TRACE_VERSION, seq: seq++ };
    if (wallClock) header.wall = Math.round(wallClock());
    return JSON.stringify(header);
  }

  async function rotate(): Promise<void> {
    const old = handle;
    handle = undefined;
    await old?.close();
    if (files === 1) {
      await rm(current, { force: true });
    } else {
      await rm(pathOf(files - 1), { force: true });
      for (let n = files - 2; n >= 1; n--) await renameIfThere(pathOf(n), pathOf(n + 1));
      await rename(current, pathOf(1));
    }
    stats.rotations++;
    await openCurrent();
  }

  function fail(err: unknown): void {
    if (failed) return;
    failed = true;
    stats.dropped += queue.length + inFlight;
    queue = [];
    queuedBytes = 0;
    const e = err as NodeJS.ErrnoException;
    try {
      log({ msg: 'trace write failed', level: 'warn', file: current, code: e?.code, error: e?.message ?? String(err) });
    } catch {
      // the log is gone too: the session goes on without a trace
    }
    const old = handle;
    handle = undefined;
    old?.close().catch(() => {});
  }

  /** The hot events counted so far go out as one `@trace.counts` line (before a flush or the close). */
  function countsNow(): void {
    if (closed || failed) return;
    const counts = encoder.counts(clock.now(), true);
    if (counts !== undefined) enqueue(counts);
  }

  async function flush(): Promise<void> {
    countsNow();
    while (!failed && (writing || queue.length > 0)) {
      if (!writing) start();
      await writing;
    }
  }

  function flushSync(): void {
    countsNow();
    if (failed || queue.length === 0) return;
    const batch = queue;
    queue = [];
    queuedBytes = 0;
    try {
      let text = `${batch.join('\n')}\n`;
      if (seq === 0) text = `${headerText()}\n${text}`;
      mkdirSync(dir, { recursive: true });
      appendFileSync(current, text);
      const bytes = Buffer.byteLength(text);
      size += bytes;
      stats.bytes += bytes;
      stats.lines += batch.length;
    } catch (err) {
      stats.dropped += batch.length;
      fail(err);
    }
  }

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closing ??= (async () => {
      await flush();
      closed = true;
      const old = handle;
      handle = undefined;
      await old?.close().catch(() => {});
    })();
    return closing;
  }

  return {
    inspect,
    flush,
    flushSync,
    close,
    stats: () => ({
      ...stats,
      pending: queue.length + inFlight,
      truncated: encoder.stats.truncated,
      unchanged: encoder.stats.unchanged,
      actions: encoder.stats.actions,
      failed,
      file: current,
    }),
  };
}

async function renameIfThere(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
