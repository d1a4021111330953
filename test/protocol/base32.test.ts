// Base32 (RFC 4648 §6) as the join code uses it: reliability-tests §3 vectors and §7.1 C6.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase32, encodeBase32 } from '../../protocol/base32.ts';
import { fromUtf8, utf8 } from '../../protocol/bytes.ts';

// RFC 4648 §10.
const VECTORS: [string, string][] = [
  ['', ''],
  ['f', 'MY======'],
  ['fo', 'MZXQ===='],
  ['foo', 'MZXW6==='],
  ['foob', 'MZXW6YQ='],
  ['fooba', 'MZXW6YTB'],
  ['foobar', 'MZXW6YTBOI======'],
];

const decodeText = (text: string) => {
  const bytes = decodeBase32(text);
  return bytes === undefined ? undefined : fromUtf8(bytes);
};

describe('base32: RFC 4648 vectors', () => {
  it.each(VECTORS)('encodes %j without padding', (plain, padded) => {
    expect(encodeBase32(utf8(plain))).toBe(padded.replace(/=/g, ''));
  });

  it.each(VECTORS)('decodes %j padded and unpadded', (plain, padded) => {
    expect(decodeText(padded)).toBe(plain);
    expect(decodeText(padded.replace(/=/g, ''))).toBe(plain);
  });

  it.each(VECTORS)('decodes %j in lower case, with dashes and with spaces', (plain, padded) => {
    const bare = padded.replace(/=/g, '');
    expect(decodeText(padded.toLowerCase())).toBe(plain);
    expect(decodeText(bare.replace(/(..)/g, '$1-'))).toBe(plain);
    expect(decodeText(` ${bare.split('').join(' ')} `)).toBe(plain);
    expect(decodeText(bare.replace(/(...)/g, '$1\n'))).toBe(plain);
  });
});

describe('base32: what decodes to nothing', () => {
  it.each([
    ['a character outside the alphabet', 'MZXW1'],
    ['the digit 0', 'MZXW0==='],
    ['a non-ASCII letter that upper-cases into the alphabet', 'MZXW6ı=='],
    ['an impossible length (1)', 'M'],
    ['an impossible length (3)', 'MZX'],
    ['an impossible length (6)', 'MZXW6Y'],
    ['data after padding', 'MY======MY'],
    ['too little padding', 'MY====='],
    ['too much padding', 'MY======='],
    ['padding on a whole block', 'MZXW6YTB========'],
    ['padding alone', '========'],
    ['non-zero unused bits', 'MZ'],
    ['non-zero unused bits, padded', 'MZ======'],
    ['an underscore separator', 'MZXW_6YTB'],
  ])('%s: %j', (_why, text) => {
    expect(decodeBase32(text)).toBeUndefined();
  });

  it('never throws, for any string', () => {
    // Any text, and texts of the alphabet (most decode): both outcomes counted.
    const seen = { decoded: 0, refused: 0 };
    const alphabetText = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), alphabetText), (text) => {
        const bytes = decodeBase32(text);
        expect(bytes === undefined || bytes instanceof Uint8Array).toBe(true);
        seen[bytes === undefined ? 'refused' : 'decoded']++;
      }),
      { numRuns: 2000 },
    );
    // Measured: about 300 decoded, 1700 refused.
    expect(seen.decoded).toBeGreaterThanOrEqual(150);
    expect(seen.refused).toBeGreaterThanOrEqual(800);
  });
});

describe('base32: properties', () => {
  it('decode(encode(x)) = x for 1000 random byte strings', () => {
    // Every length modulo 5 (each ends the text with another partial group), and long inputs.
    const byRest = [0, 0, 0, 0, 0];
    let long = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200, size: 'max' }), (bytes) => {
        byRest[bytes.length % 5]!++;
        if (bytes.length >= 100) long++;
        const text = encodeBase32(bytes);
        expect(text).toMatch(/^[A-Z2-7]*$/);
        expect(text.length).toBe(Math.ceil((bytes.length * 8) / 5));
        expect(decodeBase32(text)).toEqual(bytes);
      }),
      { numRuns: 1000 },
    );
    // Measured: about 200 of each rest, 460 of 100 bytes or more.
    for (const n of byRest) expect(n).toBeGreaterThanOrEqual(100);
    expect(long).toBeGreaterThanOrEqual(200);
  });

  it('a text has at most one meaning: whatever decodes re-encodes to the same characters', () => {
    const alphabet = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567');
    const seen = { decoded: 0, refused: 0 };
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 40 }), (text) => {
        const bytes = decodeBase32(text);
        if (bytes !== undefined) expect(encodeBase32(bytes)).toBe(text);
        seen[bytes === undefined ? 'refused' : 'decoded']++;
      }),
      { numRuns: 2000 },
    );
    // Measured: about 580 decoded (and re-encoded alike), 1420 refused.
    expect(seen.decoded).toBeGreaterThanOrEqual(300);
    expect(seen.refused).toBeGreaterThanOrEqual(700);
  });
});
