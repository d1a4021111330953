// The launcher's log for `host` and `join`: launcher.log (JSON lines) in the session folder, a readable copy on
// stderr on a terminal or with --verbose, attached to the process supervisor (so a lost terminal, a hang-up and
// a last-resort fault are written there). A log that cannot be opened is a StartupError (one line, exit 1).
import { join } from 'node:path';
import { createLog, type Log } from '../log.ts';
import { startupError } from './failure.ts';
import { writeStd } from './stdio.ts';
import { attachLog, keepRunningOnHangup } from './supervise.ts';

export const LOG_FILE = 'launcher.log';

export function openLauncherLog(dir: string, verbose: boolean, base: Record<string, unknown>): Log {
  const file = join(dir, LOG_FILE);
  let log: Log;
  try {
    log = createLog({ file, pretty: verbose || process.stderr.isTTY === true, base, out: (text) => void writeStd('stderr', text, false) });
  } catch (error) {
    throw startupError(`write in the session folder ${dir}`, error);
  }
  attachLog({ log: log.log, flush: log.flush, file });
  keepRunningOnHangup();
  return log;
}
