// The launcher's end of one session folder (spec: architecture.txt §2; the session folder contract): starts a new
// generation of to_game.log, writes identity.txt with start=<gen>:0, appends link lines to to_game.log and tails
// from_game.log, reporting lines that do not parse (file + offset) and skipping them. Lines for the game are kept
// until appended (sendQueue.ts: retried, reported stalled, bounded); a folder that cannot be opened rejects with
// a GameLinkOpenError. Every file access goes through a seam (linkFs.ts, lineWriter.ts AppendFs, atomicFile.ts
// AtomicFs), so the same link runs on disk and over an in-memory folder (memoryLink.ts).
import { Observable, concat, filter, from, map, merge, share } from 'rxjs';
import type { Clock } from '../../actors/ports.ts';
import { realClock } from '../clock.ts';
import type { AtomicFs } from './atomicFile.ts';
import {
  identityProblem,
  readRecordedGen,
  removeStaleControlTmpFiles,
  writeIdentity,
  writeResyncCursor,
  type Identity,
} from './controlFiles.ts';
import { tailLines, type LineRecord, type LineTail, type TailEvent } from './lineReader.ts';
import { completeLinesEnd, openLineWriter, type AppendFs, type LineWriter } from './lineWriter.ts';
import { nodeLinkFs, type LinkFs } from './linkFs.ts';
import { formatLinkLine, parseLinkLine, type LinkLine, type ParsedLine } from './linkLine.ts';
import type { LinePosition } from './position.ts';
import { SendQueue, type LinkNotice, type LinkStatus, type SendQueueLimits } from './sendQueue.ts';
import { SessionFile, sessionPaths } from './sessionFolder.ts';

export { LinkSendError, DEFAULT_SEND_LIMITS } from './sendQueue.ts';
export type { LinkNotice, LinkState, LinkStatus, SendQueueLimits } from './sendQueue.ts';

/**
 * The session folder could not be opened (created, its to_game.log replaced, its identity.txt written): the
 * message is one line, `cannot open the session folder <dir>: <why>`, for the launcher to print before it exits.
 */
export class GameLinkOpenError extends Error {
  override readonly name = 'GameLinkOpenError';
  readonly dir: string;
  /** What the link was doing: `create the folder`, `replace to_game.log`, `write identity.txt`, … */
  readonly step: string;
  override readonly cause: unknown;

  constructor(dir: string, step: string, cause: unknown) {
    super(`cannot open the session folder ${dir}: ${step}: ${oneLine(cause)}`);
    this.dir = dir;
    this.step = step;
    this.cause = cause;
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[\r\n]+/g, ' ');
}

async function step<T>(dir: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new GameLinkOpenError(dir, what, error);
  }
}

/** Something the link noticed and skipped: a bad line, an over-long line, a read error, a replaced file. */
export interface LinkProblem {
  /** File name inside the session folder (`from_game.log`, `identity.txt`). */
  file: string;
  /** Byte offset of the line (or the reader's position) in that file. */
  offset: number;
  reason: string;
}

export interface GameLinkOptions {
  /** from_game.log poll interval in ms (default 25) on the real file system (not used with `linkFs`). */
  pollMs?: number;
  /** Also wake on fs.watch events (default true; not used with `linkFs`). */
  watch?: boolean;
  /**
   * Where to begin reading from_game.log: `'end'` (default: after its last complete line, so a previous session's
   * lines are not taken for this one's), `'start'` (byte 0), or a saved position.
   */
  fromGame?: 'end' | 'start' | LinePosition;
  /** Longest from_game.log line accepted (default 1 MiB). */
  maxLineBytes?: number;
  /** The clock the retries of failed appends wait on (default the real one). */
  clock?: Clock;
  /** Bounds of the backlog kept while appends fail, and the retry pacing (sendQueue.ts DEFAULT_SEND_LIMITS). */
  sendLimits?: Partial<SendQueueLimits>;
  /** The file system of to_game.log's appends (tests inject failures here). */
  appendFs?: AppendFs;
  /** The file system of the replacements (to_game.log at open, identity.txt, resync_cursor.txt) and their stale tmp files. */
  atomicFs?: AtomicFs;
  /**
   * The file system of the folder's creation, identity.txt's and from_game.log's reads, and what wakes the reader
   * (default the real one, waking on fs.watch and every `pollMs`; memoryLink.ts gives a MemoryFs).
   */
  linkFs?: LinkFs;
}

/** The launcher's end of one session folder. */
export interface GameLink {
  readonly dir: string;
  /** The identity written, with its `start` (this link's to_game.log generation, offset 0). */
  readonly identity: Identity;
  /**
   * Appends one line to to_game.log (serialised in call order); resolves once it is in the file. A failed append
   * is retried (the link is `stalled` meanwhile) and nothing sent later overtakes it. Rejects at once a kind or
   * payload that cannot be a line (TypeError); rejects with a LinkSendError when the link failed (backlog over its
   * bound) or closed before the line could be written.
   */
  send(kind: string, payload: unknown): Promise<void>;
  /** Appends several lines in one write(). */
  sendBatch(lines: readonly LinkLine[]): Promise<void>;
  /** The health of the to_game.log side: open, stalled (appends failing, lines kept), failed, closed. */
  status(): LinkStatus;
  /** link.stalled / link.recovered / link.failed / link.closed as they happen (hot). */
  readonly notices: Observable<LinkNotice>;
  /** Parsed lines of from_game.log, in order. Reading starts at the first subscription to this or `problems`. */
  readonly fromGame: Observable<LinkLine>;
  /** Lines that were skipped (with file and offset), read errors, replacements of from_game.log. */
  readonly problems: Observable<LinkProblem>;
  /** The position after the last line sent (for resync_cursor.txt). */
  toGamePosition(): LinePosition;
  /** The position after the last from_game.log line read. */
  fromGamePosition(): LinePosition;
  /** Writes resync_cursor.txt (atomic replace). */
  writeResyncCursor(position: LinePosition): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the launcher's end of session folder `dir` (created when missing): removes stale temporary files, replaces
 * to_game.log by an empty file of generation N + 1 (N from identity.txt `start=`, 0 when none), then writes
 * identity.txt with `start=<N+1>:0`, in that order so a mod never reads the old file's lines as this session's.
 */
export async function openGameLink(
  dir: string,
  identity: { name: string; id: number; role: 'host' | 'player' },
  options: GameLinkOptions = {},
): Promise<GameLink> {
  const problem = identityProblem({ ...identity, start: { gen: 1, offset: 0 } });
  if (problem !== undefined) throw new TypeError(`identity: ${problem}`);
  const fs = options.linkFs ?? nodeLinkFs({ pollMs: options.pollMs, watch: options.watch });
  const replacing = options.atomicFs ? { fs: options.atomicFs } : {};
  const paths = sessionPaths(dir);
  await step(dir, 'create the folder', () => fs.mkdir(dir));
  await step(dir, 'remove stale temporary files', () => removeStaleControlTmpFiles(dir, replacing));
  const recorded = await step(dir, 'read identity.txt', () => readRecordedGen(dir, fs));
  const startProblems: LinkProblem[] = [];
  if (recorded.problem !== undefined) {
    const reason = `${recorded.problem}; generation restarts at 1`;
    startProblems.push({ file: SessionFile.identity, offset: 0, reason });
  }
  const gen = recorded.gen + 1;
  const fromStart = await step(dir, 'read from_game.log', () => resolveFromGameStart(fs, paths.fromGame, options.fromGame ?? 'end'));
  const writer: LineWriter = await step(dir, 'replace to_game.log', () =>
    openLineWriter(paths.toGame, {
      replace: true,
      ...(options.appendFs ? { appendFs: options.appendFs } : {}),
      ...replacing,
    }),
  );
  const written: Identity = { ...identity, start: { gen, offset: 0 } };
  try {
    await writeIdentity(dir, written, replacing);
  } catch (error) {
    await writer.close().catch(() => undefined);
    throw new GameLinkOpenError(dir, 'write identity.txt', error);
  }
  const queue = new SendQueue(writer, options.clock ?? realClock, options.sendLimits ?? {}, SessionFile.toGame);

  const tail = tailLines({
    path: paths.fromGame,
    start: fromStart,
    fs,
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
  });
  const { lines: fromGame, problems: lineProblems } = linkLines(tail, SessionFile.fromGame);
  const problems = concat(from(startProblems), lineProblems);

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
    writeResyncCursor: (position) => writeResyncCursor(dir, position, replacing),
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

/**
 * The link lines of a tailed line file (`file`: its name in the folder), parsed; lines that do not parse, and the
 * tail's events (replacements, skipped lines, read errors), as problems. Used for both ends (memoryLink.ts: the game's).
 */
export function linkLines(tail: LineTail, file: string): { lines: Observable<LinkLine>; problems: Observable<LinkProblem> } {
  const parsed = tail.records.pipe(
    map((record) => ({ record, result: safeParseRecord(record) })),
    share(),
  );
  const lines = parsed.pipe(
    filter((item) => item.result.ok),
    map((item) => (item.result as { ok: true; line: LinkLine }).line),
  );
  const badLines = parsed.pipe(
    filter((item) => !item.result.ok),
    map((item): LinkProblem => ({
      file,
      offset: item.record.offset,
      reason: (item.result as { ok: false; reason: string }).reason,
    })),
  );
  const tailProblems = tail.events.pipe(map((event) => tailEventProblem(event, file)));
  return { lines, problems: merge(badLines, tailProblems) };
}

/** Parsing one line never ends the stream: a throw (it should not) makes that line a problem. */
function safeParseRecord(record: LineRecord): ParsedLine {
  try {
    return parseRecord(record);
  } catch (error) {
    return { ok: false, reason: `line not parsed: ${oneLine(error)}` };
  }
}

function parseRecord(record: LineRecord): ParsedLine {
  if (!record.utf8) return { ok: false, reason: 'invalid UTF-8' };
  return parseLinkLine(record.text);
}

function tailEventProblem(event: TailEvent, file: string): LinkProblem {
  switch (event.type) {
    case 'replaced':
      return { file, offset: 0, reason: `file replaced (${event.why}): reading generation ${event.gen} from byte 0` };
    case 'skipped':
    case 'error':
      return { file, offset: event.offset, reason: event.reason };
  }
}

async function resolveFromGameStart(fs: LinkFs, path: string, start: 'end' | 'start' | LinePosition): Promise<LinePosition> {
  if (start === 'start') return { gen: 1, offset: 0 };
  if (start === 'end') return { gen: 1, offset: await completeLinesEnd(path, fs) };
  return start;
}
