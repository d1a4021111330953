// Logging (DESIGN.md "Adapters: Log"): pino, JSON lines to a file in the session folder; readable lines on a
// terminal through pino-pretty as an in-process stream (no worker-thread transports: they break in a bundle
// and in the single binary, reference/stack.md §8). The actors see only the LogFn port.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFn } from '../actors/ports.ts';

export interface LogSetup {
  /** The JSON-lines file. */
  file: string;
  /** Also write readable lines to stderr (the launcher does on a terminal, or with --verbose). */
  pretty: boolean;
  /** Fields on every line (role, name …). */
  base?: Record<string, unknown>;
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
  if (setup.pretty) streams.push({ stream: pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY, singleLine: true, ignore: 'pid,hostname,role' }), level: 'info' });
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
