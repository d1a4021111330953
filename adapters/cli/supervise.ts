// The process around a command (bin/feverlink3.js runs every command inside it): stdout and stderr that may
// go away (stdio.ts), a hang-up that does not end a launcher, and the last-resort handlers. A fault that
// reaches uncaughtException / unhandledRejection is a bug: it is logged with its stack (to launcher.log once
// a command attached its log), the games this process started are ended, and the process exits 1 after one
// line on stderr. Expected failures never get here: they are UsageError / StartupError (failure.ts).
import type { LogFn } from '../../actors/ports.ts';
import { endGamesNow } from '../launcher/gameProcess.ts';
import { guardStdio, onStdioLost, writeErr } from './stdio.ts';

export interface AttachedLog {
  log: LogFn;
  flush(): void;
  /** The log file's path, named in the last-resort message. */
  file: string;
}

let attached: AttachedLog | undefined;
let supervised = false;
let ending = false;

/** The command's log: the supervisor writes what it sees there from now on. */
export function attachLog(log: AttachedLog): void {
  attached = log;
}

const lastFlushes = new Set<() => void>();

/** Something to write out synchronously before a fatal exit (the trace recorder's queue); returns the remover. */
export function flushOnFatal(flush: () => void): () => void {
  lastFlushes.add(flush);
  return () => lastFlushes.delete(flush);
}

/** Logs through the attached log, if there is one; never throws. */
export function logIfAttached(entry: Parameters<LogFn>[0]): void {
  try {
    attached?.log(entry);
  } catch {
    // the log itself failed; nothing better to do
  }
}

/** Installs the guards once for this process. */
export function superviseProcess(): void {
  if (supervised) return;
  supervised = true;
  guardStdio();
  onStdioLost(
    (stream, code) => logIfAttached({ level: 'warn', msg: 'terminal output lost', stream, code }),
    (stream, text) => {
      for (const line of text.split('\n')) {
        if (line !== '') logIfAttached({ msg: stream === 'stdout' ? 'terminal line' : 'terminal error line', line });
      }
    },
  );
  process.on('uncaughtException', (error) => fatal(error, 'uncaught exception'));
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandled rejection'));
}

/**
 * A hang-up (the terminal closed, or `kill -HUP`) does not end a launcher: the session goes on, what it would
 * have printed goes to launcher.log, and SIGTERM or SIGINT still end it cleanly.
 */
export function keepRunningOnHangup(): void {
  process.on('SIGHUP', () => logIfAttached({ level: 'warn', msg: 'hang-up (SIGHUP): the terminal may be gone; running on' }));
}

/** The last resort: log with the stack, end the games, one line on stderr, exit 1. */
export function fatal(error: unknown, kind: string): void {
  if (ending) return;
  ending = true;
  const e = error instanceof Error ? error : new Error(String(error));
  try {
    endGamesNow();
  } catch {
    // keep ending
  }
  for (const flush of lastFlushes) {
    try {
      flush();
    } catch {
      // keep ending
    }
  }
  if (attached) {
    logIfAttached({ level: 'error', msg: 'launcher failed', kind, error: e.message, stack: e.stack });
    try {
      attached.flush();
    } catch {
      // keep ending
    }
    writeErr(`feverlink3: internal error (${kind}): ${e.message} (the stack is in ${attached.file})\n`);
  } else {
    writeErr(`feverlink3: internal error (${kind}): ${e.stack ?? e.message}\n`);
  }
  process.exit(1);
}
