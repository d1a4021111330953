// Unit tests of the listener caps (spec "Handshake": 64 connections, 16 per address, 32 not yet joined;
// reliability-tests §7.4 L4, L5, M1's invariants).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Admission } from '../../../adapters/transport/admission.ts';
import { DEFAULT_LIMITS } from '../../../adapters/transport/limits.ts';

describe('Admission', () => {
  it('refuses the 33rd pending connection and admits again once one joins or goes', () => {
    const admission = new Admission(DEFAULT_LIMITS);
    for (let id = 1; id <= 32; id++) expect(admission.admit(id, `10.0.0.${id % 3}`)).toBeUndefined();
    expect(admission.admit(33, '10.0.0.9')).toBe('too-many-pending');
    admission.joined(5);
    expect(admission.admit(34, '10.0.0.9')).toBeUndefined();
    expect(admission.admit(35, '10.0.0.9')).toBe('too-many-pending');
    admission.release(7);
    expect(admission.admit(36, '10.0.0.9')).toBeUndefined();
    expect(admission.pending).toBe(32);
  });

  it('refuses the 17th from one address and the 65th in all', () => {
    const admission = new Admission(DEFAULT_LIMITS);
    let id = 0;
    for (let a = 2; a <= 5; a++) {
      for (let i = 0; i < 16; i++) {
        id++;
        expect(admission.admit(id, `127.0.0.${a}`)).toBeUndefined();
        admission.joined(id);
      }
      const expected = a === 5 ? 'too-many-connections' : 'too-many-from-address';
      expect(admission.admit(1000 + a, `127.0.0.${a}`)).toBe(expected);
    }
    expect(admission.open).toBe(64);
    expect(admission.admit(2000, '127.0.0.6')).toBe('too-many-connections');
    admission.release(1);
    expect(admission.countFor('127.0.0.2')).toBe(15);
    expect(admission.admit(2001, '127.0.0.6')).toBeUndefined();
  });

  it('release is idempotent and frees nothing it did not hold', () => {
    const admission = new Admission(DEFAULT_LIMITS);
    expect(admission.admit(1, 'a')).toBeUndefined();
    admission.release(1);
    admission.release(1);
    admission.release(99);
    expect(admission.open).toBe(0);
    expect(admission.countFor('a')).toBe(0);
  });

  it('keeps its invariants under any sequence of admits, joins and releases (M1)', () => {
    const command = fc.oneof(
      fc.record({ op: fc.constant('admit' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
      fc.record({ op: fc.constant('join' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 300 }), (commands) => {
        const limits = { maxConnections: 20, maxPerAddress: 6, maxPending: 8 };
        const admission = new Admission(limits);
        const model = new Map<number, { key: string; joined: boolean }>();
        let nextId = 1;
        for (const c of commands) {
          const ids = [...model.keys()];
          if (c.op === 'admit') {
            const id = nextId++;
            const pending = [...model.values()].filter((m) => !m.joined).length;
            const sameKey = [...model.values()].filter((m) => m.key === c.key).length;
            const expected =
              model.size >= 20
                ? 'too-many-connections'
                : sameKey >= 6
                  ? 'too-many-from-address'
                  : pending >= 8
                    ? 'too-many-pending'
                    : undefined;
            expect(admission.admit(id, c.key)).toBe(expected);
            if (expected === undefined) model.set(id, { key: c.key, joined: false });
          } else if (ids.length > 0) {
            const id = ids[c.pick % ids.length]!;
            if (c.op === 'join') {
              admission.joined(id);
              model.get(id)!.joined = true;
            } else {
              admission.release(id);
              model.delete(id);
            }
          }
          expect(admission.open).toBe(model.size);
          expect(admission.pending).toBeLessThanOrEqual(8);
          expect(admission.open).toBeLessThanOrEqual(20);
          for (const key of ['a', 'b', 'c', 'd', 'e']) expect(admission.countFor(key)).toBeLessThanOrEqual(6);
        }
      }),
    );
  });
});
