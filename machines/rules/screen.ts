// What the host refuses of a game's numbers before they reach anything it computes or relays (issue "a host that
// no peer can bring down"; lockstep.md "The game's clock line", "Stalls and outsiders"; docs/SECURITY.md "Numbers
// a game sends"). Every value the host derives from a game's times (maxClock, pauseAt, futureStamp, a stall
// promise) stays a safe integer the spec's validators accept, and every Action the host relays keeps the promises
// its sender made. Pure functions: the chart calls them from guards and steps.
import type { ActionPayload, ClockPayload, GameView, HelloPayload } from './lockstepTypes.ts';

/**
 * The largest game time (ms) the host accepts in a Hello, a Clock (t, safe, need) or an Action's stamp: 2^50 ms,
 * about 35 700 years of game time. The headroom to 2^53 keeps everything the host adds to a time (lead, steps,
 * the extrapolation of a clock over days) inside Number.MAX_SAFE_INTEGER, which the validators require.
 */
export const MAX_GAME_TIME = 2 ** 50;

/**
 * How far past the furthest time its sender has reported (Hello or Clock) an Action may be stamped: 600 000
 * game-ms (ten game minutes; an honest stamp lies at most 255 steps = 51 000 game-ms ahead, a held strict build
 * half a lead more). A stamp further out would sit in every game's queue for as long as the sender likes.
 */
export const FAR_STAMP_MS = 600_000;

/** Why a Hello is refused, if it is. */
export function helloRefusal(payload: HelloPayload): string | undefined {
  return payload.time > MAX_GAME_TIME ? `time ${payload.time} is past ${MAX_GAME_TIME}` : undefined;
}

/** Why a Clock is refused, if it is: a time past MAX_GAME_TIME (t, safe or need). */
export function clockRefusal(payload: ClockPayload): string | undefined {
  for (const field of ['t', 'safe', 'need'] as const) {
    const value = payload[field];
    if (value !== undefined && value > MAX_GAME_TIME) return `${field} ${value} is past ${MAX_GAME_TIME}`;
  }
  return undefined;
}

/**
 * Why an ordinary (stamped) Action of `game` is refused, if it is: stamped below its own promise (the highest
 * `safe` it has sent since its Hello; its announced `need` is the one exception), or further than FAR_STAMP_MS past
 * the furthest time it has reported. Peers may already stand past a stamp below the promise: relaying it would
 * make them apply it late, so it is refused on every game, like a stalled game's below the host's promise.
 */
export function stampRefusal(game: GameView | undefined, payload: ActionPayload): string | undefined {
  const stamp = payload.stamp;
  if (stamp === undefined || game === undefined) return undefined;
  if (game.bestSafe !== undefined && stamp < game.bestSafe && stamp !== game.clock?.need) {
    return `stamped ${stamp}, below its own promise ${game.bestSafe}`;
  }
  const reach = Math.min((game.bestT ?? 0) + FAR_STAMP_MS, MAX_GAME_TIME);
  if (stamp > reach) return `stamped ${stamp}, more than ${FAR_STAMP_MS} game-ms past its time ${game.bestT ?? 0}`;
  return undefined;
}
