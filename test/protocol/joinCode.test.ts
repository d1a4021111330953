// Join code (spec "Join code"): the golden vector of reliability-tests §3 (C7), round trips, every
// single-character substitution (H7), hostile text, shape failures, and the IPv4/IPv6 text forms.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase32, encodeBase32 } from '../../protocol/base32.ts';
import { concatBytes, fromHex, toHex } from '../../protocol/bytes.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import {
  decodeJoinCode,
  encodeJoinCode,
  formatIpAddress,
  parseIpAddress,
  type Endpoint,
} from '../../protocol/joinCode.ts';
import { nobleCrypto } from '../../protocol/nobleCrypto.ts';

const GOLDEN_HEX = '016553f100000102030405060708090a0b0c0d0e0f01047f00000169877aa66858';
const GOLDEN_TEXT = 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ';
const GOLDEN_SECRET = fromHex('000102030405060708090a0b0c0d0e0f')!;
const GOLDEN = { created: 1_700_000_000, secret: GOLDEN_SECRET, endpoints: [{ host: '127.0.0.1', port: 27015 }] };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Only SHA-256 is used by the join code: node:crypto's, to check the code against a second implementation. */
const nodeSha: Crypto = {
  ...nobleCrypto,
  name: 'node-sha256',
  sha256: (data) => new Uint8Array(createHash('sha256').update(data).digest()),
};

/** Body bytes plus a correct check: for shapes the encoder would never write. */
function withCheck(bodyHex: string): string {
  const body = fromHex(bodyHex)!;
  return encodeBase32(concatBytes(body, nobleCrypto.sha256(body).subarray(0, 4)));
}

/** RFC 5952 text by the WHATWG URL parser, an independent formatter (it does not dot IPv4-mapped addresses). */
function urlForm(ipv6: string): string {
  return new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
}

describe('join code: golden vector (reliability-tests §3)', () => {
  it.each([nobleCrypto, nodeSha])('encodes the golden bytes and text exactly (%s)', (crypto) => {
    const text = encodeJoinCode(GOLDEN, crypto);
    expect(text).toBe(GOLDEN_TEXT);
    expect(text).toHaveLength(53);
    expect(toHex(decodeBase32(text)!)).toBe(GOLDEN_HEX);
  });

  it.each([nobleCrypto, nodeSha])('decodes the golden text (%s)', (crypto) => {
    expect(decodeJoinCode(GOLDEN_TEXT, crypto)).toEqual({ version: 1, ...GOLDEN });
  });

  it('decodes it in lower case, with dashes, spaces and padding', () => {
    const expected = { version: 1, ...GOLDEN };
    expect(decodeJoinCode(GOLDEN_TEXT.toLowerCase())).toEqual(expected);
    expect(decodeJoinCode(GOLDEN_TEXT.replace(/(.{5})/g, '$1-'))).toEqual(expected);
    expect(decodeJoinCode(` ${GOLDEN_TEXT.replace(/(.{8})/g, '$1 ')} `)).toEqual(expected);
    expect(decodeJoinCode(`${GOLDEN_TEXT}===`)).toEqual(expected);
  });

  it('every single-character substitution (53 × 31) decodes to nothing (H7)', () => {
    let tried = 0;
    for (let i = 0; i < GOLDEN_TEXT.length; i++) {
      for (const c of ALPHABET) {
        if (c === GOLDEN_TEXT[i]) continue;
        const text = GOLDEN_TEXT.slice(0, i) + c + GOLDEN_TEXT.slice(i + 1);
        expect(decodeJoinCode(text), text).toBeUndefined();
        tried++;
      }
    }
    expect(tried).toBe(53 * 31);
  });
});

const ipv4 = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
const ipv6 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => formatIpAddress(b));
const endpoint: fc.Arbitrary<Endpoint> = fc.record({
  host: fc.oneof(ipv4, ipv6, fc.ipV4(), fc.ipV6().map((a) => formatIpAddress(parseIpAddress(a)!.bytes))),
  port: fc.integer({ min: 1, max: 65535 }),
});

describe('join code: round trip', () => {
  it('decode(encode(x)) = x for random secrets, times and 0..8 endpoints of both families', () => {
    // Coverage: codes with no endpoint, with both families, with 5 or more endpoints.
    const seen = { none: 0, bothFamilies: 0, many: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.array(endpoint, { maxLength: 8 }),
        (created, secret, endpoints) => {
          const v6 = endpoints.filter((e) => e.host.includes(':')).length;
          if (endpoints.length === 0) seen.none++;
          if (v6 > 0 && v6 < endpoints.length) seen.bothFamilies++;
          if (endpoints.length >= 5) seen.many++;
          const text = encodeJoinCode({ created, secret, endpoints });
          const bytes = 1 + 4 + 16 + 1 + endpoints.reduce((n, e) => n + (e.host.includes(':') ? 19 : 7), 0) + 4;
          expect(text).toHaveLength(Math.ceil((bytes * 8) / 5));
          expect(decodeJoinCode(text)).toEqual({ version: 1, created, secret, endpoints });
          expect(decodeJoinCode(text, nodeSha)).toEqual({ version: 1, created, secret, endpoints });
        },
      ),
      { numRuns: 500 },
    );
    // Measured of 500: 52–66 with none, 300–340 with both families, about 200 with 5 or more.
    expect(seen.none).toBeGreaterThanOrEqual(20);
    expect(seen.bothFamilies).toBeGreaterThanOrEqual(150);
    expect(seen.many).toBeGreaterThanOrEqual(90);
  });

  it('prints IPv6 endpoints in RFC 5952 form whatever form they were given in', () => {
    const code = encodeJoinCode({
      created: 1,
      secret: GOLDEN_SECRET,
      endpoints: [
        { host: '2001:0DB8:0000:0000:0000:0000:0000:0001', port: 1 },
        { host: '::FFFF:7f00:1', port: 65535 },
      ],
    });
    expect(decodeJoinCode(code)?.endpoints).toEqual([
      { host: '2001:db8::1', port: 1 },
      { host: '::ffff:127.0.0.1', port: 65535 },
    ]);
  });
});

describe('join code: what decodes to nothing', () => {
  // The golden body with one field changed, then a correct check, so only the shape can refuse it.
  const secret = '000102030405060708090a0b0c0d0e0f';
  it.each([
    ['version 0', `006553f100${secret}01047f0000016987`],
    ['version 2', `026553f100${secret}01047f0000016987`],
    ['family 5', `016553f100${secret}01057f0000016987`],
    ['family 6 with 4 address bytes', `016553f100${secret}01067f0000016987`],
    ['count 9', `016553f100${secret}09${'047f0000016987'.repeat(9)}`],
    ['count 1, no endpoint', `016553f100${secret}01`],
    ['count 0 with an endpoint after it', `016553f100${secret}00047f0000016987`],
    ['a trailing byte', `016553f100${secret}01047f000001698700`],
    ['a port cut short', `016553f100${secret}01047f00000169`],
    ['port 0', `016553f100${secret}01047f0000010000`],
    ['no count', `016553f100${secret}`],
  ])('%s', (_why, body) => {
    expect(decodeJoinCode(withCheck(body))).toBeUndefined();
  });

  it('a correct shape still decodes (the helper above is sound)', () => {
    expect(withCheck(`016553f100${secret}01047f0000016987`)).toBe(GOLDEN_TEXT);
    expect(decodeJoinCode(withCheck(`016553f100${secret}00`))?.endpoints).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['a check byte flipped', encodeBase32(fromHex(GOLDEN_HEX.slice(0, -2) + '59')!)],
    ['the check missing', encodeBase32(fromHex(GOLDEN_HEX.slice(0, -8))!)],
    ['not base32', 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUF1'],
    ['the code twice', GOLDEN_TEXT + GOLDEN_TEXT],
    ['a huge paste', GOLDEN_TEXT + ' '.repeat(10_000)],
  ])('%s', (_why, text) => {
    expect(decodeJoinCode(text)).toBeUndefined();
  });

  it('never throws on random strings, full Unicode, base32-looking text or anything at all', () => {
    const base32ish = fc.string({ unit: fc.constantFrom(...ALPHABET, '-', ' ', '='), minLength: 40, maxLength: 60 });
    // Coverage: texts that are base32 of a code's length (they reach the version and checksum checks), and
    // values that are not strings at all.
    let base32 = 0;
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), base32ish), (text) => {
        expect(decodeJoinCode(text)).toBeUndefined();
        if (/^[A-Z2-7]{40,}$/.test(text.replace(/[- ]/g, ''))) base32++;
      }),
      { numRuns: 10_000 },
    );
    let notText = 0;
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(decodeJoinCode(value as string)).toBeUndefined();
        if (typeof value !== 'string') notText++;
      }),
      { numRuns: 1000 },
    );
    // Measured: about 680 of the 10 000 texts base32 of a code's length, 920 of the 1000 values not strings.
    expect(base32).toBeGreaterThanOrEqual(300);
    expect(notText).toBeGreaterThanOrEqual(450);
  });
});

describe('join code: our own bad data throws, naming the argument', () => {
  const base = { created: 1, secret: GOLDEN_SECRET, endpoints: [] as Endpoint[] };
  it.each([
    ['created -1', { ...base, created: -1 }, RangeError, 'code.created'],
    ['created 2^32', { ...base, created: 2 ** 32 }, RangeError, 'code.created'],
    ['created 1.5', { ...base, created: 1.5 }, RangeError, 'code.created'],
    ['a 15-byte secret', { ...base, secret: new Uint8Array(15) }, RangeError, 'code.secret'],
    ['a secret that is not bytes', { ...base, secret: [0] as unknown as Uint8Array }, TypeError, 'code.secret'],
    ['9 endpoints', { ...base, endpoints: Array(9).fill({ host: '::1', port: 1 }) }, RangeError, 'code.endpoints'],
    ['a host name', { ...base, endpoints: [{ host: 'localhost', port: 1 }] }, RangeError, 'code.endpoints[0].host'],
    ['a leading zero', { ...base, endpoints: [{ host: '10.0.0.01', port: 1 }] }, RangeError, 'code.endpoints[0].host'],
    ['an IPv6 zone', { ...base, endpoints: [{ host: 'fe80::1%eth0', port: 1 }] }, RangeError, 'code.endpoints[0].host'],
    ['brackets', { ...base, endpoints: [{ host: '[::1]', port: 1 }] }, RangeError, 'code.endpoints[0].host'],
    ['port 0', { ...base, endpoints: [{ host: '::1', port: 0 }] }, RangeError, 'code.endpoints[0].port'],
    ['port 65536', { ...base, endpoints: [{ host: '::1', port: 65536 }] }, RangeError, 'code.endpoints[0].port'],
    ['a null endpoint', { ...base, endpoints: [null as unknown as Endpoint] }, TypeError, 'code.endpoints[0]'],
  ] as const)('%s', (_why, code, kind, name) => {
    expect(() => encodeJoinCode(code)).toThrow(kind);
    expect(() => encodeJoinCode(code)).toThrow(name);
  });
});

describe('IP addresses in text', () => {
  it.each([
    ['::1', '::1'],
    ['::', '::'],
    ['fe80::1', 'fe80::1'],
    ['FE80:0000:0000:0000:0000:0000:0000:0001', 'fe80::1'],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329', '2001:db8::ff00:42:8329'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['1:0:1:1:1:1:1:1', '1:0:1:1:1:1:1:1'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
    ['::ffff:7f00:1', '::ffff:127.0.0.1'],
    ['0:0:0:0:0:ffff:1.2.3.4', '::ffff:1.2.3.4'],
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['127.0.0.1', '127.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
  ])('%s prints as %s', (text, printed) => {
    expect(formatIpAddress(parseIpAddress(text)!.bytes)).toBe(printed);
  });

  it.each([
    '', ':', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'g::', '::1.2.3', '::1.2.3.256',
    '1.2.3.4::', '::1%eth0', '[::1]', ' ::1', '1.2.3', '1.2.3.4.5', '256.0.0.0', '01.2.3.4', '1.2.3.-4', '+1.2.3.4',
    '1:2:3:4:5:6:7:8::', '::1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:1.2.3.4',
  ])('%j is not an address', (text) => {
    expect(parseIpAddress(text)).toBeUndefined();
  });

  it('agrees with the WHATWG URL parser on the printed form of random IPv6 addresses', () => {
    // Coverage: printed compressed (a zero run), in full, and as an IPv4-mapped address.
    const seen = { compressed: 0, full: 0, mapped: 0 };
    // fc.ipV6() gives compressed and dotted forms; random bytes written out in full give long zero runs rarely.
    const fullForm = fc
      .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
      .map((groups) => groups.map((g) => g.toString(16).padStart(4, '0')).join(':'));
    fc.assert(
      // IPv4-mapped addresses too (fc.ipV6 gives none: the mapped branch was never reached without them).
      fc.property(fc.oneof(fc.ipV6(), fullForm, fc.ipV4().map((v4) => `::ffff:${v4}`)), (text) => {
        const parsed = parseIpAddress(text);
        expect(parsed?.family).toBe(6);
        const printed = formatIpAddress(parsed!.bytes);
        expect(urlForm(printed)).toBe(urlForm(text));
        const mapped = printed.startsWith('::ffff:') && printed.includes('.');
        if (!mapped) expect(printed).toBe(urlForm(text));
        seen[mapped ? 'mapped' : printed.includes('::') ? 'compressed' : 'full']++;
      }),
      { numRuns: 2000 },
    );
    // Measured of 2000: about 940 compressed, 370 in full, 680 mapped.
    expect(seen.compressed).toBeGreaterThanOrEqual(450);
    expect(seen.full).toBeGreaterThanOrEqual(180);
    expect(seen.mapped).toBeGreaterThanOrEqual(300);
  });

  it('accepts exactly what node:net accepts as IPv6 (no zones), on random text', () => {
    const unit = fc.constantFrom('0', '1', 'f', 'F', 'g', ':', ':', ':', '.', '2', '5');
    // Both answers (random text is mostly refused; the many colons make some of it an address).
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), (text) => {
        expect(parseIpAddress(text)?.family === 6, text).toBe(isIPv6(text));
        seen[isIPv6(text) ? 'accepted' : 'refused']++;
      }),
      { numRuns: 5000 },
    );
    // Measured of 5000: about 190–205 accepted.
    expect(seen.accepted).toBeGreaterThanOrEqual(90);
    expect(seen.refused).toBeGreaterThanOrEqual(2000);
  });
});
