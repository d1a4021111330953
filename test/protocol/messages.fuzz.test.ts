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

describe('payload fuzzing', () => {
  it('validatePayload never throws on fc.anything() for any kind', () => {
    fc.assert(
      fc.property(kinds, fc.anything(everything), (kind, value) => wellFormed(kind, validatePayload(kind, value))),
      { numRuns: 20_000 },
    );
  });

  it('validatePayload never throws on fc.jsonValue() for any kind, and what it accepts round-trips', () => {
    fc.assert(
      fc.property(kinds, fc.jsonValue(), (kind, value) => {
        const r = validatePayload(kind, value);
        wellFormed(kind, r);
        stable(kind, r);
      }),
      { numRuns: 5_000 },
    );
  });

  it('decodePayload never throws on random bytes, nor on JSON text', () => {
    fc.assert(
      fc.property(kinds, fc.uint8Array({ maxLength: 512 }), (kind, bytes) => {
        wellFormed(kind, decodePayload(kind, bytes));
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(kinds, fc.json(), (kind, text) => {
        const r = decodePayload(kind, new TextEncoder().encode(text));
        wellFormed(kind, r);
        stable(kind, r);
      }),
      { numRuns: 5_000 },
    );
  });

  it('mutated valid payloads: any field replaced by any JSON is accepted and stable, or refused by name', () => {
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
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('no pollution: 1000 runs of __proto__ and constructor keys at every level, as text and as values', () => {
    fc.assert(
      fc.property(kinds, hostileObject, fc.nat(), (kind, hostile, pick) => {
        const value = wire(kind);
        const fields = Object.keys(value);
        if (fields.length > 0) value[fields[pick % fields.length]!] = hostile;
        Object.defineProperty(value, '__proto__', { value: hostile, enumerable: true });
        const text = JSON.stringify(value);
        for (const r of [validatePayload(kind, value), decodePayload(kind, new TextEncoder().encode(text))]) {
          wellFormed(kind, r);
          if (r.ok) {
            ordinary(r.value);
            expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
          }
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 1_000 },
    );
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
    fc.assert(
      fc.property(double, double, fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (a, b, c) => {
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
  });

  it('any Unicode chat text of 1..500 characters round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), (text) => {
        const cut = [...text].slice(0, 500).join('');
        const r = decodePayload('Chat', encodePayload('Chat', { text: cut }));
        expect(r).toEqual({ ok: true, value: { text: cut } });
      }),
      { numRuns: 1_000 },
    );
  });

  it('any JSON action body round-trips as the same JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter((v) => v !== null), fc.nat(), (body, seq) => {
        const r = decodePayload('Action', encodePayload('Action', { seq, body: body as JsonValue }));
        expect(r.ok).toBe(true);
        if (r.ok) expect(JSON.stringify(r.value.body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 2_000 },
    );
  });
});
