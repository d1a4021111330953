// The host's stamps (lockstep.md "Units", "The host's stamps"): STEP, roundUpToStep, extrapolate, maxClock,
// futureStamp — worked examples and properties (futureStamp ≥ maxClock + 2 steps, on a step boundary); where a marked
// game may stand (furthestMarked) and the stamps' base without a pacing game (furthestClock).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GameView } from '../../../machines/rules/lockstepTypes.ts';
import {
  STEP,
  extrapolate,
  furthestClock,
  furthestMarked,
  futureStamp,
  isPacing,
  maxClock,
  roundUpToStep,
} from '../../../machines/rules/stamps.ts';

type Speed = 0 | 1 | 2 | 4;

function game(id: number, t: number, speed: Speed, receivedAt: number, extra: Partial<GameView> = {}): GameView {
  return { id, ready: true, hasWorld: true, advancedAt: 0, clock: { t, speed, ahead: 4, receivedAt }, ...extra };
}

describe('roundUpToStep', () => {
  it('rounds up to the next 200 game-ms and keeps a boundary', () => {
    expect(STEP).toBe(200);
    expect(roundUpToStep(0)).toBe(0);
    expect(roundUpToStep(1)).toBe(200);
    expect(roundUpToStep(200)).toBe(200);
    expect(roundUpToStep(10_341_801)).toBe(10_342_000);
    expect(Object.is(roundUpToStep(-0.5), 0)).toBe(true);
  });

  it('gives the smallest step boundary at or after t (game times are integers)', () => {
    // Times on a step boundary mixed in (a random t is on one once in 200): both branches, counted.
    const seen = { on: 0, off: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.nat(2 ** 45), fc.nat(2 ** 37).map((k) => k * STEP)), (t) => {
        const r = roundUpToStep(t);
        expect(r % STEP).toBe(0);
        expect(r).toBeGreaterThanOrEqual(t);
        expect(r - t).toBeLessThan(STEP);
        seen[t % STEP === 0 ? 'on' : 'off']++;
      }),
    );
    expect(seen.on).toBeGreaterThanOrEqual(25);
    expect(seen.off).toBeGreaterThanOrEqual(25);
  });

  it('never lands below a fractional t either (sub-nanosecond values left out: t / STEP underflows)', () => {
    const seen = { fractional: 0, whole: 0 };
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1e12, noNaN: true }), (t) => {
        expect(roundUpToStep(t)).toBeGreaterThanOrEqual(t);
        expect(roundUpToStep(t) % STEP).toBe(0);
        seen[Number.isInteger(t) ? 'whole' : 'fractional']++;
      }),
    );
    expect(seen.fractional).toBeGreaterThanOrEqual(50);
  });
});

describe('extrapolate', () => {
  it('advances speed game-ms per wall-ms since the clock arrived', () => {
    expect(extrapolate({ t: 1000, speed: 1, receivedAt: 50 }, 50)).toBe(1000);
    expect(extrapolate({ t: 1000, speed: 1, receivedAt: 50 }, 350)).toBe(1300);
    expect(extrapolate({ t: 1000, speed: 4, receivedAt: 50 }, 350)).toBe(2200);
    expect(extrapolate({ t: 1000, speed: 0, receivedAt: 50 }, 99_999)).toBe(1000);
  });

  it('never goes back before t when the host clock reads earlier than the arrival', () => {
    expect(extrapolate({ t: 1000, speed: 2, receivedAt: 500 }, 100)).toBe(1000);
  });

  it('is monotone in now', () => {
    const seen = { moved: 0, standing: 0 };
    fc.assert(
      fc.property(
        fc.nat(1e9),
        fc.constantFrom(0, 1, 2, 4),
        fc.nat(1e6),
        fc.nat(1e6),
        fc.nat(1e6),
        (t, speed, receivedAt, a, b) => {
          const [early, late] = a <= b ? [a, b] : [b, a];
          const clock = { t, speed, receivedAt };
          expect(extrapolate(clock, late)).toBeGreaterThanOrEqual(extrapolate(clock, early));
          if (speed > 0 && extrapolate(clock, late) > extrapolate(clock, early)) seen.moved++;
          if (speed === 0) seen.standing++;
        },
      ),
    );
    // Moving clocks that did advance between the two moments, and standing ones (about 40 and 25 of 100).
    expect(seen.moved).toBeGreaterThanOrEqual(10);
    expect(seen.standing).toBeGreaterThanOrEqual(8);
  });
});

describe('maxClock', () => {
  it('takes the highest extrapolated time of the pacing games only', () => {
    const games = [
      game(0, 1000, 1, 0),
      game(1, 1400, 0, 0),
      game(2, 9000, 1, 0, { hasWorld: false }), // outsider
      game(3, 9000, 1, 0, { stalled: { promise: 5000, since: 0, t: 9000 } }),
      game(4, 9000, 1, 0, { ready: false }),
      { id: 5, ready: true, hasWorld: true, advancedAt: 0 }, // no clock yet
    ];
    expect(maxClock(games, 300)).toBe(1400);
    expect(maxClock(games, 500)).toBe(1500);
    expect(games.filter(isPacing).map((g) => g.id)).toEqual([0, 1]);
  });

  it('is undefined without a pacing game', () => {
    expect(maxClock([], 0)).toBeUndefined();
    expect(maxClock([game(1, 100, 1, 0, { hasWorld: false })], 0)).toBeUndefined();
  });

  it('is at least every pacing game’s extrapolated time', () => {
    const arbGame = fc.record({ t: fc.nat(1e9), speed: fc.constantFrom(0, 1, 2, 4), at: fc.nat(1e5) });
    const seen = { several: 0, extrapolated: 0 };
    fc.assert(
      fc.property(fc.array(arbGame, { minLength: 1, maxLength: 8 }), fc.nat(2e5), (specs, now) => {
        const games = specs.map((s, i) => game(i, s.t, s.speed as 0 | 1 | 2 | 4, s.at));
        const max = maxClock(games, now)!;
        for (const g of games) expect(max).toBeGreaterThanOrEqual(extrapolate(g.clock!, now));
        expect(games.some((g) => extrapolate(g.clock!, now) === max)).toBe(true);
        if (games.length > 1) seen.several++;
        const top = games.find((g) => extrapolate(g.clock!, now) === max)!;
        if (top.clock!.t !== max) seen.extrapolated++;
      }),
    );
    // Several games, and a maximum that is an extrapolation, not a reported t (expected: about 85 and 45 of 100).
    expect(seen.several).toBeGreaterThanOrEqual(40);
    expect(seen.extrapolated).toBeGreaterThanOrEqual(15);
  });
});

describe('futureStamp', () => {
  it('lies (lead + 2) steps past maxClock rounded up to a step', () => {
    expect(futureStamp(10_341_800, 2)).toBe(10_341_800 + 4 * STEP);
    expect(futureStamp(10_341_801, 4)).toBe(10_342_000 + 6 * STEP);
    expect(futureStamp(0, 32)).toBe(34 * STEP);
  });

  it('is a step boundary at least maxClock + 2 steps (+ lead steps) ahead', () => {
    const seen = { on: 0, off: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.nat(2 ** 45), fc.nat(2 ** 37).map((k) => k * STEP)), fc.integer({ min: 2, max: 32 }), (max, lead) => {
        seen[max % STEP === 0 ? 'on' : 'off']++;
        const stamp = futureStamp(max, lead);
        expect(stamp % STEP).toBe(0);
        expect(stamp).toBeGreaterThanOrEqual(max + 2 * STEP);
        expect(stamp).toBeGreaterThanOrEqual(max + (lead + 2) * STEP);
        expect(stamp).toBeLessThan(max + (lead + 3) * STEP);
      }),
    );
    // maxClock on a step boundary and off one (about 50 each of 100).
    expect(seen.on).toBeGreaterThanOrEqual(25);
    expect(seen.off).toBeGreaterThanOrEqual(25);
  });
});

describe('furthestMarked: where a marked (stalled) game may stand', () => {
  const mark = (promise: number) => ({ stalled: { promise, since: 0 } });

  it('is undefined without a marked game that has a clock; pacing games are not its business', () => {
    expect(furthestMarked([game(0, 5_000, 1, 0), game(1, 9_000, 0, 0)], 1_000)).toBeUndefined();
    const returner: GameView = { id: 2, ready: true, hasWorld: true, advancedAt: 0, ...mark(20_000) }; // no clock yet
    expect(furthestMarked([game(0, 5_000, 1, 0), returner], 1_000)).toBeUndefined();
  });

  it('extrapolates a marked game’s clock, bounded by the promise each peer with a clock gave', () => {
    // game 1 marked, its clock at 4 000 said speed 1 ten seconds ago: 14 000 by its clock alone
    const marked = game(1, 4_000, 1, 0, mark(30_000));
    expect(furthestMarked([marked], 10_000)).toBe(14_000); // alone: nobody bounds it
    // a marked peer bounds it by the host's promise; a pacing one by its highest safe, else its clock's, else its t
    expect(furthestMarked([marked, game(0, 0, 0, 0, mark(6_000))], 10_000)).toBe(6_000);
    expect(furthestMarked([marked, game(0, 5_000, 0, 0, { bestSafe: 5_400 })], 10_000)).toBe(5_400);
    const withSafe = game(0, 5_000, 0, 0);
    withSafe.clock!.safe = 5_800;
    expect(furthestMarked([marked, withSafe], 10_000)).toBe(5_800);
    expect(furthestMarked([marked, game(0, 5_000, 0, 0)], 10_000)).toBe(5_000);
    // the lowest peer bounds it
    expect(furthestMarked([marked, game(0, 0, 0, 0, mark(6_000)), game(2, 5_000, 0, 0, { bestSafe: 5_400 })], 10_000)).toBe(5_400);
  });

  it('takes the furthest of the marked games; `except` (a returner) and games outside the world neither count nor bound', () => {
    const a = game(1, 7_000, 0, 0, mark(9_000));
    const b = game(2, 3_000, 0, 0, mark(12_000));
    expect(furthestMarked([a, b], 1_000)).toBe(7_000); // each within the other's promise
    expect(furthestMarked([a, game(3, 0, 0, 0, mark(1_000))], 1_000, 3)).toBe(7_000); // 3 bounds nobody
    expect(furthestMarked([a, game(3, 0, 0, 0, mark(1_000))], 1_000)).toBe(1_000);
    expect(furthestMarked([a, game(3, 0, 0, 0, { hasWorld: false })], 1_000)).toBe(7_000); // an outsider bounds nobody
    expect(furthestMarked([a, game(3, 0, 0, 0, { ready: false })], 1_000)).toBe(7_000);
    expect(furthestMarked([game(1, 7_000, 0, 0, { ...mark(9_000), hasWorld: false })], 1_000)).toBeUndefined();
  });
});

describe('furthestClock: the base of the host’s stamps', () => {
  const mark = (promise: number) => ({ stalled: { promise, since: 0 } });

  it('is maxClock while a pacing game has a clock, a marked game further on notwithstanding', () => {
    const games = { 0: game(0, 5_000, 0, 0), 1: game(1, 5_600, 0, 0, mark(6_000)) };
    expect(furthestClock(games, 1_000)).toBe(5_000);
  });

  it('without a pacing clock: the further of a marked game and the host’s game', () => {
    const frozenHost = game(0, 2_000, 0, 0, mark(4_000));
    expect(furthestClock({ 0: frozenHost, 1: game(1, 3_800, 0, 0, mark(9_000)) }, 1_000)).toBe(3_800);
    expect(furthestClock({ 0: game(0, 2_000, 0, 0, { ...mark(4_000), bestT: 2_000 }) }, 1_000)).toBe(2_000);
    const helloOnly: GameView = { id: 0, ready: true, hasWorld: true, advancedAt: 0, bestT: 4_600 };
    expect(furthestClock({ 0: helloOnly, 1: game(1, 3_800, 0, 0, mark(9_000)) }, 1_000)).toBe(4_600);
    expect(furthestClock({ 0: helloOnly }, 1_000)).toBe(4_600);
    expect(furthestClock({}, 1_000)).toBeUndefined();
  });
});
