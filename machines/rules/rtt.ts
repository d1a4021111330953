// Ping and round-trip time (spec "Ping and round-trip time", "Latency stamps"): up to 8 unanswered pings
// per player (an older unanswered one is forgotten when a later one is answered); the first sample sets
// the smoothed value, each later one moves it a quarter of the way; the clock offset is taken from the
// tightest of the last eight round trips by NTP's midpoint rule.

export const MAX_UNANSWERED_PINGS = 8;
export const OFFSET_SAMPLES = 8;
/**
 * The largest clock offset the host takes from a Pong's wall clock: ten years in ms. A player's clock may be set
 * wrong by hours or days; a `w` further off than this (1e308, a negative time) is no clock at all, and an offset
 * computed from it would poison every later Ping's `off` (a non-finite number has no JSON form). Such a Pong still
 * measures the round trip; its `w` is ignored.
 */
export const MAX_CLOCK_OFFSET_MS = 10 * 365 * 24 * 3600 * 1000;

export interface RttState {
  /** Next ping number to send. */
  readonly nextN: number;
  /** Unanswered pings: n → the host's clock when it was sent (ms). */
  readonly pending: ReadonlyMap<number, number>;
  /** Smoothed round trip (ms), once measured. */
  readonly smoothed: number | undefined;
  /** The last round trips with their offset estimate, newest last. */
  readonly samples: readonly { rtt: number; offset: number }[];
  /** The host's clock when the player last answered (or joined). */
  readonly lastHeard: number;
}

export function createRtt(now: number): RttState {
  return { nextN: 1, pending: new Map(), smoothed: undefined, samples: [], lastHeard: now };
}

/** Records a ping sent now; drops the oldest unanswered ones beyond 8. */
export function pingSent(state: RttState, now: number): { state: RttState; n: number } {
  const n = state.nextN;
  const pending = new Map(state.pending);
  pending.set(n, now);
  while (pending.size > MAX_UNANSWERED_PINGS) pending.delete(pending.keys().next().value!);
  return { state: { ...state, nextN: n + 1, pending }, n };
}

export type PongResult = { accepted: false; state: RttState } | { accepted: true; state: RttState; rtt: number };

/**
 * A Pong n: ignored when n was not sent or already answered. `wall` is the player's wall clock at the answer
 * (Pong.w) and `hostWallAtSend` the host's wall clock when the ping went out, for the offset.
 */
export function pongReceived(state: RttState, n: number, now: number, wall?: number, hostWallAtSend?: number): PongResult {
  const sentAt = state.pending.get(n);
  if (sentAt === undefined) return { accepted: false, state };
  const rtt = Math.max(0, now - sentAt);
  const pending = new Map<number, number>();
  for (const [k, v] of state.pending) if (k > n) pending.set(k, v); // older unanswered ones are forgotten
  const smoothed = state.smoothed === undefined ? rtt : state.smoothed + (rtt - state.smoothed) / 4;
  let samples = state.samples;
  if (wall !== undefined && hostWallAtSend !== undefined) {
    // NTP midpoint: the player answered halfway through the round trip.
    const offset = oneDecimal(wall - (hostWallAtSend + rtt / 2));
    if (Math.abs(offset) <= MAX_CLOCK_OFFSET_MS) samples = [...samples, { rtt, offset }].slice(-OFFSET_SAMPLES);
  }
  return { accepted: true, rtt, state: { ...state, pending, smoothed, samples, lastHeard: now } };
}

/** The offset (player wall clock minus the host's) of the tightest of the last eight round trips. */
export function clockOffset(state: RttState): number | undefined {
  let best: { rtt: number; offset: number } | undefined;
  for (const s of state.samples) if (!best || s.rtt < best.rtt) best = s;
  return best?.offset;
}

/** Milliseconds with one decimal, as Ping.rtt carries them. */
export function oneDecimal(ms: number): number {
  return Math.round(ms * 10) / 10;
}
