// Comparing a round's reports (machines/rules/checksumCompare.ts; spec "Light rounds", "Spread full rounds", "The
// free-id queue part freeq", ChecksumReport 33).
import { describe, expect, it } from 'vitest';
import { compareRound, parseFreeq, type RoundReport } from '../../../machines/rules/checksumCompare.ts';

const report = (game: number, parts: Record<string, string | number>, extra: Partial<RoundReport> = {}): RoundReport => ({
  game,
  time: 1000,
  parts,
  ...extra,
});
const full = { at: 1000, full: true };

describe('compareRound', () => {
  it('equal reports: nothing differs', () => {
    expect(compareRound(full, [report(0, { money: 5, edges: 'a' }), report(1, { money: 5, edges: 'a' })])).toEqual({
      kind: 'compared',
      differences: [],
      leftOut: [],
      authorityDiffers: [],
    });
  });

  it('names each differing part with the games grouped by value; a missing part differs', () => {
    const r = compareRound(full, [report(0, { edges: 'a', ids: 1 }), report(1, { edges: 'b', ids: 1 }), report(2, { edges: 'a' })]);
    expect(r).toMatchObject({
      differences: [
        { part: 'edges', groups: [{ value: 'a', games: [0, 2] }, { value: 'b', games: [1] }] },
        { part: 'ids', groups: [{ value: 1, games: [0, 1] }, { value: undefined, games: [2] }] },
      ],
    });
  });

  it('a report at another time skips the round as time_skew', () => {
    expect(compareRound(full, [report(0, { edges: 'a' }), report(1, { edges: 'b' }, { time: 1400 })])).toEqual({
      kind: 'time_skew',
      times: [{ game: 0, time: 1000 }, { game: 1, time: 1400 }],
    });
  });

  it('a light round drops the heavy lanes (an older game that sends them is no difference)', () => {
    const r = compareRound({ at: 1000, full: false }, [report(0, { edges: 'a', 'townBuildings:Ulm': 1, money: 1 }), report(1, { money: 1 })]);
    expect(r).toMatchObject({ differences: [] });
  });

  it('a part a game left out as notReady is not compared', () => {
    const r = compareRound(full, [report(0, { stocks: 'a', loan: 1 }), report(1, { loan: 2 }, { notReady: ['stocks'] })]);
    expect(r).toMatchObject({ leftOut: ['stocks'], differences: [{ part: 'loan' }] });
  });

  it('freeq: compared at the newest common n; left out without freeq, with another epoch or no common n', () => {
    const q = (s: string) => ({ freeq: s });
    expect(compareRound(full, [report(0, q('7|1024:a|2048:b|3072:c')), report(1, q('7|2048:b|3072:c|4096:x'))])).toMatchObject({ differences: [] });
    expect(compareRound(full, [report(0, q('7|1024:a|2048:b')), report(1, q('7|1024:a|2048:z'))])).toMatchObject({
      differences: [{ part: 'freeq', groups: [{ value: '7|2048:b', games: [0] }, { value: '7|2048:z', games: [1] }] }],
    });
    expect(compareRound(full, [report(0, q('7|1024:a')), report(1, {})])).toMatchObject({ differences: [], freeqLeftOut: 'a game has no freeq' });
    expect(compareRound(full, [report(0, q('7|1024:a')), report(1, q('8|1024:b'))])).toMatchObject({ differences: [], freeqLeftOut: 'another epoch' });
    expect(compareRound(full, [report(0, q('7|1024:a')), report(1, q('7|2048:b'))])).toMatchObject({ differences: [], freeqLeftOut: 'no common n' });
    expect(parseFreeq('7|x')).toBeUndefined();
    expect(parseFreeq(12)).toBeUndefined();
  });

  it('names the authority values that differ', () => {
    const r = compareRound(full, [
      report(0, { money: 'h1' }, { authority: { money: 100, loan: 0 } }),
      report(1, { money: 'h2' }, { authority: { money: 90, loan: 0 } }),
    ]);
    expect(r).toMatchObject({ differences: [{ part: 'money' }], authorityDiffers: ['money'] });
  });
});
