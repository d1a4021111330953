// The key schedule's edges (spec: wire-protocol.txt "Key", "Handshake", "Reconnect"): what changes the key,
// proof and resume MAC, what is refused, and the constant-time checks that never throw on hostile lengths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { concatBytes, toHex, u16be, u64be, utf8 } from '../../protocol/bytes.ts';
import { nobleCrypto } from '../../protocol/nobleCrypto.ts';
import {
  KDF_INFO,
  KDF_SALT,
  PBKDF2_ITERATIONS,
  checkJoinProof,
  checkResumeMac,
  deriveSessionKey,
  joinProof,
  resumeMac,
} from '../../protocol/keys.ts';

const secret = Uint8Array.from({ length: 16 }, (_, i) => i);
const nonce = Uint8Array.from({ length: 16 }, (_, i) => 0xf0 + i);
const token = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);

describe('constants', () => {
  it('are the spec’s', () => {
    expect([KDF_SALT, KDF_INFO, PBKDF2_ITERATIONS]).toEqual(['FeverLink3 v1', 'session', 600_000]);
  });
});

describe('deriveSessionKey', () => {
  it('is HKDF(secret, "FeverLink3 v1", "session", 32) without a password', async () => {
    const key = await deriveSessionKey(nodeCrypto, secret);
    expect(toHex(key)).toBe(toHex(nodeCrypto.hkdfSha256(secret, utf8(KDF_SALT), utf8(KDF_INFO), 32)));
    expect(key).toHaveLength(32);
  });

  it('treats an empty password as no password', async () => {
    const none = await deriveSessionKey(nodeCrypto, secret);
    expect(toHex(await deriveSessionKey(nodeCrypto, secret, ''))).toBe(toHex(none));
  });

  it('depends on every bit of the secret', async () => {
    const base = toHex(await deriveSessionKey(nodeCrypto, secret));
    for (let bit = 0; bit < 128; bit++) {
      const other = secret.slice();
      other[bit >> 3]! ^= 1 << (bit & 7);
      expect(toHex(await deriveSessionKey(nodeCrypto, other))).not.toBe(base);
    }
  });

  it('refuses a secret that is not 16 bytes', async () => {
    await expect(deriveSessionKey(nodeCrypto, new Uint8Array(15))).rejects.toThrow(RangeError);
    await expect(deriveSessionKey(nodeCrypto, new Uint8Array(32))).rejects.toThrow(RangeError);
  });
});

describe('join proof', () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);

  it('is HMAC(key, nonce ‖ UTF-8 name), the same with node and noble for any name', () => {
    const nonces = fc.uint8Array({ minLength: 16, maxLength: 16 });
    // Names beyond ASCII (the UTF-8 bytes are hashed, not the UTF-16 units) and ASCII ones, both counted.
    const seen = { beyondAscii: 0, ascii: 0 };
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), nonces, (name, n) => {
        seen[utf8(name).length > name.length ? 'beyondAscii' : 'ascii']++;
        const proof = joinProof(nodeCrypto, key, n, name);
        expect(toHex(proof)).toBe(toHex(joinProof(nobleCrypto, key, n, name)));
        expect(toHex(proof)).toBe(toHex(nodeCrypto.hmacSha256(key, concatBytes(n, utf8(name)))));
      }),
      { numRuns: 200 },
    );
    // Measured of 200: about 170 beyond ASCII, 30 ASCII.
    expect(seen.beyondAscii).toBeGreaterThanOrEqual(80);
    expect(seen.ascii).toBeGreaterThanOrEqual(8);
  });

  it('checks in constant time and says false (never throws) for a proof of another length', () => {
    const proof = joinProof(nodeCrypto, key, nonce, 'alice');
    expect(checkJoinProof(nodeCrypto, key, nonce, 'alice', proof)).toBe(true);
    expect(checkJoinProof(nodeCrypto, key, nonce, 'bob', proof)).toBe(false);
    for (const n of [0, 31, 33, 64]) {
      expect(checkJoinProof(nodeCrypto, key, nonce, 'alice', new Uint8Array(n))).toBe(false);
    }
    expect(checkJoinProof(nodeCrypto, key, nonce, 'alice', proof.subarray(0, 31))).toBe(false);
  });
});

describe('resume MAC', () => {
  it('is HMAC(token, "FeverLink3 resume" ‖ nonce ‖ u16 id ‖ name [‖ "last" ‖ u64 last])', () => {
    const label = utf8('FeverLink3 resume');
    const plain = nodeCrypto.hmacSha256(token, concatBytes(label, nonce, u16be(513), utf8('ålice')));
    expect(toHex(resumeMac(nodeCrypto, token, nonce, 513, 'ålice'))).toBe(toHex(plain));
    const withLast = nodeCrypto.hmacSha256(
      token,
      concatBytes(utf8('FeverLink3 resume'), nonce, u16be(513), utf8('ålice'), utf8('last'), u64be(2n ** 53n + 1n)),
    );
    expect(toHex(resumeMac(nodeCrypto, token, nonce, 513, 'ålice', 2n ** 53n + 1n))).toBe(toHex(withLast));
  });

  it('changes with each input: token, nonce, id, name, last present or not', () => {
    const base = toHex(resumeMac(nodeCrypto, token, nonce, 1, 'alice'));
    const variants = [
      resumeMac(nodeCrypto, nonce, nonce, 1, 'alice'),
      resumeMac(nodeCrypto, token, token, 1, 'alice'),
      resumeMac(nodeCrypto, token, nonce, 2, 'alice'),
      resumeMac(nodeCrypto, token, nonce, 1, 'Alice'),
      resumeMac(nodeCrypto, token, nonce, 1, 'alice', 0n),
    ].map(toHex);
    expect(new Set([base, ...variants]).size).toBe(6);
  });

  it('checkResumeMac: true for the right MAC, false (never throws) for anything else', () => {
    const mac = resumeMac(nodeCrypto, token, nonce, 1, 'alice', 7n);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', 7n, mac)).toBe(true);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', 8n, mac)).toBe(false);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', undefined, mac)).toBe(false);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', 7n, mac.subarray(1))).toBe(false);
    expect(checkResumeMac(nodeCrypto, token, nonce, 70000, 'alice', 7n, mac)).toBe(false);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', -1n, mac)).toBe(false);
    expect(checkResumeMac(nodeCrypto, token, nonce, 1, 'alice', 2n ** 64n, mac)).toBe(false);
  });

  it('resumeMac refuses an id or last that does not fit', () => {
    expect(() => resumeMac(nodeCrypto, token, nonce, 65536, 'a')).toThrow(RangeError);
    expect(() => resumeMac(nodeCrypto, token, nonce, 1, 'a', 2n ** 64n)).toThrow(RangeError);
  });
});
