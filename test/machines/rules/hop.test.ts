// Latency stamps on a hop through the host (spec "Latency stamps"): w, ro, rr and a player's h, so, sr are
// dropped, implausible g/l are dropped, and the host sets h, so, sr itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOP_FUTURE_MS, HOP_PAST_MS, sanitiseHop } from '../../../machines/rules/hop.ts';

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
