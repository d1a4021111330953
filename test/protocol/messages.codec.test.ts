// Payload codec: every kind round-trips, names the field it refuses, drops unknown fields
// (spec: wire-protocol.txt "Frame" JSON conventions, "Who may send what").
import { describe, expect, it } from 'vitest';
import {
  KIND_NAMES,
  decodePayload,
  encodePayload,
  payloadToJson,
  validatePayload,
} from '../../protocol/messages/index.ts';
import type { KindName } from '../../protocol/messages/index.ts';
import { EXAMPLES } from '../../protocol/messages/examples.ts';
import { LENIENT_FIELDS } from '../../protocol/messages/table.ts';

/** The fields each kind cannot do without (every other field of its example must be optional). */
const REQUIRED: { [K in KindName]: string[] } = {
  Challenge: ['nonce', 'protocol', 'version'],
  Join: ['name', 'version', 'proof'],
  Reject: ['reason'],
  Welcome: ['you', 'hostName', 'version', 'players', 'session'],
  Session: ['started', 'speed', 'lead'],
  PeerClock: ['from', 't', 'ahead'],
  PlayerJoined: ['player'],
  PlayerLeft: ['id', 'name'],
  ChecksumRequest: ['n', 'at', 'paused'],
  Authority: ['n', 'values'],
  ResyncSave: ['id', 'name'],
  ResyncChunk: ['id', 'index', 'count', 'sha256', 'data'],
  ResyncLoad: ['id', 'name', 'sha256'],
  Permissions: [],
  Ping: ['n'],
  Kicked: ['reason'],
  ReportAsk: ['id', 'report', 'by', 'byName', 'maxBytes', 'salt'],
  ReportBundle: ['id', 'index', 'count', 'sha256', 'data'],
  ReportBusy: ['id', 'byName'],
  Hello: ['time'],
  Clock: ['t', 'speed', 'ahead'],
  SpeedRequest: ['speed'],
  ChecksumReport: ['n', 'time', 'parts'],
  SaveDone: ['id', 'ok'],
  ReplayFailed: ['detail'],
  ActionRefused: ['seq', 'from'],
  Pong: ['n'],
  Leave: [],
  ResyncUpload: ['id', 'index', 'count', 'sha256', 'data'],
  ReportRequest: [],
  ReportPart: ['id', 'index', 'count', 'sha256', 'data'],
  Action: ['seq', 'body'],
  Chat: ['text'],
  BuildVeto: ['seq', 'owner', 'why'],
  BuildCommit: ['seq', 'owner', 'stamp'],
};

/** Fields that are dropped, not refused, when they do not validate (logs-only, normalised by the host, or named by
 *  the spec without a shape): the top-level ones of LENIENT_FIELDS, as `Kind.field`. */
const LENIENT = new Set(
  Object.entries(LENIENT_FIELDS).flatMap(([kind, fields]) => fields.filter((f) => !f.includes('.')).map((f) => `${kind}.${f}`)),
);

/** The example as the JSON object a peer would send. */
function wire<K extends KindName>(kind: K): Record<string, unknown> {
  return JSON.parse(payloadToJson(kind, EXAMPLES[kind])) as Record<string, unknown>;
}

/** A value of another JSON type than `value`. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return 'not an object';
  return { wrong: true };
}

describe('payload codec', () => {
  it.each(KIND_NAMES)('%s: the example round-trips (encode → decode → deep equal)', (kind) => {
    const bytes = encodePayload(kind, EXAMPLES[kind]);
    const back = decodePayload(kind, bytes);
    expect(back).toEqual({ ok: true, value: EXAMPLES[kind] });
    // Byte for byte as well: decode → encode gives the same text.
    if (back.ok) expect(payloadToJson(kind, back.value)).toBe(new TextDecoder().decode(bytes));
  });

  it.each(KIND_NAMES)('%s: a missing required field is named', (kind) => {
    for (const field of REQUIRED[kind]) {
      const value = wire(kind);
      delete value[field];
      expect(validatePayload(kind, value)).toEqual({ ok: false, reason: `${kind}.${field}: missing` });
      value[field] = null; // nulls are omitted on the wire: a null is the same as absent
      expect(validatePayload(kind, value)).toEqual({ ok: false, reason: `${kind}.${field}: missing` });
    }
  });

  it.each(KIND_NAMES)('%s: every field outside the required list may be left out', (kind) => {
    const value = wire(kind);
    for (const field of Object.keys(value)) if (!REQUIRED[kind].includes(field)) delete value[field];
    const r = validatePayload(kind, value);
    expect(r.ok, r.ok ? '' : r.reason).toBe(true);
  });

  it.each(KIND_NAMES)('%s: a field of the wrong type is named', (kind) => {
    const fields = Object.keys(wire(kind)).filter((f) => !LENIENT.has(`${kind}.${f}`));
    if (kind !== 'Leave' && kind !== 'ReportRequest') expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) {
      const value = wire(kind);
      value[field] = field === 'body' ? () => 1 : wrongType(value[field]);
      const r = validatePayload(kind, value);
      expect(r.ok, `${kind}.${field}`).toBe(false);
      if (!r.ok) expect(r.reason.startsWith(`${kind}.${field}`), r.reason).toBe(true);
    }
  });

  it.each(KIND_NAMES)('%s: unknown fields are dropped', (kind) => {
    const value = { ...wire(kind), extraField: 1, nested: { a: 1 }, constructor: 'x', toString: 5 };
    const r = validatePayload(kind, value);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual(EXAMPLES[kind]);
    for (const key of ['extraField', 'nested', 'constructor', 'toString']) {
      expect(Object.hasOwn(r.value, key)).toBe(false);
    }
  });

  it.each(KIND_NAMES)('%s: a payload that is not an object is refused', (kind) => {
    for (const value of [null, undefined, [], [wire(kind)], 'text', 42, true]) {
      expect(validatePayload(kind, value)).toEqual({ ok: false, reason: `${kind}: expected an object` });
    }
  });

  it('unknown fields inside nested objects are dropped too', () => {
    const value = wire('Welcome');
    (value.session as Record<string, unknown>).surprise = [1, 2];
    (value.players as Record<string, unknown>[])[0]!.colour = 'red';
    const r = validatePayload('Welcome', value);
    expect(r).toEqual({ ok: true, value: EXAMPLES.Welcome });
  });

  it('refuses bytes that are not UTF-8 JSON, and an oversized payload, with the kind in the reason', () => {
    expect(decodePayload('Chat', new Uint8Array([0x7b, 0xff, 0x7d]))).toEqual({ ok: false, reason: 'Chat: not UTF-8' });
    const truncated = new TextEncoder().encode('{"text":');
    expect(decodePayload('Chat', truncated)).toEqual({ ok: false, reason: 'Chat: not JSON' });
    expect(decodePayload('Chat', new Uint8Array(0))).toEqual({ ok: false, reason: 'Chat: not JSON' });
    const big = new TextEncoder().encode(`{"text":"a","pad":"${'x'.repeat(1_048_548)}"}`);
    expect(decodePayload('Chat', big)).toEqual({ ok: false, reason: 'Chat: larger than 1048548 bytes' });
  });

  it('refuses a kind name that is not a kind, even one every object inherits', () => {
    for (const kind of ['constructor', '__proto__', 'toString', 'Nope']) {
      const r = validatePayload(kind as KindName, {});
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toBe(`${kind}: unknown kind`);
      expect(decodePayload(kind as KindName, new TextEncoder().encode('{}')).ok).toBe(false);
    }
  });

  it('writes camelCase fields, omits undefined and null, writes bytes as base64', () => {
    const json = payloadToJson('Join', {
      name: 'Ada',
      version: '0.1',
      proof: new Uint8Array(32).fill(255),
      resume: undefined,
      caps: null as unknown as undefined,
    });
    expect(json).toBe(`{"name":"Ada","version":"0.1","proof":"${'/'.repeat(42)}8="}`);
    expect(payloadToJson('Welcome', EXAMPLES.Welcome)).toContain('"hostName":"Host"');
  });

  it('does not write fields the payload type does not have', () => {
    const chat = { text: 'hi', secret: 'do not send' } as unknown as { text: string };
    expect(payloadToJson('Chat', chat)).toBe('{"text":"hi"}');
  });

  it('shares one shape for Reject and Kicked, and for the four chunk kinds', () => {
    const reject = wire('Reject');
    expect(validatePayload('Kicked', reject)).toEqual({ ok: true, value: EXAMPLES.Reject });
    const chunk = wire('ResyncChunk');
    for (const kind of ['ResyncUpload', 'ReportBundle', 'ReportPart'] as const) {
      expect(validatePayload(kind, chunk)).toEqual({ ok: true, value: EXAMPLES.ResyncChunk });
    }
  });

  it('reads only own properties: inherited fields do not count', () => {
    const inherited = Object.create({ text: 'from the prototype' }) as object;
    expect(validatePayload('Chat', inherited)).toEqual({ ok: false, reason: 'Chat.text: missing' });
  });

  it('decodes Permissions with missing fields as everyone', () => {
    const r = decodePayload('Permissions', new TextEncoder().encode('{"spend":{"only":[1,3]}}'));
    expect(r).toEqual({
      ok: true,
      value: { build: 'everyone', bulldoze: 'everyone', spend: { only: [1, 3] }, speed: 'everyone' },
    });
    // The spec's own example.
    const spec = '{"build": "everyone", "bulldoze": "hostOnly", "spend": {"only": [1, 3]}, "speed": "everyone"}';
    const decoded = decodePayload('Permissions', new TextEncoder().encode(spec));
    expect(decoded).toEqual({ ok: true, value: EXAMPLES.Permissions });
  });

  it('keeps latency stamps that validate and drops the others, never the message', () => {
    const clock = { t: 1, speed: 1, ahead: 2, hop: { g: 1.7e12, l: 'late', h: null, so: -3.5, w: Infinity, zz: 1 } };
    expect(validatePayload('Clock', clock)).toEqual({
      ok: true,
      value: { t: 1, speed: 1, ahead: 2, hop: { g: 1.7e12, so: -3.5 } },
    });
    expect(validatePayload('Clock', { t: 1, speed: 1, ahead: 2, hop: 'x' })).toEqual({
      ok: true,
      value: { t: 1, speed: 1, ahead: 2 },
    });
  });

  it('drops an unknown verdict class or a non-string category, keeping the message', () => {
    expect(validatePayload('ActionRefused', { seq: 1, from: 2, class: 'cosmic-ray' })).toEqual({
      ok: true,
      value: { seq: 1, from: 2 },
    });
    const badCategory = validatePayload('Action', { seq: 1, body: {}, category: 7 });
    expect(badCategory).toEqual({ ok: true, value: { seq: 1, body: {} } });
    expect(validatePayload('Action', { seq: 1, body: {}, category: 'trains' })).toEqual({
      ok: true,
      value: { seq: 1, body: {}, category: 'trains' },
    });
  });

  it("accepts the Lua encoder's {} for an empty array and [] for an empty map", () => {
    const r = validatePayload('ChecksumReport', { n: 1, time: 2, parts: [], notReady: {} });
    expect(r).toEqual({ ok: true, value: { n: 1, time: 2, parts: {}, notReady: [] } });
    expect(validatePayload('ChecksumReport', { n: 1, time: 2, parts: [1] }).ok).toBe(false);
    expect(validatePayload('SaveDone', { id: 1, ok: true, mods: { a: 1 } })).toEqual({
      ok: false,
      reason: 'SaveDone.mods: expected an array',
    });
  });

  it('names the item of a list and the key of a map it refuses', () => {
    const players = [{ id: 0, name: 'Host', ready: 'yes' }];
    expect(validatePayload('Welcome', { ...wire('Welcome'), players })).toEqual({
      ok: false,
      reason: 'Welcome.players[0].ready: expected true or false',
    });
    expect(validatePayload('Authority', { n: 1, values: { money: 'lots' } })).toEqual({
      ok: false,
      reason: 'Authority.values["money"]: expected a finite number',
    });
    expect(validatePayload('Ping', { n: 1, rtt: { '007': 3 } })).toEqual({
      ok: false,
      reason: 'Ping.rtt["007"]: not a player id',
    });
    expect(validatePayload('Permissions', { build: { only: [1, 'x'] } })).toEqual({
      ok: false,
      reason: 'Permissions.build.only[1]: expected an integer from 0 to 65534',
    });
    expect(validatePayload('Permissions', { build: 'nobody' })).toEqual({
      ok: false,
      reason: 'Permissions.build: expected "everyone", "hostOnly" or {"only": [ids]}',
    });
  });

  it('gives back a SHA-256 in lower case', () => {
    const r = validatePayload('ResyncLoad', { id: 1, name: 'x', sha256: 'ABCDEF'.padEnd(64, 'F') });
    expect(r).toEqual({ ok: true, value: { id: 1, name: 'x', sha256: 'abcdef'.padEnd(64, 'f') } });
  });
});
