// Connection caps of a listener (spec: wire-protocol.txt "Handshake": 64 connections, 16 per address,
// at most 32 not yet joined). Counts only; the listener closes a refused socket before reading from it.
import type { TransportLimits } from '../../actors/ports.ts';

/** Why a new connection was refused, in the order the caps are checked. */
export type AdmissionRefusal = 'too-many-connections' | 'too-many-from-address' | 'too-many-pending';

/** Open connections by id, with their address key and whether they have joined. */
export class Admission {
  #limits: Pick<TransportLimits, 'maxConnections' | 'maxPerAddress' | 'maxPending'>;
  #keyOf = new Map<number, string>();
  #perKey = new Map<string, number>();
  #pending = new Set<number>();

  constructor(limits: Pick<TransportLimits, 'maxConnections' | 'maxPerAddress' | 'maxPending'>) {
    this.#limits = limits;
  }

  get open(): number {
    return this.#keyOf.size;
  }

  get pending(): number {
    return this.#pending.size;
  }

  /** Open connections with this key. */
  countFor(key: string): number {
    return this.#perKey.get(key) ?? 0;
  }

  /** Registers connection `id` (pending) or says which cap refuses it (nothing registered then). */
  admit(id: number, key: string): AdmissionRefusal | undefined {
    if (this.#keyOf.size >= this.#limits.maxConnections) return 'too-many-connections';
    if (this.countFor(key) >= this.#limits.maxPerAddress) return 'too-many-from-address';
    if (this.#pending.size >= this.#limits.maxPending) return 'too-many-pending';
    this.#keyOf.set(id, key);
    this.#perKey.set(key, this.countFor(key) + 1);
    this.#pending.add(id);
    return undefined;
  }

  /** The connection joined: its pending slot is free. */
  joined(id: number): void {
    this.#pending.delete(id);
  }

  /** The connection is gone: all its slots are free. Idempotent. */
  release(id: number): void {
    const key = this.#keyOf.get(id);
    if (key === undefined) return;
    this.#keyOf.delete(id);
    this.#pending.delete(id);
    const left = this.countFor(key) - 1;
    if (left > 0) this.#perKey.set(key, left);
    else this.#perKey.delete(key);
  }
}
