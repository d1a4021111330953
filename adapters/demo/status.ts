// Reading the games' and the host's status files for the demo's live view and its final comparison.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameStatus } from '../simgame/status.ts';
import { HOST_STATUS_FILE } from '../launcher/hostLauncher.ts';
import type { ChecksumStatus } from '../../actors/host/checksums.ts';
import type { ResyncStatus } from '../../actors/host/resync.ts';
import type { PartDifference } from '../../machines/rules/checksumCompare.ts';
import { progressBar } from '../../machines/rules/resyncChunks.ts';

export type HostStatus = {
  players: { id: number; name: string; ready: boolean; away: boolean; rtt?: number }[];
  session: { started: boolean; speed: number; pauseAt?: number; lead: number };
  waiting: string | null;
  /** The checksum rounds (actors/host/checksums.ts); absent from an older host. */
  checksums?: ChecksumStatus;
  /** The resync rounds (actors/host/resync.ts); absent from an older host. */
  resync?: ResyncStatus;
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

/** away: the host holds this player's slot while its launcher reconnects (demo --drops). */
export interface GameRow { name: string; id: number; status: GameStatus | undefined; rtt: number | undefined; away?: boolean }

/** The live status table: one line per game. */
export function formatTable(rows: readonly GameRow[], session: HostStatus['session'] | undefined, checksums?: ChecksumStatus, resync?: ResyncStatus): string {
  const head = `session: ${session ? (session.started ? `speed ${session.speed}${session.pauseAt === undefined ? '' : `, pauseAt ${session.pauseAt}`}, lead ${session.lead}` : 'not started') : '-'}`;
  const lines = rows.map(({ name, status: s, rtt, away }) => {
    if (!s) return `  ${name.padEnd(10)} (no status yet)`;
    const link = away ? '  away: reconnecting' : '';
    const time = (s.t / 1000).toFixed(1).padStart(8);
    return `  ${name.padEnd(10)} t ${time} s  speed ${s.speed}  applied ${String(s.applied).padStart(5)}  refused ${String(s.refused).padStart(4)}  late ${s.late}  rtt ${rtt === undefined ? '   -' : rtt.toFixed(1).padStart(5)} ms  margin ${s.margin === null || s.margin === undefined ? '-' : `${s.margin} game-ms`}${link}`;
  });
  return [head, ...lines, ...(checksums ? checksumLines(checksums) : []), ...(resync ? resyncLines(resync) : [])].join('\n');
}

/** The resync rounds in the live view: the running round's state, or the last result. */
function resyncLines(r: ResyncStatus): string[] {
  const counts = `verified ${r.rounds.verified}, failed ${r.rounds.failed}`;
  if (r.state === 'Transferring' && r.transfer) return [`resync: round ${r.id} Transferring ${progressBar(r.transfer)}`];
  if (r.state !== 'Idle') return [`resync: round ${r.id} ${r.state} (${r.reason ?? ''}; ${counts})`];
  if (!r.last) return [];
  return [`resync: round ${r.last.id} ${r.last.result}${r.last.failure ? `: ${r.last.failure}` : ''} (${counts})`];
}

/** A differing part with the games on each side of it: `vehicles (games 0, 1 | 2)`. */
function partLine(p: PartDifference): string {
  return `${p.part} (games ${p.groups.map((g) => g.games.join(', ')).join(' | ')})`;
}

/**
 * The checksum rounds in the live view: the last round, the last difference by part (with the round that found it and
 * the games on each side), the last repair request with its reason; with autoResync off the host only requested it
 * (no round starts: the launcher decides).
 */
export function checksumLines(c: ChecksumStatus): string[] {
  const r = c.rounds;
  const out = [`checksum: ${c.lastRound ? `round ${c.lastRound.n} ${c.lastRound.result}` : 'no round yet'} (identical ${r.identical}, different ${r.different}, skipped ${r.time_skew}, dropped ${r.dropped})`];
  const diff = c.differences.at(-1);
  if (diff) out.push(`  differs in round ${diff.n}${diff.paused ? ' (paused)' : ''}: ${diff.parts.map(partLine).join(', ')}`);
  const repair = c.repairRequests.at(-1);
  if (repair) {
    const how = repair.autoResync ? '' : ' (autoResync off: only requested)';
    out.push(`  repair requested (${c.repairRequests.length}): ${repair.reason}${how}`);
  }
  return out;
}
