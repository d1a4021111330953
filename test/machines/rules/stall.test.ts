// Stalled games (lockstep.md "Stalls and outsiders"; prior-projects §2.6 H6).
import { describe, expect, it } from 'vitest';
import type { GameView } from '../../../machines/rules/lockstepTypes.ts';
import { futureStamp } from '../../../machines/rules/stamps.ts';
import { promiseOf, stalledGames, updateStalls } from '../../../machines/rules/stall.ts';

function game(id: number, t: number, safe: number, advancedAt: number, extra: Partial<GameView> = {}): GameView {
  const clock = { t, speed: 0 as const, ahead: 4, safe, receivedAt: advancedAt };
  return { id, ready: true, hasWorld: true, advancedAt, clock, ...extra };
}

describe('promiseOf', () => {
  it('is min(safe, need), or t without safe', () => {
    expect(promiseOf({ t: 1000, safe: 1800 })).toBe(1800);
    expect(promiseOf({ t: 1000, safe: 1800, need: 1400 })).toBe(1400);
    expect(promiseOf({ t: 1000 })).toBe(1000);
  });
});

describe('stalledGames', () => {
  // Game 1 stands at 1000 promising 1800; game 0 waits at 1800, its barrier.
  const games = [game(0, 1800, 2600, 30_000), game(1, 1000, 1800, 5_000)];

  it('marks a game that stood 20 s while another waits at its promise', () => {
    expect(stalledGames({ games, now: 25_000, running: true })).toEqual([1]);
    expect(stalledGames({ games, now: 24_999, running: true })).toEqual([]);
  });

  it('marks nothing while the session does not run', () => {
    expect(stalledGames({ games, now: 60_000, running: false })).toEqual([]);
  });

  it('needs another game at the barrier', () => {
    const nobodyWaits = [game(0, 1600, 2400, 30_000), game(1, 1000, 1800, 5_000)];
    expect(stalledGames({ games: nobodyWaits, now: 60_000, running: true })).toEqual([]);
  });

  it('gives a loading game 5 minutes', () => {
    const loading = new Set([1]);
    expect(stalledGames({ games, now: 304_999, running: true, loading })).toEqual([]);
    expect(stalledGames({ games, now: 305_000, running: true, loading })).toEqual([1]);
  });

  it('never marks an outsider, a marked game, or a game that waits on a non-pacing one', () => {
    const outsider = [game(0, 1800, 2600, 30_000), game(1, 1000, 1800, 5_000, { hasWorld: false })];
    expect(stalledGames({ games: outsider, now: 60_000, running: true })).toEqual([]);
    const stalled = { promise: 3000, since: 1, t: 1000 };
    const marked = [game(0, 1800, 2600, 30_000), game(1, 1000, 1800, 5_000, { stalled })];
    expect(stalledGames({ games: marked, now: 60_000, running: true })).toEqual([]);
  });
});

describe('updateStalls', () => {
  const lead = 4;

  it('marks with the host’s promise = futureStamp over the other pacing games', () => {
    const games = [game(0, 1800, 2600, 30_000), game(1, 1000, 1800, 5_000)];
    const update = updateStalls({ games, now: 25_000, running: true, lead });
    expect(update.marked).toEqual([1]);
    expect(update.games[1]!.stalled).toEqual({ promise: futureStamp(1800, lead), since: 25_000, t: 1000 });
  });

  it('raises the promise while the stalled game stands still and the others run on', () => {
    const mark = { promise: futureStamp(1800, lead), since: 25_000, t: 1000 };
    const games = [
      { ...game(0, 3000, 3800, 40_000), clock: { ...game(0, 3000, 3800, 40_000).clock!, speed: 1 as const } },
      game(1, 1000, 1800, 5_000, { stalled: mark }),
    ];
    const update = updateStalls({ games, now: 40_000, running: true, lead });
    expect(update.raised).toEqual([1]);
    expect(update.games[1]!.stalled!.promise).toBe(futureStamp(3000, lead));
  });

  it('keeps the promise once the stalled game moves again, and ends the mark when it gets there', () => {
    const mark = { promise: 3000, since: 25_000, t: 1000 };
    const running = { t: 3000, speed: 1 as const, ahead: 4, safe: 3800, receivedAt: 40_000 };
    const moving = [{ ...game(0, 3000, 3800, 40_000), clock: running }, game(1, 1200, 2000, 39_000, { stalled: mark })];
    const kept = updateStalls({ games: moving, now: 40_000, running: true, lead });
    expect(kept.raised).toEqual([]);
    expect(kept.games[1]!.stalled).toEqual(mark);
    const arrived = [
      { ...game(0, 3000, 3800, 40_000), clock: running },
      game(1, 3000, 3800, 45_000, { stalled: mark }),
    ];
    const ended = updateStalls({ games: arrived, now: 45_000, running: true, lead });
    expect(ended.cleared).toEqual([1]);
    expect(ended.games[1]!.stalled).toBeUndefined();
  });

  it('does not raise a promise while paused', () => {
    const mark = { promise: 2000, since: 25_000, t: 1000 };
    const games = [game(0, 5000, 5800, 40_000), game(1, 1000, 1800, 5_000, { stalled: mark })];
    expect(updateStalls({ games, now: 40_000, running: false, lead }).raised).toEqual([]);
  });
});
