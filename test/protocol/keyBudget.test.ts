// The key budget (protocol/keyBudget.ts; reliability-tests.md C11): what a session key seals is counted, by the
// Sealer and by the Opener for authentic frames only, and the budget is spent before 2^38.5 bytes.
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { decodeWireFrame, FrameError, type Frame } from '../../protocol/frame.ts';
import { KEY_BUDGET_BYTES, KeyBudget } from '../../protocol/keyBudget.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';

const key = nodeCrypto.aesGcm(new Uint8Array(32).fill(7));
const frame = (bytes: Uint8Array): Frame => {
  const decoded = decodeWireFrame(bytes);
  if (decoded instanceof FrameError) throw decoded;
  return decoded;
};

describe('key budget', () => {
  it('is spent before 2^38.5 bytes (a simulated count: the last byte below the limit, then the limit)', () => {
    expect(KEY_BUDGET_BYTES).toBeLessThan(2 ** 38.5);
    const budget = new KeyBudget();
    budget.add(KEY_BUDGET_BYTES - 1);
    expect(budget.spent).toBe(false);
    budget.add(1);
    expect(budget.spent).toBe(true);
    expect(budget.used).toBe(KEY_BUDGET_BYTES);
  });

  it('refuses a limit that is not a positive number of bytes', () => {
    for (const limit of [0, -1, Number.NaN]) expect(() => new KeyBudget(limit)).toThrow(RangeError);
  });

  it('counts the payload bytes a Sealer seals and the Opener opens, and nothing of a forged or replayed frame', () => {
    const budget = new KeyBudget(1000);
    const sealer = new Sealer(key, 1, { budget });
    const sealed = sealer.seal(40, new Uint8Array(100));
    expect(budget.used).toBe(100);
    const opener = new Opener(key, budget);
    expect(opener.open(frame(sealed)).ok).toBe(true);
    expect(budget.used).toBe(200);
    expect(opener.open(frame(sealed))).toEqual({ ok: false, reason: 'replay' });
    const forged = sealer.seal(40, new Uint8Array(50));
    expect(budget.used).toBe(250);
    forged[forged.length - 1]! ^= 1;
    expect(opener.open(frame(forged))).toEqual({ ok: false, reason: 'tag' });
    expect(budget.used).toBe(250);
  });
});
