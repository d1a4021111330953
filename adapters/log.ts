// Logging (DESIGN.md "Adapters: Log"): pino, JSON lines to a file in the session folder; readable lines on a
// terminal through pino-pretty's formatter, in process (no worker-thread transports: they break in a bundle
// and in the single binary, reference/stack.md §8). The actors see only the LogFn port.
// The readable copy is written through `out` (the launcher passes its guarded stderr writer, which never
// throws when the terminal is gone), and every string in it passes terminalSafe first: log entries carry
// names and reasons that came from other people.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFn } from '../actors/ports.ts';
import { terminalSafe } from './cli/sanitize.ts';

export interface LogSetup {
  /** The JSON-lines file. */
  file: string;
  /** Also write readable lines to stderr (the launcher does on a terminal, or with --verbose). */
  pretty: boolean;
  /** Fields on every line (role, name …). */
  base?: Record<string, unknown>;
  /** Where the readable lines go (default: stderr, errors ignored). */
  out?: (text: string) => void;
}

export interface Log {
  logger: Logger;
  /** The port the actors log through: one object per line, `msg` the fixed text. */
  log: LogFn;
  /** Writes what is buffered; call before exiting. */
  flush(): void;
}

export function createLog(setup: LogSetup): Log {
  mkdirSync(dirname(setup.file), { recursive: true });
  const file = pino.destination({ dest: setup.file, sync: true, mkdir: true });
  const streams: pino.StreamEntry[] = [{ stream: file, level: 'debug' }];
  if (setup.pretty) {
    const format = prettyFactory({ colorize: process.stderr.isTTY === true, singleLine: true, ignore: 'pid,hostname,role' });
    const out = setup.out ?? writeStderr;
    streams.push({
      stream: {
        write: (line: string) => {
          const text = format(safeEntry(line));
          if (text) out(text);
        },
      },
      level: 'info',
    });
  }
  const logger = pino({ level: 'debug', base: { pid: process.pid, ...setup.base } }, pino.multistream(streams));
  return {
    logger,
    log: ({ msg, level, ...fields }) => {
      const method = level === 'warn' || level === 'error' || level === 'debug' ? level : 'info';
      logger[method](fields, msg);
    },
    flush: () => file.flushSync(),
  };
}

function writeStderr(text: string): void {
  try {
    process.stderr.write(text, () => {});
  } catch {
    // the terminal is gone; the file has the line
  }
}

/** The entry with every string made terminal-safe (the JSON line itself is left as it was for the file). */
function safeEntry(line: string): unknown {
  try {
    return clean(JSON.parse(line));
  } catch {
    return terminalSafe(line.trimEnd());
  }
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return terminalSafe(value);
  if (Array.isArray(value)) return value.map(clean);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [terminalSafe(k), clean(v)]));
  }
  return value;
}
