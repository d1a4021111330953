// The verdict book (machines/rules/verdictBook.ts; spec "Action verdicts"): refusals alike ask for nothing, one game
// applying what another refused is a difference at once, the 256-action bound, late verdicts, a resync forgets all;
// and fast-check: a difference is reported exactly when the recorded verdicts of an open action disagree.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_OPEN_ACTIONS,
  createVerdictBook,
  forgetAll,
  readyChanged,
  recordVerdict,
  type VerdictBook,
} from '../../../machines/rules/verdictBook.ts';

const ready = [0, 1, 2];

describe('verdict book', () => {
  it('keeps an action open until every ready game answered; alike verdicts close it with nothing to do', () => {
    let s = recordVerdict(createVerdictBook(), 0, { from: 1, seq: 7, applied: false }, ready);
    expect(s.book.open.get('1:7')?.verdicts.size).toBe(1);
    s = recordVerdict(s.book, 1, { from: 1, seq: 7, applied: false }, ready);
    expect(s.agreed).toBeUndefined();
    s = recordVerdict(s.book, 2, { from: 1, seq: 7, applied: false }, ready);
    expect(s).toMatchObject({ agreed: '1:7' });
    expect(s.differ).toBeUndefined();
    expect(s.book.open.size).toBe(0);
  });

  it('one applied, another refused: a difference at once, naming who did what', () => {
    let s = recordVerdict(createVerdictBook(), 2, { from: 3, seq: 17, applied: true }, ready);
    s = recordVerdict(s.book, 0, { from: 3, seq: 17, applied: false }, ready);
    expect(s.differ).toEqual({ key: '3:17', applied: [2], refused: [0] });
    expect(s.book.open.size).toBe(0);
    // A late verdict of the closed action opens nothing.
    expect(recordVerdict(s.book, 1, { from: 3, seq: 17, applied: true }, ready).book.open.size).toBe(0);
  });

  it('a game’s second verdict of one action does not count', () => {
    let s = recordVerdict(createVerdictBook(), 1, { from: 0, seq: 1, applied: true }, ready);
    s = recordVerdict(s.book, 1, { from: 0, seq: 1, applied: false }, ready);
    expect(s.differ).toBeUndefined();
    expect(s.book.open.get('0:1')?.verdicts.get(1)).toBe(true);
  });

  it('holds at most 256 open actions, forgetting the oldest', () => {
    let book: VerdictBook = createVerdictBook();
    let evicted: string[] = [];
    for (let seq = 1; seq <= MAX_OPEN_ACTIONS + 2; seq++) {
      const s = recordVerdict(book, 0, { from: 1, seq, applied: true }, ready);
      book = s.book;
      if (s.evicted) evicted.push(s.evicted);
    }
    expect(book.open.size).toBe(MAX_OPEN_ACTIONS);
    expect(evicted).toEqual(['1:1', '1:2']);
    expect(book.open.has('1:3')).toBe(true);
  });

  it('a game gone closes the actions every remaining ready game answered alike; a resync forgets every action', () => {
    let s = recordVerdict(createVerdictBook(), 0, { from: 1, seq: 1, applied: true }, ready);
    s = recordVerdict(s.book, 1, { from: 1, seq: 1, applied: true }, ready);
    s = recordVerdict(s.book, 0, { from: 1, seq: 2, applied: true }, ready);
    const gone = readyChanged(s.book, [0, 1]);
    expect(gone.agreed).toEqual(['1:1']);
    expect([...gone.book.open.keys()]).toEqual(['1:2']);
    expect(forgetAll().open.size).toBe(0);
  });

  it('over random verdicts: a difference exactly when an open action’s verdicts disagree, and the bound holds', () => {
    let differing = 0;
    let evicted = 0;
    let afterClose = 0;
    const verdict = fc.record({ game: fc.integer({ min: 0, max: 3 }), seq: fc.integer({ min: 1, max: 30 }), applied: fc.boolean() });
    // Half the runs spread over many actions, so the book fills past its bound and evicts.
    const manyActions = fc.record({ game: fc.integer({ min: 0, max: 3 }), seq: fc.integer({ min: 1, max: 2000 }), applied: fc.boolean() });
    fc.assert(
      fc.property(fc.oneof(fc.array(verdict, { minLength: 100, maxLength: 200 }), fc.array(manyActions, { minLength: 400, maxLength: 600 })), (verdicts) => {
        let book = createVerdictBook();
        const seen = new Map<string, Map<number, boolean>>(); // a reference: every verdict of the still-open actions
        for (const v of verdicts) {
          const key = `9:${v.seq}`;
          const wasOpen = book.open.has(key);
          const wasClosed = book.closed.includes(key);
          const s = recordVerdict(book, v.game, { from: 9, seq: v.seq, applied: v.applied }, [0, 1, 2, 3]);
          book = s.book;
          if (s.evicted) evicted++;
          if (wasClosed) {
            afterClose++;
            expect(s.differ).toBeUndefined();
            continue;
          }
          const before = wasOpen ? (seen.get(key) ?? new Map()) : new Map<number, boolean>();
          const expected = before.has(v.game) ? before : new Map([...before, [v.game, v.applied]]);
          const disagree = new Set(expected.values()).size > 1;
          expect(s.differ !== undefined).toBe(disagree);
          if (disagree) differing++;
          seen.set(key, expected);
          if (s.evicted) seen.delete(s.evicted);
          expect(book.open.size).toBeLessThanOrEqual(MAX_OPEN_ACTIONS);
        }
      }),
      { numRuns: 100, seed: 3617 },
    );
    expect(differing).toBeGreaterThan(100);
    // Floors (seed 3617, 100 runs: 7498 evictions past the bound, 3814 verdicts for an action already closed).
    expect(evicted).toBeGreaterThanOrEqual(1000);
    expect(afterClose).toBeGreaterThanOrEqual(1000);
  });
});
