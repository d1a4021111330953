// The whole-host fuzz's generator, its parts: the seeded helpers, the coverage counter, and fields (texts, numbers,
// hops, action bodies, chunks) valid or at and past the limits of protocol/messages/limits.ts.
import { MAX_PAYLOAD_BYTES } from '../../protocol/frame.ts';
import { Kind, LIMITS, playerMaySend, type KindName } from '../../protocol/messages/index.ts';

/** JSON text written as is: numbers such as `1e400` (JSON.parse gives Infinity), `1E2`, `-0`, `1e9`, or `"\ud800"`. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON text of a value that may hold RawJson parts (written as they are). */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const parts: string[] = [];
    for (const key of Object.keys(value)) {
      const x = (value as Record<string, unknown>)[key];
      if (x === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${jsonText(x)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export type Rng = () => number;
export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
export const chance = (rng: Rng, p: number): boolean => rng() < p;
export const between = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

/** Numbers at the edges of what the validators take (and just past them), as JSON allows them. */
export const EXTREME_NUMBERS: readonly unknown[] = [
  0,
  -1,
  1,
  0.5,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 31,
  2 ** 32,
  2 ** 64,
  1e308,
  -1e308,
  5e-324,
  65534,
  65535,
  new RawJson('1e400'), // JSON.parse gives Infinity
  new RawJson('-1e400'),
  new RawJson('-0'),
  new RawJson('1E2'),
  new RawJson('1.0'),
  new RawJson('9007199254740993'),
];

/** The player-sendable kinds (spec "Who may send what": 30–41 and 50–53). */
export const PLAYER_KINDS: readonly KindName[] = (
  ['Hello', 'Clock', 'SpeedRequest', 'ChecksumReport', 'SaveDone', 'ReplayFailed', 'ActionRefused', 'Pong', 'Leave',
    'ResyncUpload', 'ReportRequest', 'ReportPart', 'Action', 'Chat', 'BuildVeto', 'BuildCommit'] as const
).filter((k) => playerMaySend(Kind[k]));

/** Counts what the generator made and what was sent, by tag. */
export class Coverage {
  readonly counts = new Map<string, number>();
  hit(tag: string, n = 1): void {
    this.counts.set(tag, (this.counts.get(tag) ?? 0) + n);
  }
  get(tag: string): number {
    return this.counts.get(tag) ?? 0;
  }
  /** Sum over tags starting with `prefix`. */
  sum(prefix: string): number {
    let n = 0;
    for (const [k, v] of this.counts) if (k.startsWith(prefix)) n += v;
    return n;
  }
  merge(other: Coverage): void {
    for (const [k, v] of other.counts) this.hit(k, v);
  }
  table(): string {
    return [...this.counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(' ');
  }
}

/** What one hostile player knows of its own state while generating (its clock, promise, seq, host pings). */
export interface HostileState {
  t: number;
  safe: number;
  seq: number;
  lastPing: number | undefined;
  /** Ids of the others (for spoofed from/owner). */
  others: number[];
  you: number;
}

/** How a generated payload goes on the wire. */
export type FrameMode =
  | 'sealed'
  | 'replay'
  | 'wrongSender'
  | 'forgedTag'
  | 'unsealed'
  | 'forbiddenKind'
  | 'unknownKind'
  | 'farCounter'
  | 'shortBody'
  | 'junk'
  | 'flood';

/** One step of a hostile player: a kind, its payload text (or bytes), and how it is framed. */
export interface HostileStep {
  kind: number;
  payload: Uint8Array;
  mode: FrameMode;
  /** The payload is valid by the spec's validator (decodePayload on exactly these bytes). */
  valid: boolean;
  /** For a valid Chat sent sealed: the text the honest players must see relayed. */
  chatText?: string;
  label: string;
}

export const CONTROL_CHARS = '\u0000\u0001\u0007\u0008\u001b\u007f\u0085\u009f';
export const ODD_TEXT = ['\u202e', '\u200b', '\ufeff', '\u2028', '\u2029', '👋', '𝕏', 'é', '#', '\\', '"', '\n', '\t'];

/** A string of about `n` code points from an alphabet picked by `rng` (astral chars count one code point). */
export function textOf(rng: Rng, n: number, alphabet: 'plain' | 'astral' | 'control' | 'mixed'): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (alphabet === 'plain') out.push(String.fromCharCode(97 + (i % 26)));
    else if (alphabet === 'astral') out.push('😀');
    else if (alphabet === 'control') out.push(CONTROL_CHARS[i % CONTROL_CHARS.length]!);
    else out.push(chance(rng, 0.3) ? pick(rng, ODD_TEXT) : chance(rng, 0.1) ? pick(rng, [...CONTROL_CHARS]) : 'x');
  }
  return out.join('');
}

/**
 * A text field at and around its limit of `max` code points: short, exactly max (plain, astral, control), max + 1,
 * empty, a lone surrogate (raw JSON escape) or a `name#id` form. Tags say which edge was hit.
 */
export function textField(rng: Rng, max: number, cov: Coverage, field: string): unknown {
  const r = rng();
  if (r < 0.35) return textOf(rng, between(rng, 1, 12), 'mixed');
  if (r < 0.5) {
    cov.hit(`limit:${field}=max`);
    return textOf(rng, max, pick(rng, ['plain', 'astral', 'control', 'mixed'] as const));
  }
  if (r < 0.6) {
    cov.hit(`limit:${field}=max+1`);
    return textOf(rng, max + 1, pick(rng, ['plain', 'astral'] as const));
  }
  if (r < 0.68) {
    cov.hit(`edge:${field}=empty`);
    return '';
  }
  if (r < 0.76) {
    cov.hit(`edge:${field}=lone-surrogate`);
    return new RawJson('"a\\ud800b"'); // JSON allows it; the validators refuse it
  }
  if (r < 0.84) {
    cov.hit(`edge:${field}=name#id`);
    return pick(rng, ['alice#1', 'bob#2', 'ALICE', 'host', 'Host#0', 'x#65534', `${'n'.repeat(32)}#65534`]);
  }
  if (r < 0.92) {
    cov.hit(`edge:${field}=control`);
    return textOf(rng, between(rng, 1, 40), 'control');
  }
  cov.hit(`edge:${field}=not-a-string`);
  return pick(rng, [5, true, [], {}, ['x']]);
}

/** A numeric field: usually `normal`, else an extreme (counted). */
export function numField(rng: Rng, normal: number, cov: Coverage, field: string, pExtreme = 0.25): unknown {
  if (!chance(rng, pExtreme)) return normal;
  const x = pick(rng, EXTREME_NUMBERS);
  cov.hit(`extreme:${field}`);
  cov.hit(`extreme-value:${x instanceof RawJson ? x.text : String(x)}`);
  return x;
}

export function maybe<T>(rng: Rng, p: number, make: () => T): T | undefined {
  return chance(rng, p) ? make() : undefined;
}

export const HEX64 = 'ab'.repeat(32);

export function hopOf(rng: Rng, cov: Coverage): unknown {
  if (chance(rng, 0.2)) {
    cov.hit('edge:hop=not-an-object');
    return pick(rng, ['x', 5, [], [1]]);
  }
  const now = Date.now();
  const stamp = (): unknown => (chance(rng, 0.6) ? now + between(rng, -2000, 2000) : pick(rng, EXTREME_NUMBERS));
  const out: Record<string, unknown> = {};
  for (const k of ['g', 'l', 'h', 'so', 'sr', 'w', 'ro', 'rr']) if (chance(rng, 0.4)) out[k] = stamp();
  cov.hit('field:hop');
  return out;
}

/** An Action body: small, nested to the depth limit (and one past), near the size limit, or numbers that grow. */
export function actionBody(rng: Rng, cov: Coverage, big: boolean): unknown {
  const r = rng();
  if (!big || r < 0.4) {
    if (chance(rng, 0.5)) {
      const depth = pick(rng, [LIMITS.bodyDepth, LIMITS.bodyDepth + 1, 10]);
      const edge = depth === LIMITS.bodyDepth ? 'max' : depth > LIMITS.bodyDepth ? 'max+1' : 'some';
      cov.hit(`limit:Action.body.depth=${edge}`);
      let body: unknown = 1;
      for (let i = 0; i < depth; i++) body = chance(rng, 0.5) ? [body] : { k: body };
      return body;
    }
    cov.hit('edge:Action.body=proto-keys');
    return JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"type":"street","n":[1.5,-2]}');
  }
  if (r < 0.7) {
    // A string that makes the whole payload just fit (the host's fields then push the relay over the limit).
    const slack = pick(rng, [40, 120, 400, 2000]);
    cov.hit('limit:Action.body=near-payload-limit');
    return 'b'.repeat(MAX_PAYLOAD_BYTES - 80 - slack);
  }
  // Numbers written short that JSON.stringify writes long: within the validator's budget, ~3× on re-serialisation.
  cov.hit('limit:Action.body=numbers-that-grow');
  const count = pick(rng, [60_000, 100_000, 116_000]);
  return Array.from({ length: count }, () => new RawJson('1e9'));
}

export function chunkPayload(rng: Rng, cov: Coverage, kind: string, big: boolean): Record<string, unknown> {
  const size = big ? pick(rng, [LIMITS.chunkBytes, LIMITS.chunkBytes + 1]) : pick(rng, [0, 1, 100]);
  if (size >= LIMITS.chunkBytes) cov.hit(`limit:${kind}.data=${size === LIMITS.chunkBytes ? 'max' : 'max+1'}`);
  const count = numField(rng, pick(rng, [1, 3, LIMITS.maxChunks, LIMITS.maxChunks + 1]), cov, `${kind}.count`);
  return {
    id: numField(rng, between(rng, 1, 5), cov, `${kind}.id`),
    index: numField(rng, pick(rng, [0, 1, 2, LIMITS.maxChunks - 1, LIMITS.maxChunks]), cov, `${kind}.index`),
    count,
    sha256: pick(rng, [HEX64, HEX64.toUpperCase(), HEX64.slice(1), `${HEX64.slice(2)}zz`]),
    data: Buffer.alloc(size, between(rng, 0, 255)).toString('base64') + (chance(rng, 0.05) ? '=' : ''),
  };
}
