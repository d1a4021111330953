// The host's stamps (lockstep.md "Units", "The host's stamps"): one step is 200 game-ms; maxClock is the
// highest extrapolated time of the pacing games; futureStamp lies (lead + 2) steps past it, rounded up to a step.
import type { GameView, ReceivedClock } from './lockstepTypes.ts';

/** One simulation step in game-milliseconds. */
export const STEP = 200;

/** The smallest step boundary at or after `t`. */
export function roundUpToStep(t: number): number {
  return Math.ceil(t / STEP) * STEP + 0; // `+ 0` turns -0 into 0
}

/**
 * Where a game stands now by its last Clock: `t + (now − receivedAt) × speed` (wall ms of the host's clock).
 * A clock read before it arrived (now < receivedAt) counts as just arrived.
 */
export function extrapolate(clock: Pick<ReceivedClock, 't' | 'speed' | 'receivedAt'>, now: number): number {
  return clock.t + Math.max(0, now - clock.receivedAt) * clock.speed;
}

/** A pacing game: ready, in the session's world, not stalled, and it has reported a clock. */
export function isPacing(game: GameView): game is GameView & { clock: ReceivedClock } {
  return game.ready && game.hasWorld && game.stalled === undefined && game.clock !== undefined;
}

/** The highest extrapolated time of the pacing games; `undefined` when no pacing game has a clock. */
export function maxClock(games: Iterable<GameView>, now: number): number | undefined {
  let max: number | undefined;
  for (const game of games) {
    if (!isPacing(game)) continue;
    const at = extrapolate(game.clock, now);
    if (max === undefined || at > max) max = at;
  }
  return max;
}

/**
 * Where the host's game stands when no pacing clock is known: its last Clock, else the time its last Hello named (a
 * Hello after a resync load drops the old clock; the next Clock comes a frame later). Full-length simulator seed 447:
 * a round right after a verified one paused at futureStamp(0) = 800 while every world stood at 4600, and the round's
 * load resent every relayed item above 800, which the save held already: each applied twice.
 */
export function hostGameT(games: Readonly<Record<number, GameView>>): number | undefined {
  const host = games[0];
  return host?.clock?.t ?? host?.bestT;
}

/**
 * Where the furthest game stands, for the host's stamps (pauseAt, the running stamp): the pacing games' `maxClock`.
 * With no pacing clock (every game marked, or none has reported since a load), the furthest of where a marked game
 * may stand (`furthestMarked`) and the host's game (`hostGameT`): the host's game alone may stand far behind a marked
 * game that caught up (simulator seed 5061: a pause at 2200 where two games stood at 3800).
 */
export function furthestClock(games: Readonly<Record<number, GameView>>, now: number): number | undefined {
  const list = Object.values(games);
  const max = maxClock(list, now);
  if (max !== undefined) return max;
  const marked = furthestMarked(list, now);
  const host = hostGameT(games);
  return marked === undefined ? host : Math.max(marked, host ?? marked);
}

/** `roundUpToStep(maxClock) + (lead + 2) × STEP`: used for pauseAt and a stalled game's promise. */
export function futureStamp(maxClockValue: number, lead: number): number {
  return roundUpToStep(maxClockValue) + (lead + 2) * STEP;
}

/**
 * The furthest a marked (stalled) game with a clock may stand now, `undefined` if none has one. A marked game still
 * runs as far as its peers let it (it catches up), and when no pacing game is left it may stand past every clock
 * `maxClock` counts (simulator seed 5061: the host's game frozen and marked, a returned game marked and three steps
 * past it). Each stands at most where its clock extrapolates to, and at most at its barrier: the lowest promise its
 * peers with a clock have given, as the host relays them (a marked peer's host promise, another's highest `safe`;
 * a `need` only lowers a barrier and is left out). `except`: a game that is no peer of anyone yet (a returner).
 */
export function furthestMarked(games: readonly GameView[], now: number, except?: number): number | undefined {
  const peers = games.filter((game) => game.id !== except && game.ready && game.hasWorld && game.clock !== undefined);
  let furthest: number | undefined;
  for (const game of peers) {
    if (game.stalled === undefined) continue;
    const at = Math.min(extrapolate(game.clock!, now), cutOffBound(peers, game.id));
    if (furthest === undefined || at > furthest) furthest = at;
  }
  return furthest;
}

/**
 * The furthest game `id` can run while it hears nothing new (it waits for nobody else, or its connection dropped):
 * the lowest promise its peers with a clock have given, as the host relays them, since its barrier never lies past
 * it. +∞ when it has no such peer (a game alone runs freely).
 */
export function cutOffBound(games: readonly GameView[], id: number): number {
  let bound = Number.POSITIVE_INFINITY;
  for (const peer of games) {
    if (peer.id === id || !peer.ready || !peer.hasWorld || peer.clock === undefined) continue;
    bound = Math.min(bound, relayedPromise(peer));
  }
  return bound;
}

/** The promise a game's peers keep to, as the host relays it (rules/relay.ts `peerClockOf`). */
function relayedPromise(game: GameView): number {
  if (game.stalled !== undefined) return game.stalled.promise;
  return game.bestSafe ?? game.clock?.safe ?? game.clock?.t ?? Number.POSITIVE_INFINITY;
}
