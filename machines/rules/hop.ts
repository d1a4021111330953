// Latency stamps on a hop through the host (spec "Latency stamps", logs only): the host keeps a game's own
// g and l when they are plausible, drops w, ro, rr (the receiver's) and any h, so, sr a player wrote, and
// sets h (its wall clock), so and sr (the sender's clock offset and round trip) itself.
import type { Hop } from './lockstepTypes.ts';

/** A stamp further back than this from the host's wall clock is implausible (ms; the reconnect window). */
export const HOP_PAST_MS = 300_000;
/** A stamp further ahead than this of the host's wall clock is implausible (ms). */
export const HOP_FUTURE_MS = 60_000;
/** Without the host's wall clock a stamp must still look like ms since 1970 (2001..2286). */
export const HOP_EPOCH_MIN = 1_000_000_000_000;
export const HOP_EPOCH_MAX = 10_000_000_000_000;

/** What the host adds: its wall clock now and the sender's offset and round trip, where it knows them. */
export interface HostHopStamps {
  /** The host's wall clock (ms since 1970) when it handled the message: becomes `h`. */
  wall?: number;
  /** The sender's wall clock minus the host's (ms), from the pongs: becomes `so`. */
  so?: number;
  /** The sender's smoothed round trip (ms): becomes `sr`. */
  sr?: number;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function plausible(stamp: unknown, offset: number, wall: number | undefined): stamp is number {
  if (!finite(stamp) || stamp < HOP_EPOCH_MIN || stamp > HOP_EPOCH_MAX) return false;
  if (wall === undefined) return true;
  const onHostClock = stamp - offset;
  return onHostClock >= wall - HOP_PAST_MS && onHostClock <= wall + HOP_FUTURE_MS;
}

/**
 * The hop the host relays for a message from `fromPlayer` (0 = the host's own game, whose offset is 0): the
 * sender's plausible `g`/`l`, then the host's `h`, `so`, `sr`. `undefined` when nothing is left. Never throws.
 */
export function sanitiseHop(hop: unknown, fromPlayer: number, host: HostHopStamps = {}): Hop | undefined {
  const wall = finite(host.wall) ? host.wall : undefined;
  const so = fromPlayer === 0 ? 0 : finite(host.so) ? host.so : undefined;
  const sr = fromPlayer !== 0 && finite(host.sr) ? host.sr : undefined;
  const out: Hop = {};
  if (typeof hop === 'object' && hop !== null && !Array.isArray(hop)) {
    const { g, l } = hop as Record<string, unknown>;
    if (plausible(g, so ?? 0, wall)) out.g = g;
    if (plausible(l, so ?? 0, wall)) out.l = l;
  }
  if (wall !== undefined) out.h = wall;
  if (so !== undefined && fromPlayer !== 0) out.so = so;
  if (sr !== undefined) out.sr = sr;
  return Object.keys(out).length === 0 ? undefined : out;
}
