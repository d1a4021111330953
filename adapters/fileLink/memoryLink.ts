// The file link over an in-memory session folder (DESIGN.md "Actors": the same sessions run over the simulator's
// in-memory network and folder; docs/FILE_LINK.md): openMemoryGameLink is openGameLink over a MemoryFs,
// tailMemoryLines is lineReader's tailLines over it, openMemoryGameEnd is the game's end (what the mod does with
// files), so a simulated game can talk to a launcher with no files at all.
//
// Only the wiring is here: the MemoryFs serves the link's three seams (AppendFs, AtomicFs, LinkFs), and
// memoryLinkFs wakes a reader on the MemoryFs's writes instead of fs.watch and polling. The line format,
// generations, positions, replacement rules, send queue and notices are gameLink.ts's and lineReader.ts's.
//
// Timing: the reader wakes on a change of its file, on a microtask by default (no clock involved), or
// `readDelayMs` later on the injected clock (a poll interval a simulator can model). Retries of failed appends run
// on the injected clock, as on files. Nothing reads the real clock unless no clock is given.
import type { Observable } from 'rxjs';
import type { Clock } from '../../actors/ports.ts';
import { realClock } from '../clock.ts';
import { parseIdentity, type Identity } from './controlFiles.ts';
import { linkLines, openGameLink, type GameLink, type GameLinkOptions, type LinkProblem } from './gameLink.ts';
import { tailLines, type LineTail } from './lineReader.ts';
import type { LinkFs } from './linkFs.ts';
import { formatLinkLine, type LinkLine } from './linkLine.ts';
import { fsError, type MemoryFs } from './memoryFs.ts';
import type { LinePosition } from './position.ts';
import { SessionFile, sessionPaths } from './sessionFolder.ts';

// ---- the seam ----------------------------------------------------------------------------------------------

export interface MemoryWakeOptions {
  /** With readDelayMs: the clock the reader's wake-up waits on. */
  clock?: Clock;
  /** A change is read this long after it happened (default 0: on a microtask). Needs `clock`. */
  readDelayMs?: number;
}

/**
 * The link's reads over a MemoryFs (as linkFs.ts's nodeLinkFs on disk). A reader is woken by the writes to its file
 * (or to any file while its own is missing), on a microtask or `readDelayMs` later on the clock, never by polling;
 * its first look comes the same way.
 */
export function memoryLinkFs(fs: MemoryFs, wake: MemoryWakeOptions = {}): LinkFs {
  const delay = wake.readDelayMs ?? 0;
  const clock = wake.clock;
  if (delay > 0 && clock === undefined) throw new TypeError('readDelayMs needs a clock');
  return {
    mkdir: async (path) => fs.mkdir(path),
    readText: async (path) => fs.readText(path),
    open: async (path) => {
      // As on disk, where a folder opens but does not read.
      if (fs.stat(path)?.kind === 'dir') throw fsError('EISDIR', 'read', path);
      return fs.open(path, 'r');
    },
    stat: async (path) => {
      const named = fs.stat(path);
      if (named === undefined) throw fsError('ENOENT', 'stat', path);
      return named.kind === 'file' ? { ino: named.ino, dev: 0, size: named.size } : { ino: 0, dev: 0, size: 0 };
    },
    watch: (path, onChange) => {
      let due = false;
      let stopped = false;
      let timer: unknown;
      const schedule = (): void => {
        if (due || stopped) return;
        due = true;
        const run = (): void => {
          due = false;
          if (!stopped) onChange();
        };
        if (delay > 0) timer = clock!.setTimeout(run, delay);
        else queueMicrotask(run);
      };
      const unwatch = fs.watch((changed) => {
        const mine = fs.inode(path);
        if (changed === path || mine === undefined || fs.inode(changed) === mine) schedule();
      });
      schedule();
      return () => {
        stopped = true;
        unwatch();
        if (due && delay > 0) clock!.clearTimeout(timer);
      };
    },
  };
}

export interface MemoryTailOptions extends MemoryWakeOptions {
  path: string;
  /** Where to begin (default `{ gen: 1, offset: 0 }`); an offset past the end means the file was replaced. */
  start?: LinePosition;
  /** Longest line accepted, without its `\n` (default 1 MiB); a longer one is skipped and reported. */
  maxLineBytes?: number;
}

/** tailLines over a line file of a MemoryFs: the same positions, generations, replacements and skipped lines. */
export function tailMemoryLines(fs: MemoryFs, options: MemoryTailOptions): LineTail {
  const { clock, readDelayMs, ...tail } = options;
  return tailLines({ ...tail, fs: memoryLinkFs(fs, { clock, readDelayMs }) });
}

// ---- the launcher's end ------------------------------------------------------------------------------------

/**
 * GameLinkOptions of an in-memory folder: `appendFs` and `atomicFs` default to the MemoryFs itself (tests wrap it to
 * fail appends); `clock` also times `readDelayMs`.
 */
export interface MemoryGameLinkOptions
  extends Pick<GameLinkOptions, 'fromGame' | 'maxLineBytes' | 'clock' | 'sendLimits' | 'appendFs' | 'atomicFs'> {
  /** from_game.log changes are read this long after they happen (default 0: on a microtask). */
  readDelayMs?: number;
}

/**
 * Opens the launcher's end of the in-memory session folder `dir` of `fs`: openGameLink (the same steps, the same
 * GameLinkOpenError naming a failed one) with every file access on the MemoryFs.
 */
export async function openMemoryGameLink(
  fs: MemoryFs,
  dir: string,
  identity: { name: string; id: number; role: 'host' | 'player' },
  options: MemoryGameLinkOptions = {},
): Promise<GameLink> {
  const { readDelayMs, appendFs, atomicFs, ...rest } = options;
  const linkFs = memoryLinkFs(fs, readDelayMs ? { readDelayMs, clock: options.clock ?? realClock } : {});
  return openGameLink(dir, identity, { ...rest, appendFs: appendFs ?? fs, atomicFs: atomicFs ?? fs, linkFs });
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

export interface MemoryGameEndOptions extends MemoryWakeOptions {
  /** Where to start reading to_game.log (default identity.txt's `start=`, else generation 1 byte 0). */
  start?: LinePosition;
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
  const tail = tailMemoryLines(fs, { ...options, path: paths.toGame, start });
  const { lines: toGame, problems } = linkLines(tail, SessionFile.toGame);
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
