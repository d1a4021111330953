// The file link over an in-memory session folder (DESIGN.md "Actors": the same sessions run over the simulator's
// in-memory network and folder; docs/FILE_LINK.md): openMemoryGameLink is the launcher's GameLink, with the same
// line format, generations, positions, replacement rules, send queue and notices as openGameLink, over a MemoryFs;
// tailMemoryLines is lineReader's tail over it; openMemoryGameEnd is the game's end (what the mod does with files),
// so a simulated game can talk to a launcher with no files at all.
//
// Reused as they are: openLineWriter (through the AppendFs and AtomicFs seams), replaceFile, the control files'
// writers and parsers, SendQueue, the link line format. Re-done here, because their file access is not behind a
// seam: the tail (fs.watch + polling → the MemoryFs's change events), reading identity.txt and the end of
// from_game.log's complete lines.
//
// Timing: the reader wakes on a change of its file, on a microtask by default (no clock involved), or
// `readDelayMs` later on the injected clock (a poll interval a simulator can model). Retries of failed appends run
// on the injected clock, as on files. Nothing reads the real clock unless no clock is given.
import { Observable, Subject, concat, filter, from, map, merge, share } from 'rxjs';
import type { Clock } from '../../actors/ports.ts';
import { realClock } from '../clock.ts';
import type { AtomicFs } from './atomicFile.ts';
import {
  identityProblem,
  parseIdentity,
  parseKeyValues,
  removeStaleControlTmpFiles,
  writeIdentity,
  writeResyncCursor,
  type Identity,
} from './controlFiles.ts';
import { GameLinkOpenError, type GameLink, type LinkProblem } from './gameLink.ts';
import type { LineRecord, LineTail, TailEvent } from './lineReader.ts';
import { openLineWriter, type AppendFs, type LineWriter } from './lineWriter.ts';
import { formatLinkLine, parseLinkLine, type LinkLine, type ParsedLine } from './linkLine.ts';
import type { MemoryFs, MemoryInode } from './memoryFs.ts';
import { parsePosition, type LinePosition } from './position.ts';
import { SendQueue, type SendQueueLimits } from './sendQueue.ts';
import { SessionFile, sessionPaths } from './sessionFolder.ts';

// ---- the tail ----------------------------------------------------------------------------------------------

export interface MemoryTailOptions {
  path: string;
  /** Where to begin (default `{ gen: 1, offset: 0 }`); an offset past the end means the file was replaced. */
  start?: LinePosition;
  /** Longest line accepted, without its `\n` (default 1 MiB); a longer one is skipped and reported. */
  maxLineBytes?: number;
  /** With readDelayMs: the clock the reader's wake-up waits on. */
  clock?: Clock;
  /** A change is read this long after it happened (default 0: on a microtask). Needs `clock`. */
  readDelayMs?: number;
}

const DEFAULT_MAX_LINE = 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;
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

/**
 * Tails a line file of a MemoryFs by position, as tailLines does on disk: complete lines only, each once and in
 * order; a file shorter than what was consumed, or a new inode under the name (after the old one was read to its
 * end), is a new generation read from byte 0; a missing file is waited for; over-long lines are skipped and
 * reported. Reading starts at the first subscription (or readNow()).
 */
export function tailMemoryLines(fs: MemoryFs, options: MemoryTailOptions): LineTail {
  return new MemoryTail(fs, options);
}

class MemoryTail implements LineTail {
  readonly lines: Observable<string>;
  readonly records: Observable<LineRecord>;
  readonly events: Observable<TailEvent>;
  #fs: MemoryFs;
  #path: string;
  #maxLine: number;
  #clock: Clock | undefined;
  #delay: number;
  #records = new Subject<LineRecord>();
  #events = new Subject<TailEvent>();
  #gen: number;
  #offset: number;
  #inode: MemoryInode | undefined;
  #everOpened = false;
  #skipping = false;
  #started = false;
  #closed = false;
  #running = false;
  #again = false;
  #wakeDue = false;
  #timer: unknown;
  #unwatch: (() => void) | undefined;

  constructor(fs: MemoryFs, options: MemoryTailOptions) {
    this.#fs = fs;
    this.#path = options.path;
    this.#maxLine = Math.max(1, options.maxLineBytes ?? DEFAULT_MAX_LINE);
    this.#clock = options.clock;
    this.#delay = options.readDelayMs ?? 0;
    if (this.#delay > 0 && this.#clock === undefined) throw new TypeError('readDelayMs needs a clock');
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
    this.#run();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    if (this.#wakeDue && this.#clock !== undefined && this.#delay > 0) this.#clock.clearTimeout(this.#timer);
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
    const watched = this.#path;
    this.#unwatch = this.#fs.watch((path) => {
      if (path === watched || this.#fs.inode(watched) === undefined || this.#fs.inode(path) === this.#inode) this.#wake();
    });
    this.#wake();
  }

  #wake(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#wakeDue) return;
    this.#wakeDue = true;
    const run = (): void => {
      this.#wakeDue = false;
      this.#run();
    };
    if (this.#delay > 0) this.#timer = this.#clock!.setTimeout(run, this.#delay);
    else queueMicrotask(run);
  }

  #run(): void {
    if (this.#closed || this.#running) return;
    this.#running = true;
    try {
      do {
        this.#again = false;
        while (!this.#closed && this.#step()) {
          // keep reading while there is progress
        }
      } while (this.#again && !this.#closed);
    } finally {
      this.#running = false;
    }
  }

  /** One look at the file: open it if needed, notice replacement, read what is complete. True when it moved on. */
  #step(): boolean {
    if (this.#inode === undefined) {
      const inode = this.#fs.inode(this.#path);
      if (inode === undefined) return false;
      this.#inode = inode;
      if (this.#everOpened) this.#newGeneration('new file');
      this.#everOpened = true;
    }
    const inode = this.#inode;
    const replacedByName = this.#fs.inode(this.#path) !== inode;
    const size = inode.size;
    if (size < this.#offset) this.#newGeneration('shorter');
    const before = this.#offset;
    this.#readUpTo(inode, size);
    if (this.#closed) return false;
    if (replacedByName) {
      // The old file was read to its end first: lines written to it before the swap still count.
      this.#inode = undefined;
      return true;
    }
    return this.#offset !== before;
  }

  #newGeneration(why: 'shorter' | 'new file'): void {
    this.#gen++;
    this.#offset = 0;
    this.#skipping = false;
    this.#events.next({ type: 'replaced', gen: this.#gen, why });
  }

  #readUpTo(inode: MemoryInode, size: number): void {
    const gen = this.#gen;
    while (this.#offset < size && !this.#closed && this.#gen === gen) {
      const bytes = inode.bytes;
      const base = this.#offset;
      const at = bytes.subarray(0, size).indexOf(NEWLINE, base);
      if (this.#skipping) {
        this.#offset = at < 0 ? size : at + 1;
        if (at >= 0) this.#skipping = false;
        continue;
      }
      if (at < 0) {
        if (size - base <= this.#maxLine) return; // an incomplete line: wait for its `\n`
        this.#events.next({ type: 'skipped', gen, offset: base, reason: this.#tooLong() });
        this.#skipping = true;
        this.#offset = size;
        continue;
      }
      this.#offset = at + 1;
      if (at - base > this.#maxLine) {
        this.#events.next({ type: 'skipped', gen, offset: base, reason: this.#tooLong() });
      } else {
        const { text, utf8 } = decodeLine(bytes.slice(base, at));
        this.#records.next({ text, utf8, gen, offset: base, end: at + 1 });
      }
    }
  }

  #tooLong(): string {
    return `line longer than ${this.#maxLine} bytes`;
  }
}

/** Where the complete lines of a file end: just after its last `\n` (0 when missing or without one). */
export function memoryCompleteLinesEnd(fs: MemoryFs, path: string): number {
  const inode = fs.inode(path);
  if (inode === undefined) {
    if (fs.stat(path)?.kind === 'dir') throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' });
    return 0;
  }
  return inode.bytes.subarray(0, inode.size).lastIndexOf(NEWLINE) + 1;
}

/** identity.txt's recorded to_game.log generation (0 when none), as controlFiles' readRecordedGen on disk. */
export function memoryRecordedGen(fs: MemoryFs, dir: string): { gen: number; problem?: string } {
  let text: string | undefined;
  try {
    text = fs.readText(sessionPaths(dir).identity);
  } catch (error) {
    return { gen: 0, problem: `identity.txt unreadable: ${(error as Error).message}` };
  }
  if (text === undefined) return { gen: 0 };
  const start = parsePosition(parseKeyValues(text).get('start') ?? '');
  return start.ok ? { gen: start.position.gen } : { gen: 0, problem: `identity.txt: bad start=: ${start.reason}` };
}

// ---- the launcher's end ------------------------------------------------------------------------------------

export interface MemoryGameLinkOptions {
  /** Where to begin reading from_game.log (default `'end'`: after its last complete line), as GameLinkOptions. */
  fromGame?: 'end' | 'start' | LinePosition;
  /** Longest from_game.log line accepted (default 1 MiB). */
  maxLineBytes?: number;
  /** The clock of the append retries and of `readDelayMs` (default the real one). */
  clock?: Clock;
  /** from_game.log changes are read this long after they happen (default 0: on a microtask). */
  readDelayMs?: number;
  /** The backlog's bounds and the retry pacing (sendQueue.ts DEFAULT_SEND_LIMITS). */
  sendLimits?: Partial<SendQueueLimits>;
  /** to_game.log's appends (default the MemoryFs itself; tests wrap it to fail appends). */
  appendFs?: AppendFs;
  /** The replacements of to_game.log, identity.txt, resync_cursor.txt (default the MemoryFs itself). */
  atomicFs?: AtomicFs;
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[\r\n]+/g, ' ');
}

async function step<T>(dir: string, what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new GameLinkOpenError(dir, what, error);
  }
}

/**
 * Opens the launcher's end of the in-memory session folder `dir` of `fs`, exactly as openGameLink does on disk:
 * creates the folder, removes stale temporary files, replaces to_game.log by an empty file of generation N + 1 (N
 * from identity.txt `start=`), then writes identity.txt with `start=<N+1>:0`; a step that fails rejects with a
 * GameLinkOpenError naming it.
 */
export async function openMemoryGameLink(
  fs: MemoryFs,
  dir: string,
  identity: { name: string; id: number; role: 'host' | 'player' },
  options: MemoryGameLinkOptions = {},
): Promise<GameLink> {
  const problem = identityProblem({ ...identity, start: { gen: 1, offset: 0 } });
  if (problem !== undefined) throw new TypeError(`identity: ${problem}`);
  const atomicFs = options.atomicFs ?? fs;
  const appendFs = options.appendFs ?? fs;
  const paths = sessionPaths(dir);
  await step(dir, 'create the folder', () => fs.mkdir(dir));
  await step(dir, 'remove stale temporary files', () => removeStaleControlTmpFiles(dir, { fs: atomicFs }));
  const recorded = await step(dir, 'read identity.txt', () => memoryRecordedGen(fs, dir));
  const startProblems: LinkProblem[] = [];
  if (recorded.problem !== undefined) {
    startProblems.push({ file: SessionFile.identity, offset: 0, reason: `${recorded.problem}; generation restarts at 1` });
  }
  const gen = recorded.gen + 1;
  const start = options.fromGame ?? 'end';
  const fromStart: LinePosition = await step(dir, 'read from_game.log', () =>
    start === 'start' ? { gen: 1, offset: 0 } : start === 'end' ? { gen: 1, offset: memoryCompleteLinesEnd(fs, paths.fromGame) } : start,
  );
  const writer: LineWriter = await step(dir, 'replace to_game.log', () =>
    openLineWriter(paths.toGame, { replace: true, appendFs, fs: atomicFs }),
  );
  const written: Identity = { ...identity, start: { gen, offset: 0 } };
  try {
    await writeIdentity(dir, written, { fs: atomicFs });
  } catch (error) {
    await writer.close().catch(() => undefined);
    throw new GameLinkOpenError(dir, 'write identity.txt', error);
  }
  const clock = options.clock ?? realClock;
  const queue = new SendQueue(writer, clock, options.sendLimits ?? {}, SessionFile.toGame);
  const tail = tailMemoryLines(fs, {
    path: paths.fromGame,
    start: fromStart,
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    ...(options.readDelayMs ? { readDelayMs: options.readDelayMs, clock } : {}),
  });
  const parsed = tail.records.pipe(
    map((record) => ({ record, result: safeParseRecord(record) })),
    share(),
  );
  const fromGame = parsed.pipe(
    filter((item) => item.result.ok),
    map((item) => (item.result as { ok: true; line: LinkLine }).line),
  );
  const badLines = parsed.pipe(
    filter((item) => !item.result.ok),
    map((item): LinkProblem => ({
      file: SessionFile.fromGame,
      offset: item.record.offset,
      reason: (item.result as { ok: false; reason: string }).reason,
    })),
  );
  const problems = concat(from(startProblems), merge(badLines, tail.events.pipe(map(tailEventProblem))));

  let closed = false;
  return {
    dir,
    identity: written,
    send: (kind, payload) => sendLines(queue, [{ kind, payload }]),
    sendBatch: (lines) => sendLines(queue, lines),
    status: () => queue.status(),
    notices: queue.notices,
    fromGame,
    problems,
    toGamePosition: () => ({ gen, offset: writer.size }),
    fromGamePosition: () => tail.position(),
    writeResyncCursor: (position) => writeResyncCursor(dir, position, { fs: atomicFs }),
    async close() {
      if (closed) return;
      closed = true;
      await tail.close();
      await queue.close();
      await writer.close();
    },
  };
}

function sendLines(queue: SendQueue, lines: readonly LinkLine[]): Promise<void> {
  let text: string[];
  try {
    text = lines.map((line) => formatLinkLine(line.kind, line.payload));
  } catch (error) {
    return Promise.reject(error);
  }
  return queue.enqueue(text);
}

function safeParseRecord(record: LineRecord): ParsedLine {
  try {
    if (!record.utf8) return { ok: false, reason: 'invalid UTF-8' };
    return parseLinkLine(record.text);
  } catch (error) {
    return { ok: false, reason: `line not parsed: ${oneLine(error)}` };
  }
}

function tailEventProblem(event: TailEvent): LinkProblem {
  switch (event.type) {
    case 'replaced':
      return { file: SessionFile.fromGame, offset: 0, reason: `file replaced (${event.why}): reading generation ${event.gen} from byte 0` };
    case 'skipped':
    case 'error':
      return { file: SessionFile.fromGame, offset: event.offset, reason: event.reason };
  }
}

// ---- the game's end ----------------------------------------------------------------------------------------

export interface MemoryGameEnd {
  /** identity.txt as the launcher last wrote it (undefined: none yet, or unreadable). */
  identity(): Identity | undefined;
  /** to_game.log's lines from identity's `start=` on (following new generations), parsed; bad lines skipped. */
  readonly toGame: Observable<LinkLine>;
  /** Lines of to_game.log that did not parse, replacements, skipped lines. */
  readonly problems: Observable<LinkProblem>;
  /** Appends one line to from_game.log (one write). Throws TypeError for what cannot be a line. */
  send(kind: string, payload: unknown): void;
  /** Appends several lines in one write. */
  sendBatch(lines: readonly LinkLine[]): void;
  /** Appends raw text (a torn or malformed line, for tests). */
  appendRaw(text: string | Uint8Array): void;
  /** The position in to_game.log after the last line read (what the mod keeps for resync_cursor.txt). */
  toGamePosition(): LinePosition;
  close(): Promise<void>;
}

export interface MemoryGameEndOptions {
  /** Where to start reading to_game.log (default identity.txt's `start=`, else generation 1 byte 0). */
  start?: LinePosition;
  clock?: Clock;
  /** to_game.log changes are read this long after they happen (default 0: on a microtask). Needs `clock`. */
  readDelayMs?: number;
}

/**
 * The game's end of an in-memory session folder (what the mod's link does with files): reads to_game.log from the
 * position identity.txt names, appends its own lines to from_game.log. Open it after the launcher's link.
 */
export function openMemoryGameEnd(fs: MemoryFs, dir: string, options: MemoryGameEndOptions = {}): MemoryGameEnd {
  const paths = sessionPaths(dir);
  const identity = (): Identity | undefined => {
    const text = fs.readText(paths.identity);
    if (text === undefined) return undefined;
    const parsed = parseIdentity(text);
    return parsed.ok ? parsed.identity : undefined;
  };
  const start = options.start ?? identity()?.start ?? { gen: 1, offset: 0 };
  const tail = tailMemoryLines(fs, {
    path: paths.toGame,
    start,
    ...(options.readDelayMs ? { readDelayMs: options.readDelayMs, ...(options.clock ? { clock: options.clock } : {}) } : {}),
  });
  const parsed = tail.records.pipe(
    map((record) => ({ record, result: safeParseRecord(record) })),
    share(),
  );
  const toGame = parsed.pipe(
    filter((item) => item.result.ok),
    map((item) => (item.result as { ok: true; line: LinkLine }).line),
  );
  const problems = merge(
    parsed.pipe(
      filter((item) => !item.result.ok),
      map((item): LinkProblem => ({ file: SessionFile.toGame, offset: item.record.offset, reason: (item.result as { ok: false; reason: string }).reason })),
    ),
    tail.events.pipe(map((event) => ({ ...tailEventProblem(event), file: SessionFile.toGame }))),
  );
  return {
    identity,
    toGame,
    problems,
    send: (kind, payload) => fs.appendFile(paths.fromGame, formatLinkLine(kind, payload)),
    sendBatch: (lines) => fs.appendFile(paths.fromGame, lines.map((l) => formatLinkLine(l.kind, l.payload)).join('')),
    appendRaw: (text) => fs.appendFile(paths.fromGame, text),
    toGamePosition: () => tail.position(),
    close: () => tail.close(),
  };
}
