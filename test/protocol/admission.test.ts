// Steam invites (spec "Steam invites"): the connect token and the FL3A admission messages —
// round trips, the "update FeverLink3" reason, limits, hostile JSON and prototype pollution.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ADMISSION_MAGIC,
  MAX_ADMISSION_JSON_BYTES,
  MAX_CONNECT_TOKEN_BYTES,
  decodeAdmission,
  encodeAdmission,
  encodeConnectToken,
  parseConnectToken,
  type AdmissionMessage,
  type ConnectToken,
} from '../../protocol/admission.ts';
import { concatBytes, fromUtf8, utf8 } from '../../protocol/bytes.ts';

const HOST = '76561197960287930';
const SESSION = '0123456789abcdef';
const TICKET = 'fedcba9876543210';

const hex = (digits: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: digits, maxLength: digits });
const steamId = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 17, maxLength: 17 });
const raw = (json: string) => concatBytes(utf8(ADMISSION_MAGIC), utf8(json));

describe('connect token', () => {
  it('encodes the payload of the spec', () => {
    expect(encodeConnectToken({ host: HOST, session: SESSION })).toBe(`1:${HOST}:${SESSION}`);
    expect(encodeConnectToken({ host: HOST, session: SESSION, ticket: TICKET })).toBe(`1:${HOST}:${SESSION}:${TICKET}`);
  });

  it('round trips, alone and as the whole launch argument', () => {
    const seen = { ticket: 0, none: 0 };
    fc.assert(
      fc.property(steamId, hex(16), fc.option(hex(16), { nil: undefined }), (host, session, ticket) => {
        seen[ticket === undefined ? 'none' : 'ticket']++;
        const token: ConnectToken = ticket === undefined ? { host, session } : { host, session, ticket };
        const payload = encodeConnectToken(token);
        expect(utf8(payload).length).toBeLessThanOrEqual(MAX_CONNECT_TOKEN_BYTES);
        expect(parseConnectToken(payload)).toEqual({ ok: true, token });
        expect(parseConnectToken(`+feverlink3_join ${payload}`)).toEqual({ ok: true, token });
      }),
      { numRuns: 500 },
    );
    // Both shapes (the overlay invite's, with a ticket, and rich presence's, without): about 400 and 100.
    expect(seen.ticket).toBeGreaterThanOrEqual(200);
    expect(seen.none).toBeGreaterThanOrEqual(40);
  });

  it('refuses for its length exactly the texts over 255 bytes, both ways, at the cap', () => {
    // Texts around the cap: a token's start, then hex or two-byte characters up to 240–270 bytes. One of 255 bytes
    // or fewer is never refused for its length (it may be for its shape); one over is always, before its shape.
    const seen = { under: 0, atCap: 0, over: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 240, max: 270 }), fc.nat(8), fc.boolean(), (bytes, wide, spaced) => {
        const start = `1:${HOST}:${SESSION}:`;
        const fill = bytes - start.length - 2 * wide;
        const text = `${start}${'é'.repeat(wide)}${'a'.repeat(fill)}`;
        expect(utf8(text).length).toBe(bytes);
        const result = parseConnectToken(spaced ? `  +feverlink3_join ${text}\n` : text);
        const forLength = !result.ok && result.reason.includes('at most 255');
        expect(forLength, `${bytes} bytes: ${result.ok ? 'ok' : result.reason}`).toBe(bytes > MAX_CONNECT_TOKEN_BYTES);
        if (bytes > MAX_CONNECT_TOKEN_BYTES) seen.over++;
        else seen.under++;
        if (bytes === MAX_CONNECT_TOKEN_BYTES) seen.atCap++;
      }),
      { numRuns: 300 },
    );
    expect(seen.under).toBeGreaterThanOrEqual(60);
    expect(seen.over).toBeGreaterThanOrEqual(60);
    expect(seen.atCap).toBeGreaterThanOrEqual(1);
  });

  it('reads upper-case hex and surrounding spaces, and gives the hex back in lower case', () => {
    const result = parseConnectToken(`  +feverlink3_join   1:${HOST}:${SESSION.toUpperCase()}:${TICKET.toUpperCase()}\n`);
    expect(result).toEqual({ ok: true, token: { host: HOST, session: SESSION, ticket: TICKET } });
  });

  it.each(['2', '0', '10', '01'])('format %s says "update FeverLink3"', (format) => {
    const result = parseConnectToken(`${format}:${HOST}:${SESSION}`);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('update FeverLink3');
  });

  it('a future format with another shape still says "update FeverLink3"', () => {
    const result = parseConnectToken(`+feverlink3_join 2:something:else:entirely:new`);
    expect(!result.ok && result.reason).toContain('update FeverLink3');
  });

  it.each([
    ['256 ASCII bytes', `1:${HOST}:${SESSION}:${'0'.repeat(256 - 37)}`],
    ['257 bytes in 147 characters', `1:${HOST}:${SESSION}:${'é'.repeat(110)}`],
    ['a megabyte', `1:${'1'.repeat(1 << 20)}`],
  ])('too long: %s', (_why, text) => {
    expect(utf8(text).length).toBeGreaterThan(MAX_CONNECT_TOKEN_BYTES);
    const result = parseConnectToken(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('at most 255');
  });

  it.each([
    ['empty', ''],
    ['only the argument', '+feverlink3_join'],
    ['the argument glued to the payload', `+feverlink3_join1:${HOST}:${SESSION}`],
    ['no format number', `x:${HOST}:${SESSION}`],
    ['a join code', 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ'],
    ['too few fields', `1:${HOST}`],
    ['too many fields', `1:${HOST}:${SESSION}:${TICKET}:${TICKET}`],
    ['a 16-digit host', `1:${HOST.slice(1)}:${SESSION}`],
    ['a host with a letter', `1:7656119796028793a:${SESSION}`],
    ['session of 15 hex digits', `1:${HOST}:${SESSION.slice(1)}`],
    ['session with a non-hex letter', `1:${HOST}:0123456789abcdeg`],
    ['ticket of 17 hex digits', `1:${HOST}:${SESSION}:${TICKET}0`],
    ['an empty ticket', `1:${HOST}:${SESSION}:`],
    ['ticket with a space', `1:${HOST}:${SESSION}:fedcba98 6543210`],
  ])('refused: %s', (_why, text) => {
    const result = parseConnectToken(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });

  it('never throws, whatever it is given', () => {
    const reasons = new Set<string>();
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything()), (text) => {
        const result = parseConnectToken(text as string);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) reasons.add(result.reason.replace(/\d+/g, 'N'));
      }),
      { numRuns: 3000 },
    );
    // It reached past the first checks: not text, empty, not a token, a field count (measured: 5–6 kinds).
    expect(reasons.size).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['host', { host: '123', session: SESSION }],
    ['session', { host: HOST, session: 'xyz' }],
    ['ticket', { host: HOST, session: SESSION, ticket: TICKET + '0' }],
  ])('encoding a bad %s throws and names it', (field, token) => {
    expect(() => encodeConnectToken(token)).toThrow(RangeError);
    expect(() => encodeConnectToken(token)).toThrow(`token.${field}`);
  });
});

const message: fc.Arbitrary<AdmissionMessage> = fc.oneof(
  fc
    .record({ session: hex(16), ticket: fc.option(hex(16), { nil: undefined }), name: fc.string(), version: fc.string() })
    .map(({ session, ticket, name, version }): AdmissionMessage =>
      ticket === undefined
        ? { type: 'request', session, name, version }
        : { type: 'request', session, ticket, name, version },
    ),
  fc.constant<AdmissionMessage>({ type: 'waiting' }),
  hex(64).map((key): AdmissionMessage => ({ type: 'admitted', key })),
  fc.string({ unit: 'binary', maxLength: 300 }).map((reason): AdmissionMessage => ({ type: 'refused', reason })),
);

describe('admission messages', () => {
  it('writes FL3A then the JSON with its type in the field "type"', () => {
    const bytes = encodeAdmission({ type: 'request', session: SESSION, name: 'alice', version: '0.1.0' });
    expect(fromUtf8(bytes)).toBe(`FL3A{"type":"request","session":"${SESSION}","name":"alice","version":"0.1.0"}`);
    expect(fromUtf8(encodeAdmission({ type: 'waiting' }))).toBe('FL3A{"type":"waiting"}');
  });

  it('round trips every kind', () => {
    const kinds = new Map<string, number>();
    fc.assert(
      fc.property(message, (m) => {
        const kind = m.type === 'request' && m.ticket !== undefined ? 'request+ticket' : m.type;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        const bytes = encodeAdmission(m);
        expect(bytes.length).toBeLessThanOrEqual(4 + MAX_ADMISSION_JSON_BYTES);
        expect(decodeAdmission(bytes)).toEqual({ ok: true, message: m });
      }),
      { numRuns: 1000 },
    );
    // Every kind, and a request with and without its ticket (measured about 250 each; 210 and 35–45 requests).
    for (const kind of ['request+ticket', 'waiting', 'admitted', 'refused']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(120);
    }
    expect(kinds.get('request') ?? 0, 'request without a ticket').toBeGreaterThanOrEqual(15);
  });

  it('at the 2048-byte JSON cap, both ways: encodes and decodes exactly what fits, refuses what does not', () => {
    // A refused reason or a request name sized to put the JSON at 2030–2070 bytes, with multi-byte characters.
    const seen = { fits: 0, atCap: 0, over: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 2030, max: 2070 }),
        fc.nat(10),
        fc.constantFrom('refused', 'request'),
        (size, wide, type) => {
          const shell = (text: string): AdmissionMessage =>
            type === 'refused' ? { type, reason: text } : { type, session: SESSION, name: text, version: '1' };
          const empty = utf8(JSON.stringify(shell(''))).length;
          const text = 'ü'.repeat(wide) + 'x'.repeat(size - empty - 2 * wide);
          const m = shell(text);
          const json = JSON.stringify(m);
          expect(utf8(json).length).toBe(size);
          const fits = size <= MAX_ADMISSION_JSON_BYTES;
          if (fits) {
            expect(decodeAdmission(encodeAdmission(m))).toEqual({ ok: true, message: m });
          } else {
            expect(() => encodeAdmission(m)).toThrow(/at most 2048/);
          }
          const decoded = decodeAdmission(raw(json));
          expect(decoded.ok, `${size} bytes`).toBe(fits);
          if (!decoded.ok) expect(decoded.reason).toContain('at most 2048');
          if (fits) seen.fits++;
          else seen.over++;
          if (size === MAX_ADMISSION_JSON_BYTES) seen.atCap++;
        },
      ),
      { numRuns: 300 },
    );
    expect(seen.fits).toBeGreaterThanOrEqual(60);
    expect(seen.over).toBeGreaterThanOrEqual(60);
    expect(seen.atCap).toBeGreaterThanOrEqual(1);
  });

  it('reads upper-case hex, ignores unknown fields and takes a null ticket as none', () => {
    const key = 'AB'.repeat(32);
    expect(decodeAdmission(raw(`{"type":"admitted","key":"${key}","extra":[1,2]}`))).toEqual({
      ok: true,
      message: { type: 'admitted', key: key.toLowerCase() },
    });
    expect(decodeAdmission(raw(`{"name":"bob","ticket":null,"version":"1","session":"${SESSION}","type":"request"}`)))
      .toEqual({ ok: true, message: { type: 'request', session: SESSION, name: 'bob', version: '1' } });
  });

  it('accepts JSON of exactly 2048 bytes and refuses 2049, both ways', () => {
    const fill = (n: number) => 'x'.repeat(n - utf8('{"type":"refused","reason":""}').length);
    expect(encodeAdmission({ type: 'refused', reason: fill(2048) })).toHaveLength(4 + 2048);
    expect(() => encodeAdmission({ type: 'refused', reason: fill(2049) })).toThrow(RangeError);
    expect(decodeAdmission(raw(`{"type":"refused","reason":"${fill(2048)}"}`)).ok).toBe(true);
    const over = decodeAdmission(raw(`{"type":"refused","reason":"${fill(2049)}"}`));
    expect(over).toEqual({ ok: false, reason: expect.stringContaining('at most 2048') });
  });

  it.each([
    ['no bytes', new Uint8Array(0)],
    ['the magic cut short', utf8('FL3')],
    ['another magic', utf8('FL3B{"type":"waiting"}')],
    ['lower-case magic', utf8('fl3a{"type":"waiting"}')],
    ['JSON without magic', utf8('{"type":"waiting"}')],
  ])('bad magic: %s', (_why, bytes) => {
    expect(decodeAdmission(bytes)).toEqual({ ok: false, reason: expect.stringContaining('FL3A') });
  });

  it.each([
    ['invalid UTF-8', concatBytes(utf8('FL3A'), Uint8Array.of(0x7b, 0xff, 0x7d))],
    ['not JSON', raw('{"type":')],
    ['nothing after the magic', raw('')],
    ['an array', raw('[{"type":"waiting"}]')],
    ['null', raw('null')],
    ['a string', raw('"waiting"')],
    ['no type', raw('{}')],
    ['an unknown type', raw('{"type":"welcome"}')],
    ['a type of another case', raw('{"type":"Waiting"}')],
    ['a request without a name', raw(`{"type":"request","session":"${SESSION}","version":"1"}`)],
    ['a request with a number for a name', raw(`{"type":"request","session":"${SESSION}","name":1,"version":"1"}`)],
    ['a request without a version', raw(`{"type":"request","session":"${SESSION}","name":"a"}`)],
    ['a request with a short session', raw('{"type":"request","session":"0123","name":"a","version":"1"}')],
    ['a request with a bad ticket', raw(`{"type":"request","session":"${SESSION}","ticket":7,"name":"a","version":"1"}`)],
    ['admitted with a 31-byte key', raw(`{"type":"admitted","key":"${'ab'.repeat(31)}"}`)],
    ['admitted with no key', raw('{"type":"admitted"}')],
    ['refused with no reason', raw('{"type":"refused"}')],
  ])('refused: %s', (_why, bytes) => {
    const result = decodeAdmission(bytes);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });

  it('never throws on any JSON value or any bytes after the magic', () => {
    const reasons = new Set<string>();
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true }), (value) => {
        let json: string | undefined;
        try {
          json = JSON.stringify(value);
        } catch {
          json = undefined;
        }
        const result = decodeAdmission(raw(json ?? 'undefined'));
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) reasons.add(result.reason);
      }),
      { numRuns: 2000 },
    );
    // The values reached the JSON and object checks, not only the parse (measured: 3 kinds of refusal).
    expect(reasons).toContain('admission: not JSON');
    expect(reasons).toContain('admission: not a JSON object');
    const tails = { over: 0, notUtf8: 0 };
    fc.assert(
      // size 'max': lengths spread to 3000 (fast-check's default size keeps them under a few dozen bytes).
      fc.property(fc.uint8Array({ maxLength: 3000, size: 'max' }), (tail) => {
        const result = decodeAdmission(concatBytes(utf8('FL3A'), tail));
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok && result.reason.includes('at most 2048')) tails.over++;
        if (!result.ok && result.reason.includes('not UTF-8')) tails.notUtf8++;
      }),
      { numRuns: 1000 },
    );
    // Tails over the cap and tails of bad UTF-8 under it (measured: about 290 and 695 of 1000).
    expect(tails.over).toBeGreaterThanOrEqual(150);
    expect(tails.notUtf8).toBeGreaterThanOrEqual(400);
    expect(decodeAdmission('FL3A{}' as unknown as Uint8Array).ok).toBe(false);
  });

  it('a __proto__ payload does not pollute, and an inherited type is not read', () => {
    const result = decodeAdmission(
      raw('{"type":"refused","reason":"no","__proto__":{"polluted":true,"type":"admitted"},"constructor":{"prototype":{"x":1}}}'),
    );
    expect(result).toEqual({ ok: true, message: { type: 'refused', reason: 'no' } });
    expect(result.ok && Object.keys(result.message)).toEqual(['type', 'reason']);
    expect(result.ok && Object.getPrototypeOf(result.message)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(decodeAdmission(raw('{"__proto__":{"type":"waiting"}}')).ok).toBe(false);
  });

  it('reads own fields only, even when something else has polluted Object.prototype', () => {
    const proto = Object.prototype as Record<string, unknown>;
    Object.defineProperty(proto, 'type', { value: 'refused', configurable: true, writable: true });
    Object.defineProperty(proto, 'reason', { value: 'inherited', configurable: true, writable: true });
    try {
      expect(decodeAdmission(raw('{}')).ok).toBe(false);
      expect(decodeAdmission(raw('{"type":"refused"}')).ok).toBe(false);
    } finally {
      delete proto.type;
      delete proto.reason;
    }
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it.each([
    ['a bad session', { type: 'request', session: 'x', name: 'a', version: '1' }, 'message.session'],
    ['a bad ticket', { type: 'request', session: SESSION, ticket: '', name: 'a', version: '1' }, 'message.ticket'],
    ['a name that is no string', { type: 'request', session: SESSION, name: 1, version: '1' }, 'message.name'],
    ['a short key', { type: 'admitted', key: 'ab' }, 'message.key'],
    ['an unknown type', { type: 'hello' }, 'message.type'],
  ])('encoding %s throws and names the field', (_why, m, field) => {
    expect(() => encodeAdmission(m as AdmissionMessage)).toThrow(field);
  });
});
