// Payload fuzzing (reliability-tests.md §7.6 F2): hostile values and bytes for every kind are handled or
// refused with a reason, never thrown; nothing reaches Object.prototype; accepted payloads round-trip.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  KIND_NAMES,
  decodePayload,
  encodePayload,
  payloadToJson,
  validatePayload,
} from '../../protocol/messages/index.ts';
import type { DecodeResult, JsonValue, KindName } from '../../protocol/messages/index.ts';
import { EXAMPLES } from '../../protocol/messages/examples.ts';

const kinds = fc.constantFrom(...KIND_NAMES);
const wire = (kind: KindName) => JSON.parse(payloadToJson(kind, EXAMPLES[kind] as never)) as Record<string, unknown>;

const objectProtoNames = Object.getOwnPropertyNames(Object.prototype).sort();
const arrayProtoNames = Object.getOwnPropertyNames(Array.prototype).sort();

/** A result is either a value or a reason that starts with the kind's name. */
function wellFormed(kind: KindName, r: DecodeResult<unknown>): void {
  if (r.ok) return;
  expect(typeof r.reason).toBe('string');
  expect(r.reason.startsWith(kind), r.reason).toBe(true);
  expect(r.reason.length).toBeLessThan(200);
}

/** Accepted payloads are stable: decode(encode(v)) writes the same JSON text again. */
function stable(kind: KindName, r: DecodeResult<unknown>): void {
  if (!r.ok) return;
  const text = payloadToJson(kind, r.value as never);
  const again = decodePayload(kind, encodePayload(kind, r.value as never));
  expect(again.ok, again.ok ? '' : again.reason).toBe(true);
  if (again.ok) expect(payloadToJson(kind, again.value as never)).toBe(text);
}

/** Every object in a decoded value has an ordinary prototype (or none). */
function ordinary(value: unknown, depth = 0): void {
  if (typeof value !== 'object' || value === null || depth > 80) return;
  const proto: unknown = Object.getPrototypeOf(value);
  expect([Object.prototype, Array.prototype, Uint8Array.prototype, null]).toContain(proto);
  for (const key of Object.keys(value)) ordinary((value as Record<string, unknown>)[key], depth + 1);
}

/** Hostile keys, as JSON.parse makes them: own data properties. */
const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'polluted', 'toString', 'valueOf');
const hostileObject: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.dictionary(fc.oneof(hostileKey, fc.string()), tie('node'), { maxKeys: 4 }),
    fc.array(tie('node'), { maxLength: 3 }),
  ),
})).node.map((v) => JSON.parse(JSON.stringify(v).replaceAll('"polluted"', '"__proto__"')) as unknown);

afterAll(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(objectProtoNames);
  expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayProtoNames);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

/** fc.anything() with every kind of non-JSON value switched on as well. */
const everything = {
  withBigInt: true,
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
  withSparseArray: true,
  withNullPrototype: true,
  withObjectString: true,
};

/** Counts of what a property reached, by name (checked against floors after the runs). */
function tally(): { add(key: string): void; get(key: string): number; all(): Record<string, number> } {
  const counts = new Map<string, number>();
  return {
    add: (key) => void counts.set(key, (counts.get(key) ?? 0) + 1),
    get: (key) => counts.get(key) ?? 0,
    all: () => Object.fromEntries(counts),
  };
}

describe('payload fuzzing', () => {
  it('validatePayload never throws on fc.anything() for any kind', () => {
    const seen = tally();
    fc.assert(
      fc.property(kinds, fc.anything(everything), (kind, value) => {
        const r = validatePayload(kind, value);
        wellFormed(kind, r);
        seen.add(r.ok ? 'accepted' : 'refused');
        seen.add(`kind:${kind}`);
      }),
      { numRuns: 20_000 },
    );
    // Measured of 20 000: about 730 accepted, 19 270 refused, each kind 520–610 times.
    expect(seen.get('accepted')).toBeGreaterThanOrEqual(300);
    expect(seen.get('refused')).toBeGreaterThanOrEqual(10_000);
    for (const kind of KIND_NAMES) expect(seen.get(`kind:${kind}`), kind).toBeGreaterThanOrEqual(300);
  });

  it('validatePayload never throws on fc.jsonValue() for any kind, and what it accepts round-trips', () => {
    const seen = tally();
    fc.assert(
      fc.property(kinds, fc.jsonValue(), (kind, value) => {
        const r = validatePayload(kind, value);
        wellFormed(kind, r);
        stable(kind, r);
        seen.add(r.ok ? 'accepted' : 'refused');
      }),
      { numRuns: 5_000 },
    );
    // Measured of 5000: about 140 accepted (and checked stable).
    expect(seen.get('accepted')).toBeGreaterThanOrEqual(60);
  });

  it('decodePayload never throws on random bytes, nor on JSON text', () => {
    const seen = tally();
    fc.assert(
      fc.property(kinds, fc.uint8Array({ maxLength: 512 }), (kind, bytes) => {
        const r = decodePayload(kind, bytes);
        wellFormed(kind, r);
        seen.add(r.ok ? 'bytes:accepted' : 'bytes:refused');
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(kinds, fc.json(), (kind, text) => {
        const r = decodePayload(kind, new TextEncoder().encode(text));
        wellFormed(kind, r);
        stable(kind, r);
        seen.add(r.ok ? 'json:accepted' : 'json:refused');
      }),
      { numRuns: 5_000 },
    );
    // Measured: random bytes all refused (5000), JSON text about 160 accepted (and checked stable).
    expect(seen.get('bytes:refused')).toBeGreaterThanOrEqual(2500);
    expect(seen.get('json:accepted')).toBeGreaterThanOrEqual(60);
  });

  it('mutated valid payloads: any field replaced by any JSON is accepted and stable, or refused by name', () => {
    const seen = tally();
    fc.assert(
      fc.property(
        kinds,
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
        fc.nat(),
        (kind, replacements, pick) => {
          const value = wire(kind);
          const fields = Object.keys(value);
          // Replace an existing field too, not only new ones.
          const first = Object.keys(replacements)[0];
          const target = fields[pick % Math.max(1, fields.length)];
          if (target !== undefined) value[target] = first === undefined ? null : replacements[first];
          for (const [k, v] of Object.entries(replacements)) {
            Object.defineProperty(value, k, { value: v, enumerable: true, writable: true, configurable: true });
          }
          const r = validatePayload(kind, value);
          wellFormed(kind, r);
          stable(kind, r);
          seen.add(r.ok ? 'accepted' : 'refused');
        },
      ),
      { numRuns: 5_000 },
    );
    // Measured of 5000: about 1090 accepted (checked stable), 3910 refused by name.
    expect(seen.get('accepted')).toBeGreaterThanOrEqual(500);
    expect(seen.get('refused')).toBeGreaterThanOrEqual(1900);
  });

  it('no pollution: 1000 runs of __proto__ and constructor keys at every level, as text and as values', () => {
    const seen = tally();
    fc.assert(
      fc.property(kinds, hostileObject, fc.nat(), (kind, hostile, pick) => {
        const value = wire(kind);
        const fields = Object.keys(value);
        if (fields.length > 0) value[fields[pick % fields.length]!] = hostile;
        Object.defineProperty(value, '__proto__', { value: hostile, enumerable: true });
        const text = JSON.stringify(value);
        for (const r of [validatePayload(kind, value), decodePayload(kind, new TextEncoder().encode(text))]) {
          wellFormed(kind, r);
          seen.add(r.ok ? 'accepted' : 'refused');
          if (r.ok) {
            ordinary(r.value);
            expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 1_000 },
    );
    // Measured of 2000 decodes: about 300 accepted (their values checked ordinary).
    expect(seen.get('accepted')).toBeGreaterThanOrEqual(120);
  });

  it('the classic pollution payloads change nothing', () => {
    const texts = [
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '{"n":1,"values":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}',
      '{"n":1,"time":2,"parts":{"__proto__":"x","constructor":"y"}}',
      '{"seq":1,"body":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}}',
    ];
    for (const kind of KIND_NAMES) {
      for (const text of texts) {
        const r = decodePayload(kind, new TextEncoder().encode(text));
        wellFormed(kind, r);
        if (r.ok) ordinary(r.value);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(objectProtoNames);
  });

  it('Action.body keeps a __proto__ key as an ordinary own key, and sends it on', () => {
    const text = '{"seq":1,"body":{"__proto__":{"polluted":1},"a":[{"__proto__":2}]}}';
    const r = decodePayload('Action', new TextEncoder().encode(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const body = r.value.body as Record<string, unknown>;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.hasOwn(body, '__proto__')).toBe(true);
    expect(body.polluted).toBeUndefined();
    expect(payloadToJson('Action', r.value)).toBe(text);
  });

  it('checksum parts named __proto__ and constructor are data in a map without a prototype', () => {
    const text = '{"n":1,"time":2,"parts":{"__proto__":"x","constructor":3}}';
    const r = decodePayload('ChecksumReport', new TextEncoder().encode(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.getPrototypeOf(r.value.parts)).toBe(null);
    expect(Object.keys(r.value.parts)).toEqual(['__proto__', 'constructor']);
    expect(r.value.parts.constructor).toBe(3);
    expect(payloadToJson('ChecksumReport', r.value)).toBe(text);
  });

  it('doubles round-trip exactly (-0 is sent as 0)', () => {
    const double = fc.double({ noNaN: true, noDefaultInfinity: true });
    const seen = tally();
    fc.assert(
      fc.property(double, double, fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (a, b, c) => {
        if (Object.is(a, -0) || Object.is(b, -0)) seen.add('minusZero');
        if (!Number.isInteger(a)) seen.add('fraction');
        if (Math.abs(a) > 2 ** 53) seen.add('huge');
        if (a !== 0 && Math.abs(a) < 1e-300) seen.add('tiny');
        const same = (x: number, y: number | undefined) => expect(Object.is(y, x === 0 ? 0 : x)).toBe(true);
        const authority = decodePayload('Authority', encodePayload('Authority', { n: 1, values: { money: a } }));
        if (authority.ok) same(a, authority.value.values.money);
        else expect.fail(authority.reason);
        const pong = decodePayload('Pong', encodePayload('Pong', { n: 1, w: b }));
        if (pong.ok) same(b, pong.value.w);
        else expect.fail(pong.reason);
        const ping = decodePayload('Ping', encodePayload('Ping', { n: 1, rtt: { '2': c }, off: { '2': a } }));
        if (ping.ok) {
          same(c, ping.value.rtt?.['2']);
          same(a, ping.value.off?.['2']);
        } else expect.fail(ping.reason);
        const hop = { g: a, so: b };
        const clock = decodePayload('Clock', encodePayload('Clock', { t: 1, speed: 1, ahead: 2, hop }));
        if (clock.ok) {
          same(a, clock.value.hop?.g);
          same(b, clock.value.hop?.so);
        } else expect.fail(clock.reason);
      }),
      { numRuns: 2_000 },
    );
    // Measured of 2000: -0 14, fractions 1120, past 2^53 865, below 1e-300 316.
    expect(seen.get('minusZero')).toBeGreaterThanOrEqual(3);
    expect(seen.get('fraction')).toBeGreaterThanOrEqual(500);
    expect(seen.get('huge')).toBeGreaterThanOrEqual(400);
    expect(seen.get('tiny')).toBeGreaterThanOrEqual(150);
  });

  it('any Unicode chat text of 1..500 characters round-trips', () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), (text) => {
        if ([...text].some((ch) => ch.codePointAt(0)! > 0xffff)) seen.add('astral');
        if (/[^\x00-\x7f]/.test(text)) seen.add('beyondAscii');
        const cut = [...text].slice(0, 500).join('');
        const r = decodePayload('Chat', encodePayload('Chat', { text: cut }));
        expect(r).toEqual({ ok: true, value: { text: cut } });
      }),
      { numRuns: 1_000 },
    );
    // Measured of 1000: 864 with a character beyond the BMP, 963 beyond ASCII.
    expect(seen.get('astral')).toBeGreaterThanOrEqual(400);
    expect(seen.get('beyondAscii')).toBeGreaterThanOrEqual(450);
  });

  it('any JSON action body round-trips as the same JSON text', () => {
    const seen = tally();
    fc.assert(
      fc.property(fc.jsonValue().filter((v) => v !== null), fc.nat(), (body, seq) => {
        seen.add(Array.isArray(body) ? 'array' : typeof body);
        const r = decodePayload('Action', encodePayload('Action', { seq, body: body as JsonValue }));
        expect(r.ok).toBe(true);
        if (r.ok) expect(JSON.stringify(r.value.body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 2_000 },
    );
    // Measured of 2000: arrays 764, objects 681, booleans, strings and numbers 170–190 each.
    for (const type of ['array', 'object', 'boolean', 'string', 'number']) expect(seen.get(type), type).toBeGreaterThanOrEqual(80);
  });
});
