// The player's resume state (actors/player/resumeState.ts): Join.resume.last is the last host frame read, said exactly
// as a JSON number or not at all (a host counter past 2^53 − 1 would be rounded, and the host's decoder refuses it).
import { describe, expect, it } from 'vitest';
import { ResumeState } from '../../actors/player/resumeState.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';

const token = { token: new Uint8Array(32).fill(7), epoch: 1 };
const nonce = new Uint8Array(16).fill(1);

describe('the resume state', () => {
  it('says the last host frame read as resume.last, and none for a counter past 2^53 − 1', () => {
    const state = new ResumeState();
    state.welcomed(token);
    expect(state.join(nodeCrypto, nonce, 3, 'alice')?.last).toBeUndefined(); // nothing read yet
    state.read(41n);
    expect(state.join(nodeCrypto, nonce, 3, 'alice')?.last).toBe(41);
    state.read(BigInt(Number.MAX_SAFE_INTEGER));
    expect(state.join(nodeCrypto, nonce, 3, 'alice')?.last).toBe(Number.MAX_SAFE_INTEGER);
    state.read(2n ** 62n);
    expect(state.join(nodeCrypto, nonce, 3, 'alice')?.last).toBeUndefined();
  });
});
