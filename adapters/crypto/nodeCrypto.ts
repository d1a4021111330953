// The Crypto interface over node:crypto (OpenSSL, hardware AES): the launcher's hot path (spec: "Frame", "Key").
// Pitfalls handled here (reliability-tests.md §2): every GCM cipher is made with { authTagLength: 16 } so a
// truncated tag is refused, timingSafeEqual is guarded for unequal lengths, PBKDF2 runs off the event loop.
import { Buffer } from 'node:buffer';
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  pbkdf2,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { TAG_BYTES, type AeadKey, type Crypto } from '../../protocol/crypto.ts';
import type { FrameAllocator } from '../../protocol/seal.ts';

const GCM = 'aes-256-gcm';
const GCM_OPTIONS = { authTagLength: TAG_BYTES } as const;

/** A plain Uint8Array view of a Buffer: same bytes, no copy, no Buffer semantics (slice, toString) leaking out. */
function plain(buffer: Uint8Array): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function aesGcm(key: Uint8Array): AeadKey & FrameAllocator {
  if (key.length !== 32) throw new RangeError(`key: expected 32 bytes, got ${key.length}`);
  // Imported once per key: each frame then only builds a cipher context.
  const keyObject: KeyObject = createSecretKey(key);
  return {
    // The Sealer overwrites every byte, so uninitialised (and, under 4 KiB, pooled) memory is safe and much
    // cheaper than a fresh zero-filled 256 KiB allocation.
    allocate: (size) => plain(Buffer.allocUnsafe(size)),
    sealInto(nonce, aad, plaintext, out, offset) {
      const cipher = createCipheriv(GCM, keyObject, nonce, GCM_OPTIONS);
      cipher.setAAD(aad);
      // One update straight into the caller's frame buffer: no Buffer.concat per frame (stack.md §3).
      const ct = cipher.update(plaintext);
      out.set(ct, offset);
      let written = ct.length;
      const rest = cipher.final();
      if (rest.length > 0) {
        out.set(rest, offset + written);
        written += rest.length;
      }
      out.set(cipher.getAuthTag(), offset + written);
      return written + TAG_BYTES;
    },
    open(nonce, aad, sealed) {
      if (sealed.length < TAG_BYTES) return null;
      const split = sealed.length - TAG_BYTES;
      try {
        const decipher = createDecipheriv(GCM, keyObject, nonce, GCM_OPTIONS);
        decipher.setAAD(aad);
        decipher.setAuthTag(sealed.subarray(split));
        const payload = decipher.update(sealed.subarray(0, split));
        decipher.final();
        return plain(payload);
      } catch {
        return null;
      }
    },
  };
}

function pbkdf2Sha256(password: Uint8Array, salt: Uint8Array, iterations: number, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // libuv's thread pool: 600 000 iterations never block the event loop.
    pbkdf2(password, salt, iterations, length, 'sha256', (error, key) => (error ? reject(error) : resolve(plain(key))));
  });
}

/** node:crypto implementation of {@link Crypto}. */
export const nodeCrypto: Crypto = {
  name: 'node',
  sha256: (data) => plain(createHash('sha256').update(data).digest()),
  hmacSha256(key, ...parts) {
    const mac = createHmac('sha256', key);
    for (const part of parts) mac.update(part);
    return plain(mac.digest());
  },
  hkdfSha256: (ikm, salt, info, length) => new Uint8Array(hkdfSync('sha256', ikm, salt, info, length)),
  pbkdf2Sha256,
  randomBytes: (length) => plain(randomBytes(length)),
  equal: (a, b) => a.length === b.length && timingSafeEqual(a, b),
  aesGcm,
};
