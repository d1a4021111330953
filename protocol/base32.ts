// Base32 with the RFC 4648 §6 alphabet, as the join code uses it (spec: "Join code").
// We write it without padding; we read it with or without padding, in any case, with dashes and
// spaces anywhere. Pure and total: bad text gives `undefined`, never an exception.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Value of each ASCII character code, -1 for a character outside the alphabet. Lower case maps like upper. */
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) {
  VALUE[ALPHABET.charCodeAt(i)] = i;
  VALUE[ALPHABET.toLowerCase().charCodeAt(i)] = i;
}

/** Characters a reader skips: dashes and spaces (tab, CR and LF count as spaces, for codes pasted across lines). */
const SKIP = new Set([0x2d, 0x20, 0x09, 0x0d, 0x0a]);

/** Padding characters RFC 4648 puts after `length % 5` trailing bytes (index = that remainder). */
const PAD_FOR_REST = [0, 6, 4, 3, 1] as const;

/** Encodes `bytes` as upper-case RFC 4648 base32 without padding. */
export function encodeBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff; // at most 4 + 8 bits are ever pending
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes RFC 4648 base32: padded or not, any case, dashes and spaces ignored. `undefined` for any
 * other character, padding that is not a correct trailing run, an impossible length, or non-zero
 * unused bits in the last character (so every text has at most one meaning and one change of a
 * character never gives the same bytes).
 */
export function decodeBase32(text: string): Uint8Array | undefined {
  if (typeof text !== 'string') return undefined;
  const values: number[] = [];
  let pad = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (SKIP.has(code)) continue;
    if (code === 0x3d) {
      pad++;
      continue;
    }
    if (pad > 0) return undefined; // data after padding
    const value = code < 128 ? VALUE[code]! : -1;
    if (value < 0) return undefined;
    values.push(value);
  }
  const length = Math.floor((values.length * 5) / 8);
  const rest = length % 5;
  // Only 0, 2, 4, 5 and 7 trailing characters make whole bytes; these are exactly the counts encode gives.
  if (Math.ceil((length * 8) / 5) !== values.length) return undefined;
  if (pad !== 0 && pad !== PAD_FOR_REST[rest]) return undefined;
  const out = new Uint8Array(length);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (const value of values) {
    buffer = ((buffer << 5) | value) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >>> bits) & 255;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined; // non-canonical: unused bits set
  return out;
}
