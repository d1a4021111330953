// How the host-relay bench (bench/hostRelay.bench.ts) loads the host: the players paced under the spec's
// per-connection cap (the default), or as fast as the host relays (`--capacity`).
import { CLOCK_MS } from './relayPeer.ts';

/** How the players load the host: paced under the spec's cap (the default), or as fast as it relays (`--capacity`). */
export interface Load {
  /** The players count Action frames by header, unopened (RelayPeer.lean). */
  lean: boolean;
  /** Actions a second each player sends at most. */
  perSender: number;
  /** Actions each player sends in one round. */
  roundActions: number;
  /** Actions a player may be ahead of what came back (/ 7, or / 8 when lean): see RelayPeer.round. */
  window: number;
  timeoutMs: number;
  /** The players' Clock cadence (ms). */
  clockMs: number;
  /** The hosts' extra environment. */
  hostEnv: Record<string, string>;
}

/**
 * Under the 1000 frames/s cap with 10 Clocks a second and the Pongs: 900 Actions/s a player, 1200 a round (about
 * 1.3 s), a window of 250 (far from the 1000 a connection's rate bucket holds, so a host that falls behind is not
 * closed as a flood).
 */
export const PACED: Load = { lean: false, perSender: 900, roundActions: 1200, window: 250, timeoutMs: 6_000, clockMs: CLOCK_MS, hostEnv: {} };

/**
 * The capacity run: the host's frame cap lifted (FEVERLINK3_RATE_LIMIT_SCALE), every player sends as fast as
 * its window lets it, so the host relays as much as it can; the players are lean, or their opening of 8 frames per
 * Action would take the cores the host needs. A Clock every 25 ms: the Actions in flight past the slowest game's
 * reported time stay under the host's 512 per origin at this rate (machines/rules/inFlight.ts).
 */
export const CAPACITY: Load = {
  lean: true,
  perSender: 20_000,
  roundActions: 5_000,
  window: 100,
  timeoutMs: 30_000,
  clockMs: 25,
  hostEnv: { FEVERLINK3_RATE_LIMIT_SCALE: '100' },
};
