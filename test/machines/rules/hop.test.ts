// Latency stamps on a hop through the host (spec "Latency stamps"): w, ro, rr and a player's h, so, sr are
// dropped, implausible g/l are dropped, and the host sets h, so, sr itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOP_EPOCH_MAX, HOP_EPOCH_MIN, HOP_FUTURE_MS, HOP_PAST_MS, sanitiseHop } from '../../../machines/rules/hop.ts';

const WALL = 1_790_000_000_000; // 2026-09

describe('sanitiseHop', () => {
  it('keeps plausible g and l and sets the host’s h, so, sr', () => {
    const hop = sanitiseHop({ g: WALL - 40, l: WALL - 30 }, 2, { wall: WALL, so: 0, sr: 35.5 });
    expect(hop).toEqual({ g: WALL - 40, l: WALL - 30, h: WALL, so: 0, sr: 35.5 });
  });

  it('drops w, ro, rr and a player’s own h, so, sr', () => {
    const hop = sanitiseHop({ g: WALL, l: WALL, h: 1, so: 2, sr: 3, w: WALL, ro: 4, rr: 5 }, 1, { wall: WALL });
    expect(hop).toEqual({ g: WALL, l: WALL, h: WALL });
  });

  it('judges a stamp on the host’s clock by the sender’s offset', () => {
    // The sender's clock runs 10 minutes ahead of the host's: its g is right once the offset is taken off.
    const ahead = 600_000;
    const kept = sanitiseHop({ g: WALL + ahead }, 3, { wall: WALL, so: ahead });
    expect(kept).toEqual({ g: WALL + ahead, h: WALL, so: ahead });
    expect(sanitiseHop({ g: WALL + ahead }, 3, { wall: WALL })).toEqual({ h: WALL });
  });

  it('drops implausible stamps', () => {
    const bad = [Number.NaN, -1, 0, 12, WALL - HOP_PAST_MS - 1, WALL + HOP_FUTURE_MS + 1, '1790000000000', null, {}];
    for (const g of bad) expect(sanitiseHop({ g, l: g }, 1, { wall: WALL })).toEqual({ h: WALL });
    expect(sanitiseHop({ g: WALL - HOP_PAST_MS, l: WALL + HOP_FUTURE_MS }, 1, { wall: WALL })).toEqual({
      g: WALL - HOP_PAST_MS,
      l: WALL + HOP_FUTURE_MS,
      h: WALL,
    });
  });

  it('without the host’s wall clock still wants ms since 1970', () => {
    expect(sanitiseHop({ g: WALL, l: 5 }, 1)).toEqual({ g: WALL });
    expect(sanitiseHop({ g: 5 }, 1)).toBeUndefined();
    expect(sanitiseHop(undefined, 1)).toBeUndefined();
  });

  it('gives the host’s own game no offset or round trip', () => {
    expect(sanitiseHop({ g: WALL }, 0, { wall: WALL, so: 50, sr: 12 })).toEqual({ g: WALL, h: WALL });
  });

  // Plausible stamps: a game's g and l are its wall clock when it wrote the message, so they lie near the host's
  // wall clock shifted by the sender's offset. The generator puts them inside the bounds, on them, just past them
  // (either side), or makes them junk, and compares the hop with a model written from the spec's rule.
  const stampKinds = ['inside', 'pastBound', 'futureBound', 'tooOld', 'tooNew', 'junk'] as const;
  type StampKind = (typeof stampKinds)[number];
  const arbStamp = fc.constantFrom(...stampKinds).chain((kind) =>
    (kind === 'junk'
      ? fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 12, '1790000000000', null, {}, [], true, HOP_EPOCH_MAX + 1)
      : kind === 'inside'
        ? fc.integer({ min: -HOP_PAST_MS, max: HOP_FUTURE_MS })
        : kind === 'pastBound'
          ? fc.constant(-HOP_PAST_MS)
          : kind === 'futureBound'
            ? fc.constant(HOP_FUTURE_MS)
            : kind === 'tooOld'
              ? fc.integer({ min: -HOP_PAST_MS - 5000, max: -HOP_PAST_MS - 1 })
              : fc.integer({ min: HOP_FUTURE_MS + 1, max: HOP_FUTURE_MS + 5000 })
    ).map((delta) => ({ kind: kind as StampKind, delta })),
  );
  const arbCase = fc.record({
    from: fc.nat(6),
    wall: fc.option(fc.integer({ min: -5000, max: 5000 }).map((d) => WALL + d), { nil: undefined, freq: 6 }),
    so: fc.option(fc.integer({ min: -600_000, max: 600_000 }), { nil: undefined, freq: 4 }),
    sr: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }),
    g: fc.option(arbStamp, { nil: undefined, freq: 8 }),
    l: fc.option(arbStamp, { nil: undefined, freq: 8 }),
    extra: fc.subarray(['w', 'ro', 'rr', 'h', 'so', 'sr'] as const),
  });

  it('keeps exactly the plausible g and l of stamps near the host’s clock, on and past the bounds, and junk', () => {
    const seen = new Map<string, number>();
    const count = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1);
    fc.assert(
      fc.property(arbCase, ({ from, wall, so, sr, g, l, extra }) => {
        // The offset the host judges a stamp by: none for its own game, the sender's (or 0 unknown) otherwise.
        const offset = from === 0 ? 0 : (so ?? 0);
        const base = (wall ?? WALL) + offset;
        const value = (s: { kind: StampKind; delta: unknown }) => (s.kind === 'junk' ? s.delta : base + (s.delta as number));
        const hop: Record<string, unknown> = {};
        if (g) hop.g = value(g);
        if (l) hop.l = value(l);
        for (const key of extra) hop[key] = WALL;
        const out = sanitiseHop(hop, from, { wall, so, sr });
        // The model: finite, since-1970-looking, and (with the host's wall clock) within the bounds on its clock.
        const keeps = (s: { kind: StampKind } | undefined, x: unknown) => {
          if (s === undefined || s.kind === 'junk' || typeof x !== 'number') return false;
          if (x < HOP_EPOCH_MIN || x > HOP_EPOCH_MAX) return false;
          return wall === undefined || (s.kind !== 'tooOld' && s.kind !== 'tooNew');
        };
        const expected: Record<string, number> = {};
        if (keeps(g, hop.g)) expected.g = hop.g as number;
        if (keeps(l, hop.l)) expected.l = hop.l as number;
        if (wall !== undefined) expected.h = wall;
        if (from !== 0 && so !== undefined) expected.so = so;
        if (from !== 0 && sr !== undefined) expected.sr = sr;
        expect(out).toEqual(Object.keys(expected).length === 0 ? undefined : expected);
        for (const s of [g, l]) {
          if (s === undefined) continue;
          count(s.kind);
          if (wall !== undefined) count(`${s.kind}:judged`);
        }
        if (out?.g !== undefined || out?.l !== undefined) count('kept');
        if (from === 0) count('hostGame');
        if (so !== undefined && so !== 0 && from !== 0 && wall !== undefined) count('offsetJudged');
        if (wall === undefined) count('noWall');
      }),
      { numRuns: 1000 },
    );
    // Every branch, judged against the host's clock where it matters (measured over 1000 runs: each kind judged
    // 230–270 times; g or l kept in 710–740 runs; the host's game 155–171; an offset judged ~520; no wall ~160).
    for (const kind of stampKinds) expect(seen.get(`${kind}:judged`) ?? 0, kind).toBeGreaterThanOrEqual(100);
    expect(seen.get('kept') ?? 0).toBeGreaterThanOrEqual(400);
    expect(seen.get('hostGame') ?? 0).toBeGreaterThanOrEqual(60);
    expect(seen.get('offsetJudged') ?? 0).toBeGreaterThanOrEqual(300);
    expect(seen.get('noWall') ?? 0).toBeGreaterThanOrEqual(60);
  });

  it('never throws, and never passes a receiver’s field or a non-finite number on', () => {
    fc.assert(
      fc.property(fc.anything(), fc.nat(10), fc.option(fc.double(), { nil: undefined }), (hop, from, so) => {
        const out = sanitiseHop(hop, from, { wall: WALL, so, sr: 20 });
        if (out === undefined) return;
        expect(out).not.toHaveProperty('w');
        expect(out).not.toHaveProperty('ro');
        expect(out).not.toHaveProperty('rr');
        for (const v of Object.values(out)) expect(Number.isFinite(v)).toBe(true);
        expect(out.h).toBe(WALL);
      }),
    );
  });
});
