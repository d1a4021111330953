// Where a launcher keeps its session folder (logs, the file link) when --session-dir is not given:
// a fresh folder under the system's temp directory, printed at start so a player can find its logs.
// A folder that cannot be made is a StartupError (one line, exit 1).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startupError } from './failure.ts';

export function sessionDir(given: string | undefined, role: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const dir = given ? resolve(given) : join(tmpdir(), 'feverlink3', `${role}-${stamp}-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw startupError(`use the session folder ${dir}`, error);
  }
  return dir;
}

/** "HOST:PORT", "[v6]:PORT" → parts; undefined when it is not that shape. */
export function parseHostPort(text: string): { host: string; port: number } | undefined {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return undefined;
  return { host: m[1]!, port };
}
