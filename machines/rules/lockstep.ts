// The host's lockstep rules in one place (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12, Clock 31,
// Action 50): the start check lives here, the other rules in their own files, re-exported for the chart.
import type { Games } from './hostGames.ts';
import type { GameView, ReceivedClock, StallMark, StartOutsider } from './lockstepTypes.ts';
import { futureStamp } from './stamps.ts';

export * from './category.ts';
export * from './hop.ts';
export * from './hostGames.ts';
export * from './lead.ts';
export * from './pauseOrder.ts';
export * from './relay.ts';
export * from './stall.ts';
export * from './stamps.ts';

/**
 * The outcome of the start check: the common time (the host game's) and the games that stand elsewhere and start as
 * outsiders, or why the host waits.
 */
export type StartCheck = { ok: true; t: number; outsiders: StartOutsider[] } | { ok: false; waiting: string };

/** A ready game as the start check sees it. */
export interface ReadyGame {
  id: number;
  clock?: Pick<ReceivedClock, 't'>;
  /** The time its Hello named (none for a game that came back before the start without a Hello). */
  helloTime?: number;
}

const list = (ids: readonly number[]): string => ids.join(', ');

/**
 * Whether a ready game stands at another time than the host's game (spec "Outsiders": "the session starts with games
 * at different times"): its clock's `t` differs from the host game's, or the time its Hello named differs from the
 * host game's Hello (the loaded world's time; a game stands still before the start, so the two agree unless a game
 * loaded another world and ran to the host's time, or moved away from the world it loaded). A game with no Hello time
 * (it came back before the start) is compared by its clock only.
 */
export function standsApart(game: ReadyGame, host: ReadyGame): boolean {
  if (game.clock!.t !== host.clock!.t) return true;
  return game.helloTime !== undefined && host.helloTime !== undefined && game.helloTime !== host.helloTime;
}

/**
 * The start check over the ready games. The host's game (always required) and every other ready game must have
 * reported a clock since its Hello; then the session starts at the host game's time, the reference, and every game
 * that stands apart from it (standsApart) starts as an outsider: a resync round copies the host's world to it
 * (DECISIONS "Host lockstep: a session that starts with games at different times starts with a round"). A
 * relay-only host (`hostGame` false) has no world to copy: it starts only when every ready game stands at one time,
 * and otherwise `waiting` says why, naming the games by id.
 */
export function startCheck(readyGames: readonly ReadyGame[], hostGame = true): StartCheck {
  const games = [...readyGames].sort((a, b) => a.id - b.id);
  if (hostGame && !games.some((game) => game.id === 0)) return { ok: false, waiting: "the host's game has not said hello yet" };
  if (games.length === 0) return { ok: false, waiting: 'no game has said hello yet' };
  const silent = games.filter((game) => game.clock === undefined).map((game) => game.id);
  if (silent.length > 0) return { ok: false, waiting: `waiting for a clock from game ${list(silent)}` };
  if (hostGame) {
    const host = games.find((game) => game.id === 0)!;
    const outsiders = games
      .filter((game) => game.id !== 0 && standsApart(game, host))
      .map((game): StartOutsider => {
        const t = game.clock!.t;
        return game.helloTime === undefined || game.helloTime === t ? { id: game.id, t } : { id: game.id, t, helloTime: game.helloTime };
      });
    return { ok: true, t: host.clock!.t, outsiders };
  }
  const byTime = new Map<number, number[]>();
  for (const game of games) {
    const t = game.clock!.t;
    byTime.set(t, [...(byTime.get(t) ?? []), game.id]);
  }
  if (byTime.size === 1) return { ok: true, t: games[0]!.clock!.t, outsiders: [] };
  const where = [...byTime].map(([t, ids]) => `${list(ids)} at ${t}`).join('; ');
  const waiting = `the games stand at different times (game ${where}); every game must load the same save (a host without a game of its own has no world to copy)`;
  return { ok: false, waiting };
}

/** What decides where a pause stops. */
export interface PauseInput {
  /** The pauseAt in force, if any: it is kept. */
  pauseAt: number | undefined;
  /** The session has run (been unpaused) since it started. */
  ran: boolean;
  /** The t the host's game stands at (its last clock). */
  hostT: number | undefined;
  /** maxClock over the pacing games now. */
  maxClock: number | undefined;
  lead: number;
}

/**
 * pauseAt for a pause (spec "Pausing"; lockstep.md "Pause, speed and the pause order"): a pause in force is kept;
 * a session that never ran pauses at the step the host's game stands at; otherwise futureStamp(maxClock, lead).
 */
export function pauseAtFor({ pauseAt, ran, hostT, maxClock: max, lead }: PauseInput): number {
  if (pauseAt !== undefined) return pauseAt;
  if (!ran && hostT !== undefined) return hostT;
  return futureStamp(max ?? hostT ?? 0, lead);
}

/**
 * A game that came back and is caught up (wire-protocol "Reconnect", "Catching up"; lockstep.md "Catching up"): its
 * game kept its world and the host resends what it missed, so it is ready with the session's world (never an
 * outsider), whatever the lockstep knew of it before (its view went with `game.left`; one still there is replaced).
 * Its clock is unknown until its first Clock after the return. `mark`: in a started session, the host's promise for
 * it (it catches up as a stalled game); none before the start. The host's own game never leaves, so never returns.
 */
export function returnGame(games: Games, id: number, now: number, mark: StallMark | undefined, hasWorld = true): Games {
  if (id === 0) return games;
  const game: GameView = { id, ready: true, hasWorld, advancedAt: now };
  if (mark !== undefined) game.stalled = mark;
  return { ...games, [id]: game };
}
