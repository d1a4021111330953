// Payload limits at their edges (spec: "Who may send what" text ≤ 500 and why ≤ 300, "Resync round/Bounds",
// "Handshake", "Players and slots"; lockstep.md "Units"): the last value accepted and the first refused.
import { describe, expect, it } from 'vitest';
import { LIMITS, payloadToJson, validatePayload } from '../../protocol/messages/index.ts';
import type { KindName } from '../../protocol/messages/index.ts';
import { EXAMPLES } from '../../protocol/messages/examples.ts';
import { toBase64 } from '../../protocol/bytes.ts';

function wire(kind: KindName): Record<string, unknown> {
  return JSON.parse(payloadToJson(kind, EXAMPLES[kind] as never)) as Record<string, unknown>;
}
function withField(kind: KindName, field: string, value: unknown): ReturnType<typeof validatePayload> {
  return validatePayload(kind, { ...wire(kind), [field]: value });
}
const reasonOf = (r: ReturnType<typeof validatePayload>): string => (r.ok ? 'ok' : r.reason);
const chunk = (over: Record<string, unknown>) => ({ ...wire('ResyncChunk'), ...over });

describe('text limits (code points)', () => {
  it('Chat.text: 500 characters pass, 501 do not, counted in code points', () => {
    expect(withField('Chat', 'text', 'a'.repeat(500)).ok).toBe(true);
    expect(reasonOf(withField('Chat', 'text', 'a'.repeat(501)))).toBe('Chat.text: longer than 500 characters');
    // 500 emoji are 1000 UTF-16 units but 500 characters.
    expect(withField('Chat', 'text', '😀'.repeat(500)).ok).toBe(true);
    expect(reasonOf(withField('Chat', 'text', '😀'.repeat(501)))).toBe('Chat.text: longer than 500 characters');
    expect(reasonOf(withField('Chat', 'text', ''))).toBe('Chat.text: empty');
  });

  it('BuildVeto.why: 300 pass, 301 do not', () => {
    expect(withField('BuildVeto', 'why', 'w'.repeat(300)).ok).toBe(true);
    expect(reasonOf(withField('BuildVeto', 'why', 'w'.repeat(301)))).toBe('BuildVeto.why: longer than 300 characters');
  });

  it('Join.name: 1..32 characters, no control characters, not blank', () => {
    expect(withField('Join', 'name', 'n'.repeat(32)).ok).toBe(true);
    expect(withField('Join', 'name', 'é'.repeat(32)).ok).toBe(true);
    expect(withField('Join', 'name', '🚂'.repeat(32)).ok).toBe(true);
    expect(reasonOf(withField('Join', 'name', 'n'.repeat(33)))).toBe('Join.name: longer than 32 characters');
    expect(reasonOf(withField('Join', 'name', ''))).toBe('Join.name: empty');
    expect(reasonOf(withField('Join', 'name', '   '))).toBe('Join.name: blank');
    for (const bad of ['a\nb', 'a\tb', 'a\u0000', 'a\u007f', 'a\u0085']) {
      expect(reasonOf(withField('Join', 'name', bad))).toBe('Join.name: has a control character');
    }
    expect(reasonOf(withField('Join', 'name', 'a\ud800'))).toBe('Join.name: has a lone surrogate (not Unicode text)');
  });

  it('names the host sends leave room for a clash suffix: 38 characters', () => {
    const entry = (name: string) => validatePayload('PlayerJoined', { player: { id: 4, name, ready: false } });
    expect(entry(`${'n'.repeat(32)}#65534`).ok).toBe(true);
    expect(reasonOf(entry('n'.repeat(39)))).toBe('PlayerJoined.player.name: longer than 38 characters');
  });

  it('details are cut at 1000 characters, not refused', () => {
    const r = withField('ReplayFailed', 'detail', '😀'.repeat(1200));
    expect(r.ok).toBe(true);
    if (r.ok) expect([...(r.value as { detail: string }).detail]).toHaveLength(1000);
    expect(reasonOf(withField('ReplayFailed', 'detail', 5))).toBe('ReplayFailed.detail: expected a string');
  });

  it('reason tokens are lower-case words with dashes', () => {
    for (const reason of ['bad-proof', 'version', 'mods', 'full', 'malformed', 'flood', 'timeout', 'kicked']) {
      expect(withField('Reject', 'reason', reason).ok).toBe(true);
    }
    expect(reasonOf(withField('Reject', 'reason', 'Bad Proof'))).toMatch(/^Reject\.reason: not a reason token/);
    expect(reasonOf(withField('Kicked', 'reason', 'x'.repeat(65)))).toBe('Kicked.reason: longer than 64 characters');
  });

  it('save names the host chooses are plain file names', () => {
    expect(withField('ResyncSave', 'name', 'feverlink3-resync-12').ok).toBe(true);
    for (const bad of ['../x', 'a/b', 'a\\b', '.', '..']) {
      expect(reasonOf(withField('ResyncSave', 'name', bad))).toBe('ResyncSave.name: not a plain file name');
    }
  });
});

describe('chunk bounds', () => {
  it('data: 1 to 262 144 bytes', () => {
    const max = new Uint8Array(LIMITS.chunkBytes);
    expect(validatePayload('ResyncChunk', chunk({ data: toBase64(max) })).ok).toBe(true);
    const over = new Uint8Array(LIMITS.chunkBytes + 1);
    expect(reasonOf(validatePayload('ResyncChunk', chunk({ data: toBase64(over) })))).toBe(
      'ResyncChunk.data: longer than 262144 bytes',
    );
    // 262 146 bytes fit the same number of base64 characters as 262 144: the decoded size decides.
    const over2 = new Uint8Array(LIMITS.chunkBytes + 2);
    expect(reasonOf(validatePayload('ReportPart', chunk({ data: toBase64(over2) })))).toBe(
      'ReportPart.data: longer than 262144 bytes',
    );
    expect(reasonOf(validatePayload('ResyncChunk', chunk({ data: '' })))).toBe(
      'ResyncChunk.data: expected 1 to 262144 bytes',
    );
  });

  it('count: 1 to 2048; index: 0 ≤ index < count', () => {
    const at = (count: number, index: number) => reasonOf(validatePayload('ResyncUpload', chunk({ count, index })));
    expect(at(0, 0)).toBe('ResyncUpload.count: expected an integer from 1 to 2048');
    expect(at(1, 0)).toBe('ok');
    expect(at(2048, 2047)).toBe('ok');
    expect(at(2049, 0)).toBe('ResyncUpload.count: expected an integer from 1 to 2048');
    expect(at(3, 3)).toBe('ResyncUpload.index: not below count (3)');
    expect(at(2048, 2048)).toBe('ResyncUpload.index: expected an integer from 0 to 2047');
    expect(at(3, -1)).toBe('ResyncUpload.index: expected an integer from 0 to 2047');
    expect(at(3, 1.5)).toBe('ResyncUpload.index: expected an integer from 0 to 2047');
  });

  it('sha256: exactly 64 hex digits', () => {
    const sha = (s: unknown) => reasonOf(validatePayload('ResyncChunk', chunk({ sha256: s })));
    expect(sha('a'.repeat(64))).toBe('ok');
    expect(sha('a'.repeat(63))).toBe('ResyncChunk.sha256: expected exactly 64 hex digits');
    expect(sha('a'.repeat(65))).toBe('ResyncChunk.sha256: expected exactly 64 hex digits');
    expect(sha(`${'a'.repeat(63)}g`)).toBe('ResyncChunk.sha256: expected exactly 64 hex digits');
    expect(sha(12)).toBe('ResyncChunk.sha256: expected a string of 64 hex digits');
  });

  it('base64 must be canonical and padded', () => {
    const data = (s: string) => reasonOf(validatePayload('ResyncChunk', chunk({ data: s })));
    expect(data('AAE=')).toBe('ok');
    for (const bad of ['AAF=', 'AB==', 'AAE', 'AA E=', 'AAE=\n', '-_8=', 'AA==AA==', '====', 'A===']) {
      expect(data(bad), bad).toBe('ResyncChunk.data: not canonical base64');
    }
  });
});

describe('fixed-size byte fields', () => {
  it('Challenge.nonce and Welcome.resume.token are 16 bytes, Join.proof and resume.mac 32', () => {
    const b = (n: number) => toBase64(new Uint8Array(n));
    expect(withField('Challenge', 'nonce', b(16)).ok).toBe(true);
    expect(reasonOf(withField('Challenge', 'nonce', b(15)))).toBe('Challenge.nonce: expected exactly 16 bytes');
    expect(reasonOf(withField('Challenge', 'nonce', b(17)))).toBe('Challenge.nonce: longer than 16 bytes');
    expect(reasonOf(withField('Join', 'proof', b(31)))).toBe('Join.proof: expected exactly 32 bytes');
    expect(reasonOf(withField('Join', 'resume', { id: 1, mac: b(33) }))).toBe('Join.resume.mac: longer than 32 bytes');
    expect(reasonOf(withField('Welcome', 'resume', { token: b(8), epoch: 0 }))).toBe(
      'Welcome.resume.token: expected exactly 16 bytes',
    );
  });
});

describe('numbers', () => {
  it('counters are safe integers: 2^53 − 1 passes, 2^53 does not', () => {
    expect(withField('Ping', 'ack', Number.MAX_SAFE_INTEGER).ok).toBe(true);
    const big = JSON.parse('{"n":1,"ack":9007199254740992}') as unknown;
    expect(reasonOf(validatePayload('Ping', big))).toBe('Ping.ack: expected an integer from 0 to 9007199254740991');
    expect(reasonOf(withField('Ping', 'ack', -1))).toBe('Ping.ack: expected an integer from 0 to 9007199254740991');
    expect(reasonOf(withField('Welcome', 'catchUp', 1.5))).toBe(
      'Welcome.catchUp: expected an integer from 0 to 9007199254740991',
    );
    expect(reasonOf(withField('Join', 'resume', { id: 1, mac: toBase64(new Uint8Array(32)), last: '5' }))).toBe(
      'Join.resume.last: expected an integer from 0 to 9007199254740991',
    );
  });

  it('game times may exceed 2^31', () => {
    expect(withField('Clock', 't', 2 ** 40).ok).toBe(true);
    expect(withField('BuildCommit', 'stamp', 2 ** 31 + 200).ok).toBe(true);
  });

  it('player ids are 0..65534; the id the host hands out is 1..65534', () => {
    expect(withField('PeerClock', 'from', 0).ok).toBe(true);
    expect(withField('PeerClock', 'from', 65_534).ok).toBe(true);
    expect(reasonOf(withField('PeerClock', 'from', 65_535))).toBe(
      'PeerClock.from: expected an integer from 0 to 65534',
    );
    expect(reasonOf(withField('Welcome', 'you', 0))).toBe('Welcome.you: expected an integer from 1 to 65534');
    expect(withField('Ping', 'rtt', { '65534': 1 }).ok).toBe(true);
    expect(reasonOf(withField('Ping', 'rtt', { '65535': 1 }))).toBe('Ping.rtt["65535"]: not a player id');
    expect(reasonOf(withField('Ping', 'rtt', { '3': -1 }))).toBe('Ping.rtt["3"]: expected a finite number, at least 0');
  });

  it('speed is 0, 1, 2 or 4', () => {
    for (const speed of [0, 1, 2, 4]) expect(withField('SpeedRequest', 'speed', speed).ok).toBe(true);
    for (const speed of [3, 5, -1, 1.5, '1']) {
      expect(reasonOf(withField('SpeedRequest', 'speed', speed))).toBe(
        'SpeedRequest.speed: expected one of 0, 1, 2, 4',
      );
    }
  });

  it('Chat.level is info, warn or error', () => {
    for (const level of ['info', 'warn', 'error']) expect(withField('Chat', 'level', level).ok).toBe(true);
    expect(reasonOf(withField('Chat', 'level', 'debug'))).toBe('Chat.level: expected one of "info", "warn", "error"');
  });

  it('checksum rounds: spread 1..4, chunk 50..4000', () => {
    expect(reasonOf(withField('ChecksumRequest', 'spread', 5))).toBe(
      'ChecksumRequest.spread: expected an integer from 1 to 4',
    );
    expect(reasonOf(withField('ChecksumRequest', 'chunk', 49))).toBe(
      'ChecksumRequest.chunk: expected an integer from 50 to 4000',
    );
    expect(withField('ChecksumRequest', 'chunk', 4000).ok).toBe(true);
  });
});

describe('Action.body', () => {
  const nest = (depth: number): unknown => (depth === 0 ? 1 : [nest(depth - 1)]);

  it('is any JSON value but null, kept as sent', () => {
    for (const body of [0, 'x', true, [], {}, [null, { a: [1.5, 'b'] }], { nested: { deeper: null } }]) {
      expect(validatePayload('Action', { seq: 1, body })).toEqual({ ok: true, value: { seq: 1, body } });
    }
    expect(reasonOf(validatePayload('Action', { seq: 1, body: null }))).toBe('Action.body: missing');
  });

  it('is nested at most 64 deep', () => {
    expect(validatePayload('Action', { seq: 1, body: nest(64) }).ok).toBe(true);
    expect(reasonOf(validatePayload('Action', { seq: 1, body: nest(65) }))).toBe('Action.body: nested deeper than 64');
  });

  it('is bounded in size', () => {
    const body = { big: 'x'.repeat(LIMITS.payloadBytes) };
    expect(reasonOf(validatePayload('Action', { seq: 1, body }))).toBe('Action.body: larger than 1048548 bytes');
    const many = Array.from({ length: 200_000 }, () => 'abcdef');
    expect(reasonOf(validatePayload('Action', { seq: 1, body: many }))).toBe('Action.body: larger than 1048548 bytes');
  });

  it('refuses values JSON cannot carry', () => {
    expect(reasonOf(validatePayload('Action', { seq: 1, body: { x: NaN } }))).toBe(
      'Action.body: has a number JSON cannot carry',
    );
    expect(reasonOf(validatePayload('Action', { seq: 1, body: [undefined] }))).toBe(
      'Action.body: has a value of type undefined, not JSON',
    );
    expect(reasonOf(validatePayload('Action', { seq: 1, body: { d: new Date(0) } }))).toBe(
      'Action.body: has an object that is not plain JSON',
    );
  });
});
