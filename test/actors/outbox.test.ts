// The host's per-player outbox (actors/host/outbox.ts; lockstep.md "Catching up") against a plain model: random runs
// of messages sent and missed, save chunks (gaps), pings and pongs and time passing; at any point a returner's `last`
// is covered exactly when every message after it is still held and no gap lies after it, and then the resend is
// exactly those messages in order. Coverage is asserted, not hoped for.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../actors/host/outbox.ts';

const AGE = 1_000;

type Op =
  | { op: 'sent' }
  | { op: 'missed' }
  | { op: 'gap' }
  | { op: 'ping' }
  | { op: 'pong'; back: number }
  | { op: 'wait'; ms: number }
  | { op: 'cover'; back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: 'sent' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'missed' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'gap' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'ping' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('pong' as const), back: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 400 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('cover' as const), back: fc.nat(12) }) },
);

interface ModelEntry {
  counter: number | undefined;
  at: number;
  message: number | undefined;
}

describe('the outbox against a model', () => {
  it('covers `last` exactly when everything after it is held; resends exactly that, in order', () => {
    const outcomes: Record<string, number> = {};
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 5, maxLength: 80 }), (ops) => {
        const box = new Outbox<number>(AGE, Number.MAX_SAFE_INTEGER);
        const model: ModelEntry[] = [];
        const pings: { n: number; counter: number }[] = [];
        let now = 0;
        let counter = 0;
        let message = 0;
        let acked = 0;
        let pingN = 0;
        for (const o of ops) {
          if (o.op === 'sent') {
            counter++;
            box.sent(++message, counter, 10, now);
            model.push({ counter, at: now, message });
          } else if (o.op === 'missed') {
            box.missed(++message, 10, now);
            model.push({ counter: undefined, at: now, message });
          } else if (o.op === 'gap') {
            counter++;
            box.gap(counter, now);
            model.push({ counter, at: now, message: undefined });
          } else if (o.op === 'ping') {
            counter++;
            box.pinged(++pingN, counter);
            pings.push({ n: pingN, counter });
          } else if (o.op === 'pong') {
            const ping = pings[pings.length - 1 - o.back];
            if (ping === undefined) continue;
            box.ponged(ping.n);
            acked = Math.max(acked, ping.counter);
            pings.splice(0, pings.indexOf(ping) + 1);
          } else if (o.op === 'wait') now += o.ms;
          else {
            const last = Math.max(0, counter - o.back);
            const got = box.cover(last, now);
            // The model: entries the player has not read; any of them expired (older than AGE) or a gap → not covered.
            const unread = model.filter((e) => (e.counter === undefined || e.counter > last) && (e.counter === undefined || e.counter > acked));
            const lostUnread = model.some((e) => now - e.at > AGE && (e.counter === undefined || (e.counter > last && e.counter > acked)));
            const expected =
              last < acked || lostUnread || unread.some((e) => e.message === undefined)
                ? undefined
                : unread.map((e) => e.message!);
            const key = got.covers ? (got.messages.length > 0 ? 'covered with messages' : 'covered, nothing missed') : got.why.split(' ')[0]!;
            outcomes[key] = (outcomes[key] ?? 0) + 1;
            if (expected === undefined) expect(got.covers).toBe(false);
            else expect(got).toEqual({ covers: true, messages: expected });
          }
        }
      }),
      { numRuns: 400, seed: 12 },
    );
    // Every kind of answer was reached, more than a few times each.
    expect(outcomes['covered with messages'] ?? 0).toBeGreaterThan(50);
    expect(outcomes['covered, nothing missed'] ?? 0).toBeGreaterThan(5);
    const refused = Object.entries(outcomes).filter(([k]) => !k.startsWith('covered'));
    expect(refused.reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThan(50);
  });

  it('keeps at most the byte bound: the oldest unread message falls out and the returner is not covered', () => {
    const box = new Outbox<string>(60_000, 100);
    for (let i = 1; i <= 5; i++) box.sent(`m${i}`, i, 30, 0);
    expect(box.heldBytes).toBeLessThanOrEqual(100);
    expect(box.cover(0, 0)).toMatchObject({ covers: false });
    expect(box.cover(2, 0)).toEqual({ covers: true, messages: ['m3', 'm4', 'm5'] });
  });
});

describe('an entry shared by several outboxes (one broadcast)', () => {
  it('each outbox acknowledges, expires and covers on its own; a gap after it changes no other outbox', () => {
    const a = new Outbox<string>(AGE, 1_000_000);
    const b = new Outbox<string>(AGE, 1_000_000);
    for (let counter = 1; counter <= 4; counter++) {
      const entry = Outbox.entry(`m${counter}`, counter, 10, counter);
      a.keep(entry, counter);
      b.keep(entry, counter);
    }
    a.acknowledge(2);
    a.gap(5, 5);
    a.gap(6, 5);
    expect(a.cover(2, 5)).toEqual({ covers: false, why: 'a resync save was sent since' });
    expect(a.cover(6, 5)).toEqual({ covers: true, messages: [] });
    expect(b.cover(1, 5)).toEqual({ covers: true, messages: ['m2', 'm3', 'm4'] });
    expect(b.size).toBe(4);
    expect(b.heldBytes).toBe(40);
    expect(a.heldBytes).toBe(20);
  });
});
