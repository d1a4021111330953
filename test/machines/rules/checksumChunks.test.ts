// Chunk sizing and spread (machines/rules/checksumChunks.ts; spec "Chunk size and detail", "Spread full rounds").
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHUNK_BUDGET_NS,
  DEFAULT_CHUNK,
  MAX_CHUNK,
  MIN_CHUNK,
  chunkChangeText,
  chunkFor,
  createChunkSizing,
  recordCost,
  resize,
  spreadSteps,
} from '../../../machines/rules/checksumChunks.ts';

describe('chunk sizing', () => {
  it('sizes the chunk so the slowest game spends about 12 ms a step, at most twice the last, 50..4000', () => {
    expect(chunkFor(60_000, 200)).toBe(200); // 12 ms / 60 µs = 200
    expect(chunkFor(1_000, 200)).toBe(400); // would be 12 000: at most twice the last
    expect(chunkFor(1_000, 3_000)).toBe(MAX_CHUNK);
    expect(chunkFor(10_000_000, 200)).toBe(MIN_CHUNK);
    expect(chunkFor(120_000, 200)).toBe(100); // shrinking has no step limit
  });

  it('takes the dearest of each present game’s last three rounds; a game gone no longer counts', () => {
    let s = createChunkSizing();
    for (const ns of [90_000, 10_000, 10_000, 10_000]) s = recordCost(s, 1, ns); // the 90 µs round is 4 rounds old
    s = recordCost(s, 2, 30_000);
    const a = resize(s, [0, 1, 2]);
    expect(a.sizing.chunk).toBe(400); // 12 ms / 30 µs = 400, twice 200
    expect(a.change).toEqual({ from: DEFAULT_CHUNK, to: 400, game: 2, entityNs: 30_000 });
    expect(chunkChangeText(a.change!, 'bo')).toBe('checksum chunk: 400 entities a step from now on (slowest bo: 30.00 µs an entity, was 200)');
    const b = resize(a.sizing, [0, 1]);
    expect(b.sizing.chunk).toBe(800);
    expect(b.sizing.costs.has(2)).toBe(false);
    expect(resize(b.sizing, [0, 1]).sizing.chunk).toBe(1200);
    expect(resize(resize(b.sizing, [0, 1]).sizing, [0, 1]).change).toBeUndefined(); // 12 ms / 10 µs reached: no change
  });

  it('without costs the chunk stays; a cost that is not a positive number is ignored', () => {
    const s = recordCost(recordCost(createChunkSizing(), 1, 0), 1, Number.NaN);
    expect(resize(s, [1])).toEqual({ sizing: { chunk: DEFAULT_CHUNK, costs: new Map() } });
  });

  it('the chunk stays within 50..4000 and within the budget unless the floor forbids it (random costs)', () => {
    // Costs of one regime a run: any (1 ns..10 ms an entity), cheap (the chunk climbs to 4000), dear (down to 50), or
    // cheap and dear mixed (up and down).
    const cost = (min: number, max: number) => fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min, max, noNaN: true }));
    const [any, cheap, dear] = [cost(1, 1e7), cost(100, 3_000), cost(240_000, 1e7)];
    const runs = fc.oneof(...[any, cheap, dear, fc.oneof(cheap, dear)].map((c) => fc.array(c, { minLength: 1, maxLength: 60 })));
    // Coverage: sizing steps that grew, were held to twice the last, shrank, stayed, and hit 50 and 4000.
    const seen = { grew: 0, cappedAtTwice: 0, shrank: 0, unchanged: 0, atMin: 0, atMax: 0 };
    fc.assert(
      fc.property(runs, (costs) => {
        let s = createChunkSizing();
        for (const [game, ns] of costs) {
          const last = s.chunk;
          s = resize(recordCost(s, game, ns), [0, 1, 2, 3]).sizing;
          expect(s.chunk).toBeGreaterThanOrEqual(MIN_CHUNK);
          expect(s.chunk).toBeLessThanOrEqual(Math.min(MAX_CHUNK, 2 * last));
          const worst = Math.max(...[...s.costs.values()].flat());
          if (s.chunk > MIN_CHUNK) expect(s.chunk * worst).toBeLessThanOrEqual(CHUNK_BUDGET_NS);
          if (s.chunk > last) seen.grew++;
          if (s.chunk === 2 * last && Math.floor(CHUNK_BUDGET_NS / worst) > 2 * last) seen.cappedAtTwice++;
          if (s.chunk < last) seen.shrank++;
          if (s.chunk === last) seen.unchanged++;
          if (s.chunk === MIN_CHUNK && last !== MIN_CHUNK) seen.atMin++;
          if (s.chunk === MAX_CHUNK && last !== MAX_CHUNK) seen.atMax++;
        }
      }),
      { numRuns: 200, seed: 4000 },
    );
    // Floors, about half of what seed 4000 reaches in 200 runs (295 grew, 265 held to twice, 153 shrank, 768 stayed,
    // 138 hit 50, 29 hit 4000).
    expect(seen.grew).toBeGreaterThanOrEqual(150);
    expect(seen.cappedAtTwice).toBeGreaterThanOrEqual(130);
    expect(seen.shrank).toBeGreaterThanOrEqual(75);
    expect(seen.unchanged).toBeGreaterThanOrEqual(380);
    expect(seen.atMin).toBeGreaterThanOrEqual(70);
    expect(seen.atMax).toBeGreaterThanOrEqual(15);
  });

  it('spread is the game speed, 1..4 steps', () => {
    expect([0, 1, 2, 4, 8].map(spreadSteps)).toEqual([1, 1, 2, 4, 4]);
  });
});
