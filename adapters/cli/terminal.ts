// The launcher's terminal window: prints the roster, chat, RTTs and session notices as readable lines on
// stdout, and reads the player's lines from stdin (plain text is chat; "/command args" are commands).
import { createInterface } from 'node:readline';

export type RosterRow = { id: number; name: string; ready?: boolean; away: boolean; rtt?: number };

export function formatRoster(rows: readonly RosterRow[]): string {
  return rows
    .map((r) => `${r.name} (${r.id})${r.away ? ' away' : ''}${r.rtt === undefined ? '' : ` ${r.rtt.toFixed(1)} ms`}`)
    .join(', ');
}

export function formatChat(name: string, text: string, level?: string): string {
  return level ? `[${level}] ${name}: ${text}` : `[chat] ${name}: ${text}`;
}

/** Prints a line to the terminal (stdout). */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Calls `onLine` for each line typed; resolves nothing, closes with the process. */
export function readLines(onLine: (line: string) => void): () => void {
  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    const text = line.trim();
    if (text) onLine(text);
  });
  return () => rl.close();
}

/** Prints RTTs at most every `everyMs`, and only when they changed, so the terminal stays readable. */
export function rttPrinter(everyMs: number, now: () => number): (rows: readonly RosterRow[]) => void {
  let last = '';
  let lastAt = -Infinity;
  return (rows) => {
    const line = rows.filter((r) => r.rtt !== undefined).map((r) => `${r.name} ${r.rtt!.toFixed(1)} ms`).join(', ');
    if (!line || line === last || now() - lastAt < everyMs) return;
    last = line;
    lastAt = now();
    say(`rtt: ${line}`);
  };
}

/** Resolves on the first SIGINT or SIGTERM. */
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
