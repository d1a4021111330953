// One joined player's connection as the host sees it: the bound sender id, ping bookkeeping, and the
// counters of what was dropped (logged once per player and kind, spec "Who may send what").
import type { ConnectionHandle } from '../connectionActor.ts';
import { clockOffset, createRtt, oneDecimal, pingSent, pongReceived, type RttState } from '../../machines/rules/rtt.ts';

export type DropCause = 'sender' | 'kind' | 'open' | 'decode' | 'permission';

export class PlayerLink {
  readonly id: number;
  readonly conn: ConnectionHandle;
  rtt: RttState;
  /** The host's wall clock when ping n went out (for the clock offset). */
  readonly pingWall = new Map<number, number>();
  /** Dropped frames by cause and kind; the first of each is logged. */
  readonly dropped = new Map<string, number>();

  constructor(id: number, conn: ConnectionHandle, now: number) {
    this.id = id;
    this.conn = conn;
    this.rtt = createRtt(now);
  }

  /** Counts a drop; true when it is the first of its cause and kind (the one to log). */
  countDrop(cause: DropCause, kind: number): boolean {
    const key = `${cause}:${kind}`;
    const n = (this.dropped.get(key) ?? 0) + 1;
    this.dropped.set(key, n);
    return n === 1;
  }

  /** Records a ping going out now; returns its number. */
  nextPing(now: number, wall: number): number {
    const sent = pingSent(this.rtt, now);
    this.rtt = sent.state;
    this.pingWall.set(sent.n, wall);
    for (const n of this.pingWall.keys()) if (!this.rtt.pending.has(n)) this.pingWall.delete(n);
    return sent.n;
  }

  /** A Pong: measures the round trip (ignored for a ping never sent or already answered). */
  pong(n: number, now: number, wall: number | undefined): void {
    const result = pongReceived(this.rtt, n, now, wall, this.pingWall.get(n));
    this.rtt = result.state;
    if (result.accepted) this.pingWall.delete(n);
  }

  droppedTotal(): number {
    let total = 0;
    for (const n of this.dropped.values()) total += n;
    return total;
  }
}

/** What a Ping carries: every measured player's smoothed round trip (the host's game is 0) and clock offset. */
export function rttReport(links: Iterable<PlayerLink>): { rtt: Record<number, number>; off: Record<number, number> } {
  const rtt: Record<number, number> = { 0: 0 };
  const off: Record<number, number> = {};
  for (const link of links) {
    if (link.rtt.smoothed !== undefined) rtt[link.id] = oneDecimal(link.rtt.smoothed);
    const offset = clockOffset(link.rtt);
    if (offset !== undefined) off[link.id] = oneDecimal(offset);
  }
  return { rtt, off };
}
