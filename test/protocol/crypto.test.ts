// Crypto conformance (reliability-tests.md §7.1 C1–C5, §3): the published vectors in test/protocol/vectors/*.json,
// run against BOTH implementations of the Crypto interface (node:crypto and @noble), plus the GCM tamper set C2.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { fromHex, toHex } from '../../protocol/bytes.ts';
import { TAG_BYTES, type Crypto } from '../../protocol/crypto.ts';
import { nobleCrypto } from '../../protocol/nobleCrypto.ts';

interface Sourced { name: string; source: string }
interface GcmVector extends Sourced {
  key: string; iv: string; plaintext: string; aad: string; ciphertext: string; tag: string;
}
interface HkdfVector extends Sourced {
  ikm: string; salt: string; info: string; length: number; prk: string; okm: string;
}
interface HmacVector extends Sourced { key: string; data: string; mac: string; truncate?: number }
interface Pbkdf2Vector extends Sourced {
  password: string; salt: string; iterations: number; length: number; key: string;
}
interface ShaVector extends Sourced { message: string; digest: string }

function vectors<T>(file: string): T[] {
  const url = new URL(`./vectors/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { vectors: T[] }).vectors;
}

function hex(text: string): Uint8Array {
  const bytes = fromHex(text);
  if (bytes === undefined) throw new Error(`bad hex in a vector file: ${text}`);
  return bytes;
}

const gcm = vectors<GcmVector>('gcm.json');
const hkdf = vectors<HkdfVector>('hkdf.json');
const hmac = vectors<HmacVector>('hmac.json');
const pbkdf2 = vectors<Pbkdf2Vector>('pbkdf2.json');
const sha = vectors<ShaVector>('sha256.json');
const implementations: [string, Crypto][] = [['node', nodeCrypto], ['noble', nobleCrypto]];

describe('vector files', () => {
  it('hold the published sets, each with a source', () => {
    expect([gcm.length, hkdf.length, hmac.length, pbkdf2.length, sha.length]).toEqual([6, 2, 6, 7, 3]);
    for (const v of [...gcm, ...hkdf, ...hmac, ...pbkdf2, ...sha]) expect(v.source.length).toBeGreaterThan(10);
  });
});

describe.each(implementations)('%s crypto', (_name, crypto) => {
  function seal(v: GcmVector, plaintext = hex(v.plaintext)): Uint8Array {
    const out = new Uint8Array(plaintext.length + TAG_BYTES);
    const written = crypto.aesGcm(hex(v.key)).sealInto(hex(v.iv), hex(v.aad), plaintext, out, 0);
    expect(written).toBe(out.length);
    return out;
  }

  describe('C1 AES-256-GCM known answers', () => {
    it.each(gcm.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      const sealed = seal(v);
      expect(toHex(sealed)).toBe(v.ciphertext + v.tag);
      const opened = crypto.aesGcm(hex(v.key)).open(hex(v.iv), hex(v.aad), sealed);
      expect(opened && toHex(opened)).toBe(v.plaintext);
    });

    it('writes at the given offset and leaves the bytes around it alone', () => {
      const v = gcm[2]!;
      const p = hex(v.plaintext);
      const out = new Uint8Array(7 + p.length + TAG_BYTES + 5).fill(0xee);
      crypto.aesGcm(hex(v.key)).sealInto(hex(v.iv), hex(v.aad), p, out, 7);
      expect(toHex(out.subarray(7, 7 + p.length + TAG_BYTES))).toBe(v.ciphertext + v.tag);
      expect([...out.subarray(0, 7), ...out.subarray(out.length - 5)].every((b) => b === 0xee)).toBe(true);
    });
  });

  describe('C2 GCM tamper (TC16)', () => {
    const v = gcm.find((x) => x.name === 'TC16')!;
    const key = crypto.aesGcm(hex(v.key));
    const sealed = hex(v.ciphertext + v.tag);
    const iv = hex(v.iv);
    const aad = hex(v.aad);

    function flips(bytes: Uint8Array): Uint8Array[] {
      const out: Uint8Array[] = [];
      for (let bit = 0; bit < bytes.length * 8; bit++) {
        const copy = bytes.slice();
        copy[bit >> 3]! ^= 1 << (bit & 7);
        out.push(copy);
      }
      return out;
    }

    it('opens the untouched vector (so every refusal below is the tamper)', () => {
      expect(key.open(iv, aad, sealed)).not.toBeNull();
    });

    it('refuses every bit flip of C and T (608 cases)', () => {
      const cases = flips(sealed);
      expect(cases).toHaveLength((60 + 16) * 8);
      expect(cases.filter((c) => key.open(iv, aad, c) !== null)).toHaveLength(0);
    });

    it('refuses every bit flip of the AAD (160) and of the IV (96)', () => {
      expect(flips(aad).filter((a) => key.open(iv, a, sealed) !== null)).toHaveLength(0);
      expect(flips(iv).filter((n) => key.open(n, aad, sealed) !== null)).toHaveLength(0);
    });

    it.each([4, 8, 12, 15])('refuses the tag cut to %i bytes', (n) => {
      const cut = sealed.subarray(0, sealed.length - TAG_BYTES + n);
      expect(key.open(iv, aad, cut)).toBeNull();
    });

    it('refuses TC14 with the last tag bit flipped and with the tag cut to 4 bytes', () => {
      const tc14 = gcm.find((x) => x.name === 'TC14')!;
      const k = crypto.aesGcm(hex(tc14.key));
      expect(k.open(hex(tc14.iv), new Uint8Array(0), hex(tc14.ciphertext + tc14.tag.slice(0, -2) + '18'))).toBeNull();
      expect(k.open(hex(tc14.iv), new Uint8Array(0), hex(tc14.ciphertext + tc14.tag.slice(0, 8)))).toBeNull();
    });

    it('refuses bodies of 0..15 bytes, even the prefixes of a valid tag-only body (TC13)', () => {
      const tc13 = gcm.find((x) => x.name === 'TC13')!;
      const k = crypto.aesGcm(hex(tc13.key));
      const tag = hex(tc13.tag);
      expect(k.open(hex(tc13.iv), new Uint8Array(0), tag)).toHaveLength(0);
      for (let n = 0; n < TAG_BYTES; n++) {
        expect(k.open(hex(tc13.iv), new Uint8Array(0), tag.subarray(0, n))).toBeNull();
      }
    });
  });

  describe('C3 HKDF-SHA256', () => {
    it.each(hkdf.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      expect(toHex(crypto.hmacSha256(hex(v.salt), hex(v.ikm)))).toBe(v.prk);
      expect(toHex(crypto.hkdfSha256(hex(v.ikm), hex(v.salt), hex(v.info), v.length))).toBe(v.okm);
    });
  });

  describe('C4 PBKDF2-HMAC-SHA256 (async API)', () => {
    it.each(pbkdf2.map((v) => [v.name, v] as const))('%s', { timeout: 20_000 }, async (_n, v) => {
      const key = await crypto.pbkdf2Sha256(hex(v.password), hex(v.salt), v.iterations, v.length);
      expect(toHex(key)).toBe(v.key);
    });
  });

  describe('C5 HMAC-SHA256', () => {
    it.each(hmac.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      const mac = crypto.hmacSha256(hex(v.key), hex(v.data));
      expect(toHex(mac.subarray(0, v.truncate ?? mac.length))).toBe(v.mac);
    });

    it('MACs the concatenation of its parts', () => {
      const v = hmac[1]!;
      const data = hex(v.data);
      const mac = crypto.hmacSha256(hex(v.key), data.subarray(0, 5), new Uint8Array(0), data.subarray(5));
      expect(toHex(mac)).toBe(v.mac);
    });
  });

  describe('SHA-256 (FIPS 180-4 examples)', () => {
    it.each(sha.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      expect(toHex(crypto.sha256(hex(v.message)))).toBe(v.digest);
    });
  });

  describe('helpers', () => {
    it('equal() is false, never an exception, for unequal lengths (a 31-byte proof)', () => {
      const a = new Uint8Array(32).fill(7);
      expect(crypto.equal(a, a.slice())).toBe(true);
      expect(crypto.equal(a, a.subarray(0, 31))).toBe(false);
      expect(crypto.equal(a, new Uint8Array(0))).toBe(false);
      const b = a.slice();
      b[31] = 8;
      expect(crypto.equal(a, b)).toBe(false);
    });

    it('randomBytes gives the asked length and plain Uint8Arrays', () => {
      const r = crypto.randomBytes(16);
      expect(r).toHaveLength(16);
      expect(Object.getPrototypeOf(r)).toBe(Uint8Array.prototype);
      expect(toHex(r)).not.toBe(toHex(crypto.randomBytes(16)));
    });

    it('refuses a key that is not 32 bytes', () => {
      expect(() => crypto.aesGcm(new Uint8Array(16))).toThrow(RangeError);
    });
  });
});

describe('node crypto returns plain Uint8Arrays (no Buffer semantics leak into the protocol layer)', () => {
  it('for digests, MACs and opened payloads', async () => {
    const v = gcm[2]!;
    const outputs = [
      nodeCrypto.sha256(new Uint8Array(1)),
      nodeCrypto.hmacSha256(new Uint8Array(1), new Uint8Array(1)),
      nodeCrypto.hkdfSha256(new Uint8Array(1), new Uint8Array(1), new Uint8Array(1), 32),
      await nodeCrypto.pbkdf2Sha256(new Uint8Array(1), new Uint8Array(1), 1, 32),
      nodeCrypto.aesGcm(hex(v.key)).open(hex(v.iv), hex(v.aad), hex(v.ciphertext + v.tag))!,
    ];
    for (const out of outputs) expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
  });
});
