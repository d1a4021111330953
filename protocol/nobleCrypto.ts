// The Crypto interface over @noble/* (pure JS): the browser's implementation and the independent
// reference the tests compare node:crypto against. Not for the launcher's hot path: noble's AES
// uses T-tables (timing) and is 20–40× slower at 256 KiB (reference/stack.md §3).
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { concatBytes } from './bytes.ts';
import { TAG_BYTES, type AeadKey, type Crypto } from './crypto.ts';

function aesGcm(key: Uint8Array): AeadKey {
  if (key.length !== 32) throw new RangeError(`key: expected 32 bytes, got ${key.length}`);
  return {
    sealInto(nonce, aad, plaintext, out, offset) {
      const sealed = gcm(key, nonce, aad).encrypt(plaintext);
      out.set(sealed, offset);
      return sealed.length;
    },
    open(nonce, aad, sealed) {
      if (sealed.length < TAG_BYTES) return null;
      try {
        return gcm(key, nonce, aad).decrypt(sealed);
      } catch {
        return null;
      }
    },
  };
}

export const nobleCrypto: Crypto = {
  name: 'noble',
  sha256: (data) => sha256(data),
  hmacSha256: (key, ...parts) => hmac(sha256, key, concatBytes(...parts)),
  hkdfSha256: (ikm, salt, info, length) => hkdf(sha256, ikm, salt, info, length),
  pbkdf2Sha256: (password, salt, c, dkLen) => pbkdf2Async(sha256, password, salt, { c, dkLen }),
  randomBytes: (length) => randomBytes(length),
  equal(a, b) {
    if (a.length !== b.length) return false;
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
    return diff === 0;
  },
  aesGcm,
};
