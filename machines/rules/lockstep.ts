// The host's lockstep rules in one place (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12, Clock 31,
// Action 50): the start check lives here, the other rules in their own files, re-exported for the chart.
import type { ReceivedClock } from './lockstepTypes.ts';
import { futureStamp } from './stamps.ts';

export * from './category.ts';
export * from './hop.ts';
export * from './hostGames.ts';
export * from './lead.ts';
export * from './pauseOrder.ts';
export * from './relay.ts';
export * from './stall.ts';
export * from './stamps.ts';

/** The outcome of the start check: the common time, or why the host waits. */
export type StartCheck = { ok: true; t: number } | { ok: false; waiting: string };

/** A ready game as the start check sees it. */
export interface ReadyGame {
  id: number;
  clock?: Pick<ReceivedClock, 't'>;
}

const list = (ids: readonly number[]): string => ids.join(', ');

/**
 * Until the resync round exists the host starts only when the host's game and every other ready game have
 * reported a clock and stand at the same time. Otherwise `waiting` says why, naming the games by id.
 */
export function startCheck(readyGames: readonly ReadyGame[], hostGame = true): StartCheck {
  const games = [...readyGames].sort((a, b) => a.id - b.id);
  if (hostGame && !games.some((game) => game.id === 0)) return { ok: false, waiting: "the host's game has not said hello yet" };
  if (games.length === 0) return { ok: false, waiting: 'no game has said hello yet' };
  const silent = games.filter((game) => game.clock === undefined).map((game) => game.id);
  if (silent.length > 0) return { ok: false, waiting: `waiting for a clock from game ${list(silent)}` };
  const byTime = new Map<number, number[]>();
  for (const game of games) {
    const t = game.clock!.t;
    byTime.set(t, [...(byTime.get(t) ?? []), game.id]);
  }
  if (byTime.size === 1) return { ok: true, t: games[0]!.clock!.t };
  const where = [...byTime].map(([t, ids]) => `${list(ids)} at ${t}`).join('; ');
  const waiting = `the games stand at different times (game ${where}); every game must load the same save`;
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
