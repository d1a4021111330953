// The launcher's terminal window: prints the roster, chat, RTTs and session notices as readable lines on
// stdout, and reads the player's lines from stdin (plain text is chat; "/command args" are commands).
// Everything printed passes terminalSafe (names and chat come from other people); every write goes through
// stdio.ts, so a closed terminal or a reader that went away never ends the launcher.
import { createInterface } from 'node:readline';
import { LIFELINE_ENV } from '../launcher/gameProcess.ts';
import { terminalSafe } from './sanitize.ts';
import { writeOut } from './stdio.ts';

export type RosterRow = { id: number; name: string; ready?: boolean; away: boolean; rtt?: number };

export function formatRoster(rows: readonly RosterRow[]): string {
  return rows
    .map((r) => `${terminalSafe(r.name)} (${r.id})${r.away ? ' away' : ''}${r.rtt === undefined ? '' : ` ${r.rtt.toFixed(1)} ms`}`)
    .join(', ');
}

export function formatChat(name: string, text: string, level?: string): string {
  return `[${terminalSafe(level ?? 'chat')}] ${terminalSafe(name)}: ${terminalSafe(text)}`;
}

/** Prints a line to the terminal (stdout), made safe as a whole: one line, nothing a terminal acts on. */
export function say(line: string): void {
  writeOut(`${terminalSafe(line)}\n`);
}

/**
 * Calls `onLine` for each line typed. When stdin ends, nothing happens, unless the launcher was started with
 * the lifeline (FEVERLINK3_LIFELINE=stdin, as the demo starts its launchers): then its stdin closing means its
 * parent is gone, and the launcher ends as on SIGTERM. Returns the function that stops reading.
 */
export function readLines(onLine: (line: string) => void): () => void {
  let stopping = false;
  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    const text = line.trim();
    if (text) onLine(text);
  });
  rl.on('close', () => {
    if (!stopping && process.env[LIFELINE_ENV] === 'stdin') process.kill(process.pid, 'SIGTERM');
  });
  return () => {
    stopping = true;
    rl.close();
  };
}

/** Prints RTTs at most every `everyMs`, and only when they changed, so the terminal stays readable. */
export function rttPrinter(everyMs: number, now: () => number): (rows: readonly RosterRow[]) => void {
  let last = '';
  let lastAt = -Infinity;
  return (rows) => {
    const line = rows.filter((r) => r.rtt !== undefined).map((r) => `${terminalSafe(r.name)} ${r.rtt!.toFixed(1)} ms`).join(', ');
    if (!line || line === last || now() - lastAt < everyMs) return;
    last = line;
    lastAt = now();
    say(`rtt: ${line}`);
  };
}

/** Resolves on the first SIGINT or SIGTERM (a second one ends the process at once, the default). */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
