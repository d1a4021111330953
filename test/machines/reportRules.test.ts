// The pure rules of bug reports: the round's book (machines/rules/reportRound.ts), the part's budget newest first
// (reportBudget.ts, fast-check with coverage floors) and report.json (reportIndex.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { partPlan, zipBound, type PartCandidate } from '../../machines/rules/reportBudget.ts';
import { gameFolder, reportIndex } from '../../machines/rules/reportIndex.ts';
import { awaited, MISSING_WHY, openRound, partArrived, partMissing, restMissing } from '../../machines/rules/reportRound.ts';

describe('the round book', () => {
  it('gives each game its own transfer id, once, and tracks received and missing', () => {
    let book = openRound([{ id: 0, name: 'H' }, { id: 3, name: 'A' }, { id: 3, name: 'A' }, { id: 5, name: 'B' }], 10);
    expect(book.asked).toEqual([{ id: 0, name: 'H', transfer: 10 }, { id: 3, name: 'A', transfer: 11 }, { id: 5, name: 'B', transfer: 12 }]);
    book = partArrived(book, 3);
    book = partArrived(book, 3);
    book = partArrived(book, 9);
    expect(book.received).toEqual([3]);
    book = partMissing(book, 3, 'late');
    book = partMissing(book, 0, MISSING_WHY.left('left'));
    expect(book.missing).toEqual([{ id: 0, name: 'H', why: 'left during the report (left)' }]);
    book = restMissing(book, MISSING_WHY.timeout);
    expect(awaited(book)).toEqual([]);
    expect(book.missing.map((m) => [m.id, m.why])).toEqual([[0, 'left during the report (left)'], [5, 'no part after 60 s']]);
  });
});

const candidateArb: fc.Arbitrary<PartCandidate[]> = fc
  .uniqueArray(
    fc.record({ name: fc.stringMatching(/^[a-z_]{1,12}\.(log|jsonl|txt)$/), bytes: fc.oneof(fc.nat(2_000), fc.nat(200_000), fc.constant(0)), modified: fc.nat(1_000) }),
    { selector: (c) => c.name, maxLength: 8 },
  );

describe('the part budget, newest first', () => {
  it('never over maxBytes; newest whole first, at most one cut (the oldest picked), nothing older than a cut', () => {
    const seen = new Map<string, number>();
    const note = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
    fc.assert(
      fc.property(candidateArb, fc.integer({ min: 200, max: 300_000 }), (files, maxBytes) => {
        const plan = partPlan(files, maxBytes);
        expect(zipBound(plan.picked)).toBeLessThanOrEqual(maxBytes);
        const order = [...files].sort((a, b) => b.modified - a.modified || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((f) => f.name);
        // Picked files are a prefix of the newest-first order; the left ones are the rest.
        expect([...plan.picked.map((p) => p.name), ...plan.left]).toEqual(order);
        const cuts = plan.picked.filter((p) => p.cut);
        expect(cuts.length).toBeLessThanOrEqual(1);
        if (cuts.length === 1) expect(plan.picked.at(-1)!.cut).toBe(true);
        for (const p of plan.picked) expect(p.bytes).toBeLessThanOrEqual(p.size);
        // Nothing was left out while it would have fit whole.
        if (plan.left.length > 0 && cuts.length === 0) {
          const first = files.find((f) => f.name === plan.left[0])!;
          expect(zipBound([...plan.picked, first])).toBeGreaterThan(maxBytes);
        }
        if (files.length === 0) note('no files');
        if (plan.left.length === 0 && cuts.length === 0 && files.length > 0) note('all whole');
        if (cuts.length === 1) note('cut');
        if (plan.left.length > 0) note('some left');
        if (plan.picked.length === 0 && files.length > 0) note('nothing fits');
      }),
      { numRuns: 500, seed: 14_010 },
    );
    expect(seen.get('all whole') ?? 0).toBeGreaterThanOrEqual(50);
    expect(seen.get('cut') ?? 0).toBeGreaterThanOrEqual(50);
    expect(seen.get('some left') ?? 0).toBeGreaterThanOrEqual(30);
    expect(seen.get('no files') ?? 0).toBeGreaterThanOrEqual(5);
  });
});

describe('report.json', () => {
  it('lists every player once, with its folder or why it is missing, and the times', () => {
    const index = reportIndex({
      report: 3,
      session: 'abcd',
      askedBy: { id: 1, name: 'Ada' },
      hostVersion: '0.1.0',
      protocol: 1,
      players: [{ id: 0, name: 'H', version: '0.1.0' }, { id: 1, name: 'Ada' }, { id: 4, name: 'Cy', version: '0.0.9' }],
      askedAt: 0,
      builtAt: 61_234,
      included: [{ id: 0, files: ['launcher.log'], bytes: 10 }, { id: 1, files: ['trace.jsonl'], bytes: 20 }],
      missing: [{ id: 4, name: 'Cy', why: 'no part after 60 s' }],
    });
    expect(index.players).toEqual([
      { id: 0, name: 'H', folder: 'game-0', files: ['launcher.log'], bytes: 10 },
      { id: 1, name: 'Ada', folder: gameFolder(1), files: ['trace.jsonl'], bytes: 20 },
      { id: 4, name: 'Cy', missing: 'no part after 60 s' },
    ]);
    expect(index.versions).toEqual({ host: '0.1.0', protocol: 1, players: { '0': '0.1.0', '4': '0.0.9' } });
    expect(index.times).toEqual({ asked: '1970-01-01T00:00:00.000Z', built: '1970-01-01T00:01:01.234Z', seconds: 61.2 });
    expect(index).not.toHaveProperty('note');
  });
});
