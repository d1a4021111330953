// One joined player's connection as the host sees it: the bound sender id, ping bookkeeping, and the
// counters of what was dropped (logged once per player and kind, spec "Who may send what").
import type { Connection } from '../ports.ts';
import { createRtt, type RttState } from '../../machines/rules/rtt.ts';

export type DropCause = 'sender' | 'kind' | 'open' | 'decode' | 'permission';

export class PlayerLink {
  readonly id: number;
  readonly conn: Connection;
  rtt: RttState;
  /** The host's wall clock when ping n went out (for the clock offset). */
  readonly pingWall = new Map<number, number>();
  /** Dropped frames by cause and kind; the first of each is logged. */
  readonly dropped = new Map<string, number>();

  constructor(id: number, conn: Connection, now: number) {
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

  droppedTotal(): number {
    let total = 0;
    for (const n of this.dropped.values()) total += n;
    return total;
  }
}
