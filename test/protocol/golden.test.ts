// The FeverLink3 golden values (reliability-tests.md §3 and C7): session key with and without password, join
// proof, resume MACs and the sealed Hello frame, byte-exact with node:crypto AND @noble. Also the worked example
// of docs/PROTOCOL.md, checked with a plain AES-GCM call (what a third party would do).
import { createDecipheriv } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { fromHex, toHex, utf8 } from '../../protocol/bytes.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { FrameDecoder } from '../../protocol/frame.ts';
import { deriveSessionKey, joinProof, resumeMac } from '../../protocol/keys.ts';
import { nobleCrypto } from '../../protocol/nobleCrypto.ts';
import { Opener, Sealer, nonceFor } from '../../protocol/seal.ts';

interface Golden {
  source: string;
  secret: string;
  key: { source: string; value: string };
  passwordKey: { source: string; password: string; pbkdf2: string; value: string };
  proof: { source: string; nonce: string; name: string; value: string };
  resume: {
    source: string; token: string; nonce: string; id: number; name: string; mac: string; last: string; macLast: string;
  };
  sealedFrame: {
    source: string; version: number; kind: number; sender: number; counter: string;
    payload: string; nonce: string; wire: string;
  };
}

const golden = JSON.parse(readFileSync(new URL('./vectors/golden.json', import.meta.url), 'utf8')) as Golden;

function hex(text: string): Uint8Array {
  const bytes = fromHex(text);
  if (bytes === undefined) throw new Error(`bad hex: ${text}`);
  return bytes;
}

const secret = hex(golden.secret);
const key = hex(golden.key.value);

describe.each([['node', nodeCrypto], ['noble', nobleCrypto]] as [string, Crypto][])('%s', (_name, crypto) => {
  it('session key without password', async () => {
    expect(toHex(await deriveSessionKey(crypto, secret))).toBe(golden.key.value);
  });

  it('join proof', () => {
    expect(toHex(joinProof(crypto, key, hex(golden.proof.nonce), golden.proof.name))).toBe(golden.proof.value);
  });

  it('resume MAC, without and with last', () => {
    const r = golden.resume;
    expect(toHex(resumeMac(crypto, hex(r.token), hex(r.nonce), r.id, r.name))).toBe(r.mac);
    expect(toHex(resumeMac(crypto, hex(r.token), hex(r.nonce), r.id, r.name, BigInt(r.last)))).toBe(r.macLast);
  });

  it('sealed Hello frame: exact wire bytes, and it opens', () => {
    const f = golden.sealedFrame;
    const aead = crypto.aesGcm(key);
    const wire = new Sealer(aead, f.sender, { firstCounter: BigInt(f.counter) }).seal(f.kind, utf8(f.payload));
    expect(toHex(wire)).toBe(f.wire);
    expect(toHex(nonceFor(f.sender, BigInt(f.counter)))).toBe(f.nonce);
    const [frame] = new FrameDecoder().push(hex(f.wire));
    const opened = new Opener(aead).open(frame!);
    expect(opened.ok && new TextDecoder().decode(opened.payload)).toBe(f.payload);
  });

  it('password key (hunter2): PBKDF2 600 000 iterations once, async, then HKDF', { timeout: 30_000 }, async () => {
    const p = golden.passwordKey;
    // Records the PBKDF2 output on its way through, so the one expensive derivation checks both steps.
    const seen: Uint8Array[] = [];
    const recording: Crypto = {
      ...crypto,
      pbkdf2Sha256: async (password, salt, iterations, length) => {
        const expected = [toHex(utf8(p.password)), golden.secret, 600_000, 32];
        expect([toHex(password), toHex(salt), iterations, length]).toEqual(expected);
        const out = await crypto.pbkdf2Sha256(password, salt, iterations, length);
        seen.push(out);
        return out;
      },
    };
    let loopRan = false;
    setImmediate(() => {
      loopRan = true;
    });
    const derived = await deriveSessionKey(recording, secret, p.password);
    expect(seen.map(toHex)).toEqual([p.pbkdf2]);
    expect(toHex(derived)).toBe(p.value);
    expect(loopRan).toBe(true); // the event loop turned while the key was derived
  });
});

describe('worked example (docs/PROTOCOL.md), checked with a bare AES-GCM', () => {
  it('decrypts the golden wire bytes with node:crypto directly', () => {
    const wire = hex(golden.sealedFrame.wire);
    expect(new DataView(wire.buffer).getUint32(0)).toBe(wire.length - 4);
    const aad = wire.subarray(4, 16);
    const ct = wire.subarray(16, wire.length - 16);
    const tag = wire.subarray(wire.length - 16);
    const decipher = createDecipheriv('aes-256-gcm', key, hex(golden.sealedFrame.nonce), { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    const payload = Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
    expect(payload).toBe(golden.sealedFrame.payload);
    expect(toHex(aad)).toBe('011e00010000000000000001');
  });
});
