// The whole-host fuzz's generator: seeded frames of every kind a player may send, valid and invalid (payloads,
// broken payloads, raw bytes, frame modes), and the hostile Pong clocks and names.
import { fromUtf8, utf8 } from '../../protocol/bytes.ts';
import { Kind, LIMITS, decodePayload, kindName, type KindName } from '../../protocol/messages/index.ts';
import { RawJson, jsonText, type Rng, pick, chance, between, PLAYER_KINDS, Coverage, type HostileState, type FrameMode, type HostileStep, textField, numField, maybe, hopOf, actionBody, chunkPayload } from './hostFuzzFields.ts';

function payloadFor(kind: KindName, rng: Rng, s: HostileState, cov: Coverage, big: boolean): Record<string, unknown> {
  const spoof = (): unknown => numField(rng, pick(rng, [...s.others, 0, s.you]), cov, `${kind}.from`);
  const time = (field: string): unknown => numField(rng, s.t, cov, `${kind}.${field}`);
  switch (kind) {
    case 'Hello':
      return { time: time('time'), save: maybe(rng, 0.6, () => textField(rng, LIMITS.pathChars, cov, 'Hello.save')) };
    case 'Clock': {
      // Clocks that go backwards, jump, stand still and promise below where they stand.
      const move = rng();
      if (move < 0.6) s.t += 200 * between(rng, 0, 3);
      else if (move < 0.75) {
        s.t = Math.max(0, s.t - 200 * between(rng, 1, 50));
        cov.hit('clock:backwards');
      } else if (move < 0.8) {
        // A clock that jumps far ahead and stays there: every later Clock (and stamp) of this game is huge too.
        cov.hit('clock:huge-t');
        // Within a few steps of 2^53 − 1 (a pauseAt or stamp a few steps further is no safe integer), or just
        // past 2^50.
        s.t = pick(rng, [2 ** 53 - 1, 2 ** 53 - 1, 2 ** 53 - 201, 2 ** 53 - 1001, 2 ** 50 + 1_000_000]);
        s.safe = s.t;
        if (chance(rng, 0.3)) return { t: s.t, speed: pick(rng, [1, 4]), ahead: 2, safe: 2 ** 53 - 1 };
      }
      const safe = chance(rng, 0.2) ? s.t - 1000 : s.t + 800;
      if (safe < s.t) cov.hit('clock:safe-below-t');
      s.safe = Math.max(s.safe, safe);
      return {
        t: time('t'),
        speed: numField(rng, pick(rng, [0, 1, 2, 4]), cov, 'Clock.speed', 0.15),
        ahead: numField(rng, pick(rng, [2, 0, LIMITS.maxSteps, LIMITS.maxSteps + 1]), cov, 'Clock.ahead', 0.15),
        need: maybe(rng, 0.3, () => time('need')),
        safe: maybe(rng, 0.8, () => numField(rng, safe, cov, 'Clock.safe')),
        pause: maybe(rng, 0.3, () => numField(rng, between(rng, 0, 5), cov, 'Clock.pause')),
        stop: maybe(rng, 0.3, () => pick(rng, [true, false, 'yes', 1])),
        hop: maybe(rng, 0.4, () => hopOf(rng, cov)),
      };
    }
    case 'SpeedRequest':
      return { speed: numField(rng, pick(rng, [0, 1, 2, 4, 3, 8]), cov, 'SpeedRequest.speed') };
    case 'ChecksumReport': {
      const n = big ? pick(rng, [LIMITS.maxParts, LIMITS.maxParts + 1]) : between(rng, 0, 20);
      if (n >= LIMITS.maxParts) cov.hit(`limit:ChecksumReport.parts=${n === LIMITS.maxParts ? 'max' : 'max+1'}`);
      const parts: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const long = 'p'.repeat(pick(rng, [LIMITS.partNameChars, LIMITS.partNameChars + 1]));
        const name = i === 0 && chance(rng, 0.3) ? long : `part${i}`;
        // Short hashes in a big report (8192 parts stay far below a frame); the value limits on the first parts.
        const hashChars = pick(rng, [1, LIMITS.partValueChars, LIMITS.partValueChars + 1]);
        parts[name] = i > 2 || chance(rng, 0.4) ? i : 'h'.repeat(hashChars);
      }
      return {
        n: numField(rng, between(rng, 1, 10), cov, 'ChecksumReport.n'),
        time: time('time'),
        parts,
        authority: maybe(rng, 0.3, () => ({ money: numField(rng, 1e6, cov, 'ChecksumReport.authority') })),
        notReady: maybe(rng, 0.3, () => ['persons', '']),
        cost: maybe(rng, 0.3, () => ({ entityNs: numField(rng, 800, cov, 'cost.entityNs'), stepMaxUs: 6, chunk: 1 })),
      };
    }
    case 'SaveDone': {
      const mods = big ? pick(rng, [LIMITS.maxMods, LIMITS.maxMods + 1]) : between(rng, 0, 3);
      if (mods >= LIMITS.maxMods) cov.hit(`limit:SaveDone.mods=${mods === LIMITS.maxMods ? 'max' : 'max+1'}`);
      return {
        id: numField(rng, 1, cov, 'SaveDone.id'),
        ok: pick(rng, [true, false, 'ok']),
        detail: maybe(rng, 0.5, () => textField(rng, LIMITS.detailChars, cov, 'SaveDone.detail')),
        mods: Array.from({ length: mods }, (_, i) =>
          i === 0 && chance(rng, 0.2) ? 'm'.repeat(LIMITS.idChars + 1) : `mod_${i}`,
        ),
      };
    }
    case 'ReplayFailed':
      return { detail: big ? 'd'.repeat(200_000) : textField(rng, LIMITS.detailChars, cov, 'ReplayFailed.detail') };
    case 'ActionRefused':
      return {
        seq: numField(rng, between(rng, 1, 50), cov, 'ActionRefused.seq'),
        from: spoof(),
        detail: maybe(rng, 0.5, () => textField(rng, LIMITS.detailChars, cov, 'ActionRefused.detail')),
        applied: maybe(rng, 0.3, () => pick(rng, [true, false, 1])),
        class: maybe(rng, 0.5, () => pick(rng, ['inject_refused', 'decode', 'engine', 'company', 'module', 'X', 7])),
        partial: maybe(rng, 0.3, () => pick(rng, [true, false, 'no'])),
      };
    case 'Pong': {
      const n = s.lastPing ?? 1;
      const now = Date.now();
      const absurd = [1e308, -1e308, 0, 2 ** 53 - 1, 5e-324, now + 1e12, now - 1e12, new RawJson('1e400'), 'x'];
      const w = chance(rng, 0.5) ? Date.now() : pick(rng, absurd);
      if (typeof w !== 'number' || Math.abs(w - Date.now()) > 1e9) cov.hit('pong:absurd-w');
      cov.hit(s.lastPing === undefined ? 'pong:no-ping-yet' : 'pong:answers-a-ping');
      return { n: numField(rng, n, cov, 'Pong.n', 0.2), w };
    }
    case 'Leave':
      return {};
    case 'ResyncUpload':
    case 'ReportPart':
      return chunkPayload(rng, cov, kind, big);
    case 'ReportRequest':
      return { note: maybe(rng, 0.7, () => textField(rng, LIMITS.noteChars, cov, 'ReportRequest.note')) };
    case 'Action': {
      s.seq += 1;
      const r = rng();
      let stamp: unknown = s.t + 1200;
      if (r < 0.15) {
        stamp = s.safe - 200 * between(rng, 1, 20);
        cov.hit('action:below-own-promise');
      } else if (r < 0.3) {
        stamp = pick(rng, [2 ** 53 - 1, 1e15, s.t + 1e9]);
        cov.hit('action:far-future');
      } else if (r < 0.38) {
        stamp = undefined;
        cov.hit('action:no-stamp');
      } else stamp = numField(rng, s.t + 1200, cov, 'Action.stamp', 0.2);
      const pause = chance(rng, 0.12) ? true : undefined;
      if (pause) {
        stamp = undefined;
        cov.hit('action:pause');
      }
      return {
        stamp,
        seq: numField(rng, s.seq, cov, 'Action.seq', 0.15),
        body: actionBody(rng, cov, big),
        category: maybe(rng, 0.7, () =>
          pick(rng, ['build', 'bulldoze', 'spend', 'other', '', 'x'.repeat(64), 'x'.repeat(65), 5]),
        ),
        from: maybe(rng, 0.3, spoof),
        allowed: maybe(rng, 0.2, () => pick(rng, [true, false, 'yes'])),
        pause,
        applied: maybe(rng, 0.1, () => pick(rng, [true, 'no'])),
        pauseSeq: maybe(rng, 0.1, () => numField(rng, 1, cov, 'Action.pauseSeq')),
        pauseUpto: maybe(rng, 0.1, () => numField(rng, 1, cov, 'Action.pauseUpto')),
        hop: maybe(rng, 0.4, () => hopOf(rng, cov)),
      };
    }
    case 'Chat':
      return {
        text: textField(rng, LIMITS.chatChars, cov, 'Chat.text'),
        from: maybe(rng, 0.3, spoof),
        name: maybe(rng, 0.3, () => textField(rng, LIMITS.displayNameChars, cov, 'Chat.name')),
        level: maybe(rng, 0.3, () => pick(rng, ['info', 'warn', 'error', 'debug', 1])),
      };
    case 'BuildVeto':
      return {
        seq: numField(rng, between(rng, 1, 50), cov, 'BuildVeto.seq'),
        owner: spoof(),
        why: textField(rng, LIMITS.whyChars, cov, 'BuildVeto.why'),
        from: maybe(rng, 0.3, spoof),
        name: maybe(rng, 0.3, () => textField(rng, LIMITS.displayNameChars, cov, 'BuildVeto.name')),
        host: maybe(rng, 0.4, () => pick(rng, [true, false, 'yes'])),
      };
    case 'BuildCommit':
      return {
        seq: numField(rng, between(rng, 1, 50), cov, 'BuildCommit.seq'),
        owner: spoof(),
        stamp: time('stamp'),
        from: maybe(rng, 0.3, spoof),
      };
    default:
      return { anything: numField(rng, 1, cov, 'other') };
  }
}

/** Breaks a payload object: a field removed, of another type, null, or the whole payload replaced. */
function breakPayload(rng: Rng, value: Record<string, unknown>, cov: Coverage): unknown {
  const keys = Object.keys(value).filter((k) => value[k] !== undefined);
  const r = rng();
  if (r < 0.3 && keys.length > 0) {
    const k = pick(rng, keys);
    cov.hit('break:missing-field');
    const { [k]: _gone, ...rest } = value;
    return rest;
  }
  if (r < 0.6 && keys.length > 0) {
    const k = pick(rng, keys);
    cov.hit('break:wrong-type');
    return { ...value, [k]: pick(rng, ['str', 12.5, -3, [], {}, [null], true, new RawJson('1e400')]) };
  }
  cov.hit('break:not-an-object');
  return pick(rng, [null, [value], 'text', 42, true]);
}

const TEXT_BREAKS = [
  '{"text":',
  '',
  'null',
  '{"a":1}}',
  '\u0000',
  '{"t":NaN}',
  '{"t":Infinity}',
  '{"t":01}',
  '['.repeat(200_000),
];

/** The bytes of one generated payload: JSON text (maybe broken at the text level) or bytes that are not UTF-8. */
function payloadBytes(rng: Rng, value: unknown, cov: Coverage): Uint8Array {
  const r = rng();
  if (r < 0.03) {
    cov.hit('break:not-utf8');
    return Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  }
  if (r < 0.07) {
    const t = pick(rng, TEXT_BREAKS);
    cov.hit(t.length > 1000 ? 'break:deep-nesting-text' : 'break:not-json');
    return utf8(t);
  }
  if (r < 0.1) {
    cov.hit('break:whitespace-padded');
    return utf8(`  \n\t${jsonText(value)} \r\n `);
  }
  return utf8(jsonText(value));
}

function isValid(kind: number, payload: Uint8Array): boolean {
  const name = kindName(kind);
  return name !== undefined && decodePayload(name, payload).ok;
}

/**
 * How a hostile player behaves. `chaos`: every kind and frame mode, broken payloads, frames that end its own
 * connection (junk, floods, a Leave). `extreme`: a player in the session's world that stays there (no Hello, no
 * Leave, nothing that ends its connection) and sends mostly well-formed frames with values at their extremes, so
 * the host relays them and its lockstep has to live with them.
 */
export type HostileProfile = 'chaos' | 'extreme';

/** One hostile step from `rng`. `big` steps (near the size limits) are rare; the caller paces them. */
export function hostileStep(rng: Rng, s: HostileState, cov: Coverage, profile: HostileProfile = 'chaos'): HostileStep {
  const extreme = profile === 'extreme';
  let big = chance(rng, 0.04);
  const kind = pick(rng, PLAYER_KINDS);
  // Rare: a Leave ends the connection.
  if (kind === 'Leave' && (extreme || !chance(rng, 0.15))) return hostileStep(rng, s, cov, profile);
  // Rarer: a Hello in a started session makes the game an outsider, whose Actions are no longer relayed.
  if (kind === 'Hello' && (extreme || !chance(rng, 0.3))) return hostileStep(rng, s, cov, profile);
  if (kind === 'Action' && chance(rng, extreme ? 0.2 : 0.12)) big = true;
  cov.hit(`gen:${kind}`);
  cov.hit(`profile:${profile}`);
  const value = payloadFor(kind, rng, s, cov, big);
  const broken = chance(rng, extreme ? 0.03 : 0.15) ? breakPayload(rng, value, cov) : value;
  const payload = extreme ? utf8(jsonText(broken)) : payloadBytes(rng, broken, cov);
  const valid = isValid(Kind[kind], payload);
  cov.hit(valid ? `gen-valid:${kind}` : `gen-invalid:${kind}`);
  if (big) cov.hit(`gen-big:${kind}`);
  const m = extreme ? rng() * 0.09 + (rng() < 0.9 ? 1 : 0) : rng();
  let mode: FrameMode = 'sealed';
  if (m < 0.05) mode = 'replay';
  else if (m < 0.09) mode = 'wrongSender';
  else if (m < 0.13) mode = 'forgedTag';
  else if (m < 0.16) mode = 'unsealed';
  else if (m < 0.21) mode = 'forbiddenKind';
  else if (m < 0.23) mode = 'unknownKind';
  else if (m < 0.235) mode = 'farCounter';
  else if (m < 0.245) mode = 'shortBody';
  else if (m < 0.25) mode = 'junk';
  else if (m < 0.252) mode = 'flood';
  cov.hit(`mode:${mode}`);
  let frameKind: number = Kind[kind];
  if (mode === 'forbiddenKind') frameKind = pick(rng, [1, 2, 3, 10, 11, 12, 13, 14, 15, 20, 21, 22, 25, 29, 42, 49]);
  if (mode === 'unknownKind') frameKind = pick(rng, [0, 54, 99, 200, 255]);
  const text = fromUtf8(payload);
  const chatText =
    kind === 'Chat' && valid && mode === 'sealed' ? (JSON.parse(text!) as { text: string }).text : undefined;
  const label = `${kind}/${mode}/${valid ? 'valid' : 'invalid'}`;
  return { kind: frameKind, payload, mode, valid, ...(chatText === undefined ? {} : { chatText }), label };
}

/**
 * The wall clocks `w` a hostile player answers the host's Pings with, in order: half of them absurd (1e308, a
 * negative time, 2^53 − 1, 5e-324, a year away, `1e400` which JSON.parse makes Infinity, not a number).
 */
export function hostilePongW(rng: Rng, cov: Coverage): () => unknown {
  return () => {
    if (chance(rng, 0.5)) {
      cov.hit('pong-w:sane');
      return Date.now();
    }
    // ±1e308 most often: an offset from it has no JSON form once rounded (Infinity), the others are merely absurd.
    const w = pick(rng, [
      1e308,
      1e308,
      -1e308,
      1.7976931348623157e308,
      -1,
      0,
      2 ** 53 - 1,
      5e-324,
      Date.now() + 3e10,
      new RawJson('1e400'),
      'now',
    ]);
    cov.hit('pong-w:absurd');
    return w;
  };
}

/**
 * Names a hostile player joins with: clashes with the honest ones (`ALICE` → `ALICE#id`), `name#id` forms, 32 code
 * points (astral), and some the host must refuse (control characters, 33 code points, blank).
 */
export function hostileName(rng: Rng, cov: Coverage): { name: string; acceptable: boolean } {
  const r = rng();
  const list: [string, boolean][] = [
    ['mallory', true],
    ['ALICE', true],
    ['bob#2', true],
    ['alice#1', true],
    ['x'.repeat(32), true],
    ['😀'.repeat(32), true],
    ['trudy\u0007', false],
    ['y'.repeat(33), false],
    ['   ', false],
    ['host', true],
  ];
  const [name, acceptable] = list[Math.floor(r * list.length)]!;
  cov.hit(`join-name:${acceptable ? 'acceptable' : 'refused'}`);
  if (name.includes('#')) cov.hit('join-name:name#id');
  return { name, acceptable };
}
