// What the host knows of each game, kept as a record by id (lockstep.md "The game's clock line", "Stalls and
// outsiders"; spec "Outsiders"): joins, leaves, Hello, the last Clock, and when each game's t last advanced. The
// stall mark of a game is the lockstep's view of what the game's pacing chart (machines/pacing.ts) told it.
import type { ClockPayload, GameView, StallMark } from './lockstepTypes.ts';
import type { SessionState } from './relay.ts';
import { isPacing } from './stamps.ts';

/** The games by id. Player 0 (the host's own game) is always there. */
export type Games = Readonly<Record<number, GameView>>;

/** The host's own game only, not ready until its Hello. */
export function createGames(now: number): Games {
  return { 0: { id: 0, ready: false, hasWorld: true, advancedAt: now } };
}

/** The games in id order. */
export function gameList(games: Games): GameView[] {
  return Object.values(games).sort((a, b) => a.id - b.id);
}

/** A player joined: not ready until its Hello; in a started session its world is not the session's. */
export function joinGame(games: Games, id: number, started: boolean, now: number): Games {
  if (games[id] !== undefined) return games;
  return { ...games, [id]: { id, ready: false, hasWorld: !started, advancedAt: now } };
}

/** A player left: it counts for nothing any more. The host's own game never leaves. */
export function leaveGame(games: Games, id: number): Games {
  if (id === 0 || games[id] === undefined) return games;
  const { [id]: _gone, ...rest } = games;
  return rest;
}

/**
 * A Hello: the game is loaded and ready; its clock from before is dropped. In a started session a player's game
 * becomes an outsider until a resync round loads the session's world into it: the Hello of that load (`loaded`)
 * ends the mark (spec "Outsiders"); the host's own game holds the session's world by definition.
 */
export function helloGame(games: Games, id: number, started: boolean, now: number, time?: number, loaded = false): Games {
  const game = games[id];
  if (game === undefined) return games;
  const { clock: _old, stalled: _mark, bestSafe: _promise, bestT: _best, ...rest } = game;
  const best = time === undefined ? {} : { bestT: time };
  return { ...games, [id]: { ...rest, ...best, ready: true, hasWorld: id === 0 || !started || loaded, advancedAt: now } };
}

/**
 * The `need` of a game's Clock the host takes (lockstep.md "Clocks": the stamp of one held build made in a pause, below
 * the game's promise). The peers can keep to it only if none of them can have passed it: the session stands still
 * (paused or not started) and the pause does not stop the games past it. A need that comes while the session runs
 * (the game had not read the resume yet: the simulator's seed 4759, its commit applied late on every other game) or
 * below the pause is left out, so its BuildCommit at that stamp is refused on every game (rules/screen.ts
 * `stampRefusal`). A need the host took once stays taken on the game's later Clocks, which repeat it until the commit
 * is sent: the peers have held to it since its first PeerClock.
 */
export function takenNeed(game: GameView, payload: ClockPayload, session: SessionState): number | undefined {
  const need = payload.need;
  if (need === undefined || need === game.clock?.need) return need;
  if (session.speed !== 0) return undefined;
  if (session.pauseAt !== undefined && need < session.pauseAt) return undefined;
  return need;
}

/**
 * Stores a game's Clock with the host's clock at arrival, its `need` only as `takenNeed` takes it. Its t advanced when
 * it is past the furthest one it has reported (a clock that goes back and forth does not advance). Its promise is the
 * highest `safe` so far. A stall mark is left as it is: whether the clock ends it is its pacing chart's decision
 * (machines/pacing.ts).
 */
export function storeClock(games: Games, id: number, payload: ClockPayload, now: number, session: SessionState): Games {
  const game = games[id];
  if (game === undefined) return games;
  const best = game.bestT ?? game.clock?.t;
  const advanced = best === undefined || payload.t > best;
  // Copied once as it came (the common case: no need, or the need taken); only a need left out is taken off.
  const clock = { ...payload, receivedAt: now };
  if (takenNeed(game, payload, session) !== payload.need) delete clock.need;
  const next: GameView = { ...game, clock, advancedAt: advanced ? now : game.advancedAt, bestT: Math.max(best ?? 0, payload.t) };
  const bestSafe = Math.max(game.bestSafe ?? 0, payload.safe ?? 0);
  if (payload.safe !== undefined || game.bestSafe !== undefined) next.bestSafe = bestSafe;
  return { ...games, [id]: next };
}

/** Running time starts now for every game (a pause does not count towards a stall). */
export function startRunningTime(games: Games, now: number): Games {
  return Object.fromEntries(Object.values(games).map((g) => [g.id, { ...g, advancedAt: Math.max(g.advancedAt, now) }]));
}

/** The ids of the pacing games (ready, with the session's world, not stalled, with a clock). */
export function pacingIds(games: Games): number[] {
  return gameList(games)
    .filter(isPacing)
    .map((g) => g.id);
}

/** The games whose last clock says they stand still at the pause: id → t. */
export function stopsOf(games: Games): Map<number, number> {
  const stops = new Map<number, number>();
  for (const game of gameList(games)) if (game.clock?.stop === true) stops.set(game.id, game.clock.t);
  return stops;
}

/** The ids of the marked (stalled) games, for Session.stalled. */
export function stalledIds(games: Games): number[] {
  return gameList(games)
    .filter((g) => g.stalled !== undefined)
    .map((g) => g.id);
}

/** The lockstep's view of a game's stall mark, as its pacing chart reported it (undefined: the mark ended). */
export function markGame(games: Games, id: number, mark: StallMark | undefined): Games {
  const game = games[id];
  if (game === undefined) return games;
  if (mark !== undefined) return { ...games, [id]: { ...game, stalled: mark } };
  const { stalled: _ended, ...rest } = game;
  return { ...games, [id]: rest };
}
