// Reading the games' and the host's status files for the demo's live view and its final comparison.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameStatus } from '../simgame/status.ts';
import { HOST_STATUS_FILE } from '../launcher/hostLauncher.ts';

export type HostStatus = {
  players: { id: number; name: string; ready: boolean; away: boolean; rtt?: number }[];
  session: { started: boolean; speed: number; pauseAt?: number; lead: number };
  waiting: string | null;
};

function readJson<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined; // not written yet
  }
}

export const gameStatus = (dir: string) => readJson<GameStatus>(join(dir, 'status.json'));
export const hostStatus = (dir: string) => readJson<HostStatus>(join(dir, HOST_STATUS_FILE));

export interface GameRow { name: string; id: number; status: GameStatus | undefined; rtt: number | undefined }

/** The live status table: one line per game. */
export function formatTable(rows: readonly GameRow[], session: HostStatus['session'] | undefined): string {
  const head = `session: ${session ? (session.started ? `speed ${session.speed}${session.pauseAt === undefined ? '' : `, pauseAt ${session.pauseAt}`}, lead ${session.lead}` : 'not started') : '-'}`;
  const lines = rows.map(({ name, status: s, rtt }) => {
    if (!s) return `  ${name.padEnd(10)} (no status yet)`;
    const time = (s.t / 1000).toFixed(1).padStart(8);
    return `  ${name.padEnd(10)} t ${time} s  speed ${s.speed}  applied ${String(s.applied).padStart(5)}  refused ${String(s.refused).padStart(4)}  late ${s.late}  rtt ${rtt === undefined ? '   -' : rtt.toFixed(1).padStart(5)} ms  margin ${s.margin === null || s.margin === undefined ? '-' : `${s.margin} game-ms`}`;
  });
  return [head, ...lines].join('\n');
}
