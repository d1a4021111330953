// Stalled games (lockstep.md "Stalls and outsiders"; prior-projects §2.6 H6): a pacing game whose t has not
// advanced for 20 s while the session runs and another game stands at the barrier its promise sets is marked;
// the host then promises for it (futureStamp) until its own clock reaches that promise. Each game's pacing chart
// (machines/pacing.ts) applies this rule to the lockstep's view of every game and keeps its own outcome
// (`stallOutcomeOf`): the same pass for every game, so the promise of one never counts another marked with it.
import type { ClockPayload, GameView, StallMark } from './lockstepTypes.ts';
import { extrapolate, furthestMarked, futureStamp, isPacing, maxClock } from './stamps.ts';

/** A running game whose t stands this long (while it holds another game up) is stalled. */
export const STALL_SECONDS = 20;
/** A game that is loading is never stalled before this. */
export const LOADING_STALL_SECONDS = 300;

/**
 * The barrier a game's clock sets for its peers: `min(safe, need)`. A clock without `safe` promises nothing
 * beyond where it stands, so its `t` is the barrier.
 */
export function promiseOf(clock: Pick<ClockPayload, 't' | 'safe' | 'need'>): number {
  return Math.min(clock.safe ?? clock.t, clock.need ?? Number.POSITIVE_INFINITY);
}

export interface StallInput {
  games: readonly GameView[];
  /** The host's clock (ms). */
  now: number;
  /** The session runs: started, not paused, no resync round in Loading. */
  running: boolean;
  /** Ids of games that are loading (5 minutes before they count as stalled). */
  loading?: ReadonlySet<number>;
}

/** The ids of the pacing games that are stalled now and not yet marked, in id order. */
export function stalledGames({ games, now, running, loading }: StallInput): number[] {
  if (!running) return [];
  const pacing = games.filter(isPacing);
  return pacing
    .filter((game) => {
      const limitMs = (loading?.has(game.id) ? LOADING_STALL_SECONDS : STALL_SECONDS) * 1000;
      if (now - game.advancedAt < limitMs) return false;
      const barrier = promiseOf(game.clock);
      return pacing.some((other) => other.id !== game.id && other.clock.t >= barrier);
    })
    .map((game) => game.id)
    .sort((a, b) => a - b);
}

export interface StallUpdate {
  games: GameView[];
  /** Newly marked. */
  marked: number[];
  /** Marked before, promise raised now. */
  raised: number[];
  /** Mark ended: the game's clock reached its promise. */
  cleared: number[];
}

/** Whether a marked game's clock has reached the host's promise (the mark then ends). */
export function reachedPromise(game: GameView): boolean {
  return game.stalled !== undefined && game.clock !== undefined && game.clock.t >= game.stalled.promise;
}

/**
 * Whether a marked game counts as moving, so its promise stays (the others wait there until it catches up); a game
 * that does not move gets its promise raised at each running tick. A game marked by the stall rule moves once its
 * clock stands past the `t` it was marked at (a marked game without a clock keeps its promise, as before). A game
 * that came back (`game.returned`: a mark with no `t`) has no clock until its first Clock after the return: until
 * then nobody can be told its promise (a PeerClock needs its clock), so the promise follows the pacing games and is
 * never behind them, nor behind where a marked game may stand, when its first PeerClock goes out; from its first clock
 * on it counts as moving (it runs through what it missed) and the promise stays.
 */
export function movedSinceMark(game: GameView, mark: StallMark): boolean {
  if (mark.t === undefined) return game.clock !== undefined;
  return game.clock === undefined || game.clock.t > mark.t;
}

/**
 * One stall pass at the host's tick: end the marks whose clock reached the promise, mark the newly stalled
 * games with promise = futureStamp over the remaining pacing games, and, while the session runs, raise the
 * promise of a marked game that still stands where it was marked (so the others are never held for good). Once
 * it moves again its promise stays, and the others wait there until it catches up (`movedSinceMark`). A marked game
 * with no clock (one that came back, before its first Clock) is never cleared or marked anew: both need its clock.
 */
export function updateStalls(input: StallInput & { lead: number }): StallUpdate {
  const cleared: number[] = [];
  let games: GameView[] = input.games.map((game) => {
    if (!reachedPromise(game)) return game;
    cleared.push(game.id);
    const { stalled: _ended, ...rest } = game;
    return rest;
  });
  const marked = stalledGames({ ...input, games });
  const markedSet = new Set(marked);
  const rest = games.filter((game) => !markedSet.has(game.id));
  const max = maxClock(rest, input.now);
  const raised: number[] = [];
  games = games.map((game) => {
    if (markedSet.has(game.id) && game.clock !== undefined) {
      const base = max ?? extrapolate(game.clock, input.now);
      const mark: StallMark = { promise: futureStamp(base, input.lead), since: input.now, t: game.clock.t };
      return { ...game, stalled: mark };
    }
    const mark = game.stalled;
    if (!input.running || mark === undefined || movedSinceMark(game, mark)) return game;
    // A returner before its first clock is no peer of anyone: a marked game may run past it too (returnPromise).
    const marked = mark.t === undefined ? furthestMarked(games, input.now, game.id) : undefined;
    const base = marked === undefined ? max : Math.max(max ?? marked, marked);
    if (base === undefined) return game;
    const promise = futureStamp(base, input.lead);
    if (promise <= mark.promise) return game;
    raised.push(game.id);
    return { ...game, stalled: { ...mark, promise } };
  });
  return { games, marked, raised, cleared };
}

/** What one stall pass means for one game: its mark ended, it was marked (anew), its promise rose. */
export interface StallOutcome {
  /** Its mark ended first: its clock had reached the promise. */
  ended: boolean;
  /** Marked in this pass (possibly right after its old mark ended). */
  mark?: StallMark;
  /** Marked before and still standing where it was: the promise rose to this. */
  raised?: number;
}

/**
 * The outcome of `updateStalls` over every game for the game `id` alone. Every pacing chart runs the whole pass
 * over the same view, so each one's outcome is exactly its part of the pass the lockstep ran on its own before.
 */
export function stallOutcomeOf(id: number, input: StallInput & { lead: number }): StallOutcome {
  const update = updateStalls(input);
  const ended = update.cleared.includes(id);
  const mark = update.games.find((game) => game.id === id)?.stalled;
  if (update.marked.includes(id) && mark !== undefined) return { ended, mark };
  if (update.raised.includes(id) && mark !== undefined) return { ended, raised: mark.promise };
  return { ended };
}
