// Tails a line file by position (spec: architecture.txt §2; the session folder contract "Generation", "Writers";
// reliability-tests §7.7 D1, D6). Complete lines only, each once and in order; a file shorter than what was consumed,
// or a new file under the name, is a new generation read from byte 0. The file system is a seam (linkFs.ts): on
// disk, fs.watch on the folder wakes the reader and polling every `pollMs` is the fallback, either alone enough; in
// memory (memoryLink.ts), the writes wake it.
import { Observable, Subject, map } from 'rxjs';
import { nodeLinkFs, type LinkFileHandle, type LinkFs } from './linkFs.ts';
import type { LinePosition } from './position.ts';

export type { LinePosition } from './position.ts';

export interface LineReaderOptions {
  path: string;
  /** Where to begin (default `{ gen: 1, offset: 0 }`). An offset past the file's end means the file was replaced. */
  start?: LinePosition;
  /** Poll interval in ms (default 25) of the real file system (not used with `fs`). Polling always runs, watching or not. */
  pollMs?: number;
  /** Also wake on fs.watch events of the folder (default true; not used with `fs`). */
  watch?: boolean;
  /** Longest line accepted, without its `\n` (default 1 MiB); a longer one is skipped and reported. */
  maxLineBytes?: number;
  /** The file system read and what wakes the reader (default the real one: {@link nodeLinkFs} with pollMs, watch). */
  fs?: LinkFs;
}

/** One complete line as read, with where it was. */
export interface LineRecord {
  /** The line without `\n` (and without a `\r` before it); invalid UTF-8 is replaced by U+FFFD. */
  text: string;
  /** False when the bytes were not valid UTF-8. */
  utf8: boolean;
  gen: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Byte offset just after its `\n`: the reader's position once this line is consumed. */
  end: number;
}

/** What happened to the file besides lines. */
export type TailEvent =
  | { type: 'replaced'; gen: number; why: 'shorter' | 'new file' }
  | { type: 'skipped'; gen: number; offset: number; reason: string }
  | { type: 'error'; gen: number; offset: number; reason: string };

export interface LineTail {
  /** Each complete line's text, once, in order. */
  readonly lines: Observable<string>;
  /** The same lines with their generation and offsets. */
  readonly records: Observable<LineRecord>;
  /** Replacements, skipped over-long lines, read errors (retried at the next wake). */
  readonly events: Observable<TailEvent>;
  /** The position after the last consumed line; inside a `lines` callback, the position just after that line. */
  position(): LinePosition;
  /** Reads what is there now; resolves when the reader has caught up with the file. Starts the tail if needed. */
  readNow(): Promise<void>;
  /** Stops reading, closes the file and completes the observables. */
  close(): Promise<void>;
}

const DEFAULT_MAX_LINE = 1024 * 1024;
const MIN_CHUNK = 64 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Tails `options.path` by position and emits every complete line once, in order, as rxjs observables (hot,
 * multicast). Reading starts at the first subscription (or `readNow()`), so nothing is emitted before someone
 * listens. Survives the file and its folder not existing yet; never errors the observables.
 */
export function tailLines(options: LineReaderOptions): LineTail {
  return new FileTail(options);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lossyUtf8 = new TextDecoder('utf-8');

function decodeLine(bytes: Uint8Array): { text: string; utf8: boolean } {
  const body = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
  try {
    return { text: strictUtf8.decode(body), utf8: true };
  } catch {
    return { text: lossyUtf8.decode(body), utf8: false };
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? '';
}

class FileTail implements LineTail {
  readonly lines: Observable<string>;
  readonly records: Observable<LineRecord>;
  readonly events: Observable<TailEvent>;

  #fs: LinkFs;
  #path: string;
  #maxLine: number;
  #records = new Subject<LineRecord>();
  #events = new Subject<TailEvent>();

  #gen: number;
  #offset: number;
  #handle: LinkFileHandle | undefined;
  #ino = 0;
  #dev = 0;
  #everOpened = false;
  #skipping = false;
  #buffer: Buffer | undefined;

  #started = false;
  #closed = false;
  #unwatch: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #lastError: string | undefined;

  constructor(options: LineReaderOptions) {
    this.#fs = options.fs ?? nodeLinkFs({ pollMs: options.pollMs, watch: options.watch });
    this.#path = options.path;
    this.#maxLine = Math.max(1, options.maxLineBytes ?? DEFAULT_MAX_LINE);
    this.#gen = options.start?.gen ?? 1;
    this.#offset = options.start?.offset ?? 0;
    this.records = this.#lazy(this.#records);
    this.events = this.#lazy(this.#events);
    this.lines = this.records.pipe(map((record) => record.text));
  }

  position(): LinePosition {
    return { gen: this.#gen, offset: this.#offset };
  }

  async readNow(): Promise<void> {
    this.#start();
    this.#trigger();
    while (this.#running) await this.#running;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    this.#unwatch = undefined;
    while (this.#running) await this.#running;
    await this.#closeHandle();
    this.#records.complete();
    this.#events.complete();
  }

  #lazy<T>(subject: Subject<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      const subscription = subject.subscribe(subscriber);
      this.#start();
      return subscription;
    });
  }

  #start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    // The first look comes from the watch itself (at once on disk, on the memory folder's own schedule).
    this.#unwatch = this.#fs.watch(this.#path, () => this.#trigger());
  }

  /** Runs the reader, or asks the running one to go round once more. */
  #trigger(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#run().finally(() => {
      this.#running = undefined;
    });
  }

  async #run(): Promise<void> {
    do {
      this.#again = false;
      try {
        while (!this.#closed && (await this.#step())) {
          // keep reading while there is progress
        }
        this.#lastError = undefined;
      } catch (error) {
        // Retried at the next wake; the same failure again and again is reported once.
        const reason = (error as Error).message;
        if (reason !== this.#lastError) {
          this.#emitEvent({ type: 'error', gen: this.#gen, offset: this.#offset, reason });
        }
        this.#lastError = reason;
      }
    } while (this.#again && !this.#closed);
  }

  /** One look at the file: open it if needed, notice replacement, read what is complete. True when it moved on. */
  async #step(): Promise<boolean> {
    if (!this.#handle) {
      if (!(await this.#openFile())) return false;
    }
    const handle = this.#handle!;
    let replacedByName = false;
    try {
      const named = await this.#fs.stat(this.#path);
      replacedByName = named.ino !== this.#ino || named.dev !== this.#dev;
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      replacedByName = true;
    }
    const { size } = await handle.stat();
    if (size < this.#offset) this.#newGeneration('shorter');
    const before = this.#offset;
    await this.#readUpTo(handle, size);
    if (this.#closed) return false;
    if (replacedByName) {
      // The old file was read to its end first: lines written to it before the swap still count.
      await this.#closeHandle();
      return true;
    }
    return this.#offset !== before;
  }

  async #openFile(): Promise<boolean> {
    let handle: LinkFileHandle;
    try {
      handle = await this.#fs.open(this.#path);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
    let info: Awaited<ReturnType<LinkFileHandle['stat']>>;
    try {
      info = await handle.stat();
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (this.#closed) {
      await handle.close();
      return false;
    }
    this.#handle = handle;
    this.#ino = info.ino;
    this.#dev = info.dev;
    if (this.#everOpened) this.#newGeneration('new file');
    this.#everOpened = true;
    return true;
  }

  #newGeneration(why: 'shorter' | 'new file'): void {
    this.#gen++;
    this.#offset = 0;
    this.#skipping = false;
    this.#emitEvent({ type: 'replaced', gen: this.#gen, why });
  }

  async #closeHandle(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  /** Consumes the complete lines between the position and `size`; an incomplete tail is left for later. */
  async #readUpTo(handle: LinkFileHandle, size: number): Promise<void> {
    // A chunk one byte longer than the longest line: a chunk with no `\n` at all then proves a line too long.
    const buffer = (this.#buffer ??= Buffer.allocUnsafe(Math.max(MIN_CHUNK, this.#maxLine + 1)));
    const gen = this.#gen;
    while (this.#offset < size && !this.#closed && this.#gen === gen) {
      const base = this.#offset;
      const want = Math.min(size - base, buffer.length);
      const { bytesRead } = await handle.read(buffer, 0, want, base);
      if (bytesRead === 0 || this.#closed || this.#gen !== gen || this.#offset !== base) return;
      const chunk = buffer.subarray(0, bytesRead);
      if (this.#skipping) {
        const at = chunk.indexOf(NEWLINE);
        this.#offset = base + (at < 0 ? bytesRead : at + 1);
        if (at >= 0) this.#skipping = false;
        continue;
      }
      const last = chunk.lastIndexOf(NEWLINE);
      if (last < 0) {
        if (bytesRead <= this.#maxLine) return; // an incomplete line: wait for its `\n`
        this.#emitEvent({ type: 'skipped', gen, offset: base, reason: this.#tooLong() });
        this.#skipping = true;
        this.#offset = base + bytesRead;
        continue;
      }
      let from = 0;
      while (from <= last) {
        const at = chunk.indexOf(NEWLINE, from);
        this.#offset = base + at + 1;
        if (at - from > this.#maxLine) {
          this.#emitEvent({ type: 'skipped', gen, offset: base + from, reason: this.#tooLong() });
        } else {
          const { text, utf8 } = decodeLine(chunk.subarray(from, at));
          this.#records.next({ text, utf8, gen, offset: base + from, end: base + at + 1 });
        }
        if (this.#closed || this.#gen !== gen || this.#offset !== base + at + 1) return;
        from = at + 1;
      }
    }
  }

  #tooLong(): string {
    return `line longer than ${this.#maxLine} bytes`;
  }

  #emitEvent(event: TailEvent): void {
    this.#events.next(event);
  }
}
