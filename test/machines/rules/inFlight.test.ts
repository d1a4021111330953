// The host's count of Actions in flight (machines/rules/inFlight.ts): settling keeps the record as it is while no
// game passed a stamp (the relay's hot path makes nothing new then), prunes what every game passed and drops emptied
// origins; recording keeps each origin's stamps ascending and never changes the record it was given; the caps refuse
// the Action past them.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_IN_FLIGHT, MAX_IN_FLIGHT_PER_ORIGIN, inFlightRefusal, record, settle, type InFlight } from '../../../machines/rules/inFlight.ts';

describe('Actions in flight', () => {
  it('settles to the same record while no stamp is passed', () => {
    const inFlight: InFlight = { 1: [10, 11, 11], 3: [12] };
    const settled = settle(inFlight, 9);
    expect(settled.inFlight).toBe(inFlight);
    expect(settled.total).toBe(4);
  });

  it('prunes the passed stamps and drops an origin left with none', () => {
    const inFlight: InFlight = { 1: [10, 11, 13], 3: [12] };
    expect(settle(inFlight, 12)).toEqual({ inFlight: { 1: [13] }, total: 1 });
    expect(inFlight).toEqual({ 1: [10, 11, 13], 3: [12] });
  });

  it('records in ascending order without changing the record it was given', () => {
    const before: InFlight = { 1: [10, 12] };
    const after = record(record(before, 1, 11), 2, 5);
    expect(after).toEqual({ 1: [10, 11, 12], 2: [5] });
    expect(before).toEqual({ 1: [10, 12] });
  });

  it('refuses past the cap of one origin and past the cap of all, and not before', () => {
    let inFlight: InFlight = {};
    for (let i = 0; i < MAX_IN_FLIGHT_PER_ORIGIN - 1; i++) inFlight = record(inFlight, 1, 100 + i);
    expect(inFlightRefusal(inFlight, MAX_IN_FLIGHT_PER_ORIGIN - 1, 1)).toBeUndefined();
    inFlight = record(inFlight, 1, 999);
    expect(inFlightRefusal(inFlight, MAX_IN_FLIGHT_PER_ORIGIN, 1)).toMatch(/actions of this game are still waiting/);
    expect(inFlightRefusal(inFlight, MAX_IN_FLIGHT_PER_ORIGIN, 2)).toBeUndefined();
    expect(inFlightRefusal(inFlight, MAX_IN_FLIGHT, 2)).toMatch(/actions are still waiting/);
  });

  it('agrees with a plain model over random records and settles', () => {
    const op = fc.oneof(
      fc.record({ type: fc.constant('record' as const), from: fc.integer({ min: 1, max: 4 }), stamp: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ type: fc.constant('settle' as const), slowest: fc.integer({ min: 0, max: 40 }) }),
    );
    let settles = 0;
    let prunes = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        let inFlight: InFlight = {};
        let model: { from: number; stamp: number }[] = [];
        for (const o of ops) {
          if (o.type === 'record') {
            inFlight = record(inFlight, o.from, o.stamp);
            model.push({ from: o.from, stamp: o.stamp });
          } else {
            const settled = settle(inFlight, o.slowest);
            settles++;
            if (settled.inFlight !== inFlight) prunes++;
            inFlight = settled.inFlight;
            model = model.filter((m) => m.stamp > o.slowest);
            expect(settled.total).toBe(model.length);
          }
          for (const from of [1, 2, 3, 4]) {
            const mine = model.filter((m) => m.from === from).map((m) => m.stamp).sort((a, b) => a - b);
            expect(inFlight[from] ?? []).toEqual(mine);
          }
        }
      }),
    );
    // Both settle paths were taken: the unchanged record and a pruned one.
    expect(settles).toBeGreaterThan(50);
    expect(prunes).toBeGreaterThan(10);
    expect(prunes).toBeLessThan(settles);
  });
});
