// Joins per address (docs/SECURITY.md "Joins per address"): a session hands out 65 534 player ids and never one
// twice, so a peer that joins and leaves in a loop would use them up and lock everyone out (`full: no player ids
// left`). Each address key (an IPv4 address, an IPv6 /64) may be seated JOIN_BURST times at once and then once per
// JOIN_REFILL_MS: at that pace one address needs over two weeks to use up the ids. Pure: time comes in as `now`.

/** Joins an address may make at once. */
export const JOIN_BURST = 8;
/** One more join per address after this long (ms): 3 a minute. */
export const JOIN_REFILL_MS = 20_000;
/** Addresses remembered at most; the one idle the longest is forgotten first (it has a full bucket anyway soon). */
export const JOIN_ADDRESSES = 4_096;

interface Bucket {
  tokens: number;
  at: number;
}

export interface JoinRate {
  readonly buckets: Map<string, Bucket>;
}

export function createJoinRate(): JoinRate {
  return { buckets: new Map() };
}

/** Takes one join for `address` at `now`: true when allowed. Mutates the rate (one per session, host-owned). */
export function takeJoin(rate: JoinRate, address: string, now: number): boolean {
  const bucket = rate.buckets.get(address);
  const tokens = bucket === undefined ? JOIN_BURST : Math.min(JOIN_BURST, bucket.tokens + Math.max(0, now - bucket.at) / JOIN_REFILL_MS);
  // Re-inserted so the Map's order is least recently used first.
  rate.buckets.delete(address);
  if (tokens < 1) {
    rate.buckets.set(address, { tokens, at: now });
    return false;
  }
  rate.buckets.set(address, { tokens: tokens - 1, at: now });
  while (rate.buckets.size > JOIN_ADDRESSES) rate.buckets.delete(rate.buckets.keys().next().value!);
  return true;
}
