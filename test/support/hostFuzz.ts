// Support for the whole-host fuzz (test/hostile/hostFuzz.test.ts): a real `feverlink3 host` process, peers that
// speak the protocol by hand over TCP with the session key (honest ones that check EVERY frame the host sends
// against the spec's validators, hostile ones that send what the generator below makes), and a seeded generator
// of valid and invalid frames of every kind a player may send, at the limits of protocol/messages/limits.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { fromUtf8, utf8 } from '../../protocol/bytes.ts';
import {
  encodeUnsealedFrame,
  FrameDecoder,
  HOST_SENDER,
  MAX_PAYLOAD_BYTES,
  UNASSIGNED_SENDER,
  type Frame,
} from '../../protocol/frame.ts';
import { decodeJoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey, joinProof } from '../../protocol/keys.ts';
import {
  Kind,
  LIMITS,
  decodePayload,
  encodePayload,
  isSealedKind,
  kindName,
  playerMaySend,
  type KindName,
  type Payloads,
} from '../../protocol/messages/index.ts';
import { LENIENT_FIELDS } from '../../protocol/messages/table.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { launch, type Launcher } from './cli.ts';

// ---- the host process ---------------------------------------------------------------------------------------

export interface FuzzHost {
  launcher: Launcher;
  port: number;
  key: Uint8Array;
  dir: string;
  pid: number;
  /** Resident set size of the host process in KiB (from /proc), undefined once it is gone. */
  rssKb(): number | undefined;
  alive(): boolean;
  /** A line on the host's terminal (chat, or a /command). */
  type(line: string): void;
  /** launcher.log as parsed JSON lines (what was flushed so far). */
  logLines(): Record<string, unknown>[];
  /** SIGTERM, then the exit code (or signal). */
  stop(): Promise<number | string>;
  /** Removes the session folder. */
  cleanup(): void;
}

/** Starts `feverlink3 host --listen 127.0.0.1:0 --game none` (plus `args`) and derives its key from the join code. */
export async function spawnFuzzHost(args: readonly string[] = []): Promise<FuzzHost> {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-fuzz-'));
  const launcher = launch([
    'host', '--listen', '127.0.0.1:0', '--game', 'none', '--max-players', '64', '--session-dir', dir, ...args,
  ]);
  const listening = await launcher.line(/^listening on /, 20_000);
  const port = Number(/:(\d+)$/.exec(listening)![1]);
  const code = (await launcher.line(/^join code: /)).slice('join code: '.length).trim();
  const decoded = decodeJoinCode(code);
  if (!decoded) throw new Error(`the host printed a join code that does not decode: ${code}`);
  const key = await deriveSessionKey(nodeCrypto, decoded.secret);
  const pid = launcher.child.pid!;
  let exited = false;
  void launcher.exited.then(() => (exited = true));
  return {
    launcher,
    port,
    key,
    dir,
    pid,
    alive: () => !exited && launcher.child.exitCode === null && launcher.child.signalCode === null,
    rssKb() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) : undefined;
      } catch {
        return undefined;
      }
    },
    type: (line) => launcher.type(line),
    logLines() {
      try {
        return readFileSync(join(dir, 'launcher.log'), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as Record<string, unknown>];
            } catch {
              return [];
            }
          });
      } catch {
        return [];
      }
    },
    async stop() {
      if (!exited) launcher.child.kill('SIGTERM');
      return launcher.exited;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// ---- checking what the host sends ---------------------------------------------------------------------------

/** A frame from the host that did not decode with the spec's validators, or lost a field only leniently read. */
export interface DecodeFailure {
  peer: string;
  kind: number;
  kindName: string | undefined;
  why: string;
  /** The start of the payload's JSON text, when it opened. */
  excerpt?: string;
}

function hasPath(value: unknown, path: string): boolean {
  let at: unknown = value;
  for (const p of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, p)) return false;
    at = (at as Record<string, unknown>)[p];
    if (at === null) return false;
  }
  return true;
}

/**
 * The lenient fields (LENIENT_FIELDS) present in the JSON the host wrote that the decoder dropped: the host must
 * never send a value only a lenient reader survives.
 */
export function lenientDrops(kind: KindName, raw: unknown, decoded: unknown): string[] {
  return (LENIENT_FIELDS[kind] ?? []).filter((path) => hasPath(raw, path) && !hasPath(decoded, path));
}

/** A decoded message a peer received, in arrival order. */
export interface Received {
  kind: KindName;
  payload: Payloads[KindName];
  /** Bytes of the payload (for size statistics). */
  bytes: number;
}

// ---- a peer that speaks the protocol by hand --------------------------------------------------------------------

export interface PeerOptions {
  /** Answer every Ping with Pong {n, w: now} (honest behaviour), or with the `w` this gives (hostile). */
  autoPong?: boolean | (() => unknown);
  /** Keep every decoded message (honest peers; hostile ones keep only counts). */
  keep?: boolean;
  /** The local address to connect from (default: the system's choice, 127.0.0.1). */
  localAddress?: string;
}

let nextLoopback = 0;
/**
 * A fresh loopback address per call (127.0.1.1, 127.0.1.2, …): the host admits 8 joins per address, then one per
 * refill period, so a fuzzer that reconnects often spreads its joins over addresses like many players would.
 */
export function freshLoopback(): string {
  nextLoopback += 1;
  return `127.0.${1 + Math.floor(nextLoopback / 250)}.${1 + (nextLoopback % 250)}`;
}

/**
 * A TCP client under the session key. Every frame the host sends is checked: unsealed ones (Challenge, Reject)
 * are decoded, sealed ones must come from sender 0, open, decode with decodePayload and lose no lenient field;
 * each miss is a DecodeFailure. Never throws on what it reads.
 */
export class FuzzPeer {
  readonly name: string;
  readonly socket: Socket;
  readonly key: Uint8Array;
  readonly opener: Opener;
  sealer: Sealer | undefined;
  you: number | undefined;
  welcome: Payloads['Welcome'] | undefined;
  reject: Payloads['Reject'] | undefined;
  kicked: Payloads['Kicked'] | undefined;
  challenge: Payloads['Challenge'] | undefined;
  closed = false;
  readonly received: Received[] = [];
  readonly failures: DecodeFailure[] = [];
  /** Frames read from the host, by kind name. */
  readonly counts = new Map<string, number>();
  /** The newest Ping n from the host. */
  lastPing: number | undefined;
  /** Sealed frames sent (copies, for replays). */
  readonly sent: Uint8Array[] = [];
  bytesWritten = 0;
  private readonly decoder = new FrameDecoder();
  private readonly options: PeerOptions;
  private readonly listeners = new Set<(m: Received) => void>();

  private constructor(name: string, socket: Socket, key: Uint8Array, options: PeerOptions) {
    this.name = name;
    this.socket = socket;
    this.key = key;
    this.options = options;
    this.opener = new Opener(nodeCrypto.aesGcm(key));
    socket.on('data', (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = this.decoder.push(chunk);
      } catch (error) {
        this.failures.push({ peer: this.name, kind: -1, kindName: undefined, why: `frame stream: ${String(error)}` });
        socket.destroy();
        return;
      }
      for (const f of frames) this.frame(f);
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => (this.closed = true));
  }

  /** Connects from `options.localAddress` (any 127.x.y.z on Linux: the host counts joins per address). */
  static open(port: number, name: string, key: Uint8Array, options: PeerOptions = {}): Promise<FuzzPeer> {
    return new Promise((resolve, reject) => {
      const at = options.localAddress ? { localAddress: options.localAddress } : {};
      const socket = connect({ host: '127.0.0.1', port, ...at }, () =>
        resolve(new FuzzPeer(name, socket, key, options)),
      );
      socket.once('error', reject);
    });
  }

  /** Subscribes to decoded messages. */
  on(listener: (m: Received) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private fail(kind: number, why: string, excerpt?: string): void {
    const more = excerpt === undefined ? {} : { excerpt };
    this.failures.push({ peer: this.name, kind, kindName: kindName(kind), why, ...more });
  }

  private frame(f: Frame): void {
    const kind = f.header.kind;
    const name = kindName(kind);
    this.counts.set(name ?? `kind ${kind}`, (this.counts.get(name ?? `kind ${kind}`) ?? 0) + 1);
    if (!name) return this.fail(kind, 'unknown kind from the host');
    let payload: Uint8Array;
    if (!isSealedKind(kind)) {
      payload = f.body;
    } else {
      if (f.header.sender !== HOST_SENDER) return this.fail(kind, `sealed frame from sender ${f.header.sender}`);
      const opened = this.opener.open(f);
      if (!opened.ok) return this.fail(kind, `open: ${opened.reason}`);
      payload = opened.payload;
    }
    const decoded = decodePayload(name, payload);
    const text = fromUtf8(payload);
    if (!decoded.ok) return this.fail(kind, decoded.reason, text?.slice(0, 300));
    let raw: unknown;
    try {
      raw = JSON.parse(text!);
    } catch {
      raw = undefined;
    }
    const drops = lenientDrops(name, raw, decoded.value);
    if (drops.length > 0) this.fail(kind, `lenient field(s) dropped: ${drops.join(', ')}`, text?.slice(0, 300));
    const m: Received = { kind: name, payload: decoded.value, bytes: payload.length };
    this.message(m);
  }

  private message(m: Received): void {
    switch (m.kind) {
      case 'Challenge':
        this.challenge = m.payload as Payloads['Challenge'];
        break;
      case 'Reject':
        this.reject = m.payload as Payloads['Reject'];
        break;
      case 'Welcome':
        if (!this.welcome) {
          this.welcome = m.payload as Payloads['Welcome'];
          this.you = this.welcome.you;
          this.sealer = new Sealer(nodeCrypto.aesGcm(this.key), this.you);
        }
        break;
      case 'Kicked':
        this.kicked = m.payload as Payloads['Kicked'];
        break;
      case 'Ping': {
        const n = (m.payload as Payloads['Ping']).n;
        this.lastPing = n;
        const pong = this.options.autoPong;
        if (pong === true) this.send('Pong', { n, w: Date.now() });
        else if (pong) this.sendRaw(Kind.Pong, utf8(jsonText({ n, w: pong() })));
        break;
      }
    }
    if (this.options.keep) this.received.push(m);
    for (const l of this.listeners) l(m);
  }

  /** Waits for the Challenge and answers with a Join for `name` (proof under the key unless `proofKey` is given). */
  async join(
    name = this.name,
    extra: { proofKey?: Uint8Array; version?: string; raw?: string; waitMs?: number } = {},
  ): Promise<'welcome' | 'reject' | 'undecodable-welcome' | 'closed' | 'timeout'> {
    const challenge = await until(() => this.challenge ?? (this.closed ? 'closed' : undefined), 5000);
    if (challenge === undefined) return 'timeout';
    if (challenge === 'closed') return 'closed';
    const proof = joinProof(nodeCrypto, extra.proofKey ?? this.key, challenge.nonce, name);
    const proofText = Buffer.from(proof).toString('base64');
    const json = extra.raw ?? JSON.stringify({ name, version: extra.version ?? '0.1', proof: proofText });
    this.write(encodeUnsealedFrame(Kind.Join, UNASSIGNED_SENDER, utf8(json)));
    const end = await until(
      () =>
        this.welcome
          ? 'welcome'
          : this.reject
            ? 'reject'
            : this.failures.some((f) => f.kindName === 'Welcome')
              ? 'undecodable-welcome'
              : this.closed
                ? 'closed'
                : undefined,
      extra.waitMs ?? 5000,
    );
    return end ?? 'timeout';
  }

  write(bytes: Uint8Array): void {
    if (this.socket.destroyed) return;
    this.bytesWritten += bytes.length;
    this.socket.write(bytes);
  }

  /** Seals `kind` with our id and the next counter; false before the Welcome or after the close. */
  send<K extends KindName>(kind: K, payload: Payloads[K]): boolean {
    return this.sendRaw(Kind[kind], encodePayload(kind, payload));
  }

  /** Seals raw payload bytes as `kind` (any u8) with our id; keeps a copy for replays. */
  sendRaw(kind: number, payload: Uint8Array): boolean {
    if (!this.sealer || this.closed) return false;
    let frame: Uint8Array;
    try {
      frame = this.sealer.seal(kind, payload).slice();
    } catch {
      return false; // over the payload limit, or the counter is used up: nothing can be sealed
    }
    this.sent.push(frame);
    if (this.sent.length > 64) this.sent.shift();
    this.write(frame);
    return true;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Polls until `probe` gives a value; undefined after `ms`. */
export async function until<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) return undefined;
    await sleep(5);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- the generator ------------------------------------------------------------------------------------------

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

const CONTROL_CHARS = '\u0000\u0001\u0007\u0008\u001b\u007f\u0085\u009f';
const ODD_TEXT = ['\u202e', '\u200b', '\ufeff', '\u2028', '\u2029', '👋', '𝕏', 'é', '#', '\\', '"', '\n', '\t'];

/** A string of about `n` code points from an alphabet picked by `rng` (astral chars count one code point). */
function textOf(rng: Rng, n: number, alphabet: 'plain' | 'astral' | 'control' | 'mixed'): string {
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
function textField(rng: Rng, max: number, cov: Coverage, field: string): unknown {
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
function numField(rng: Rng, normal: number, cov: Coverage, field: string, pExtreme = 0.25): unknown {
  if (!chance(rng, pExtreme)) return normal;
  const x = pick(rng, EXTREME_NUMBERS);
  cov.hit(`extreme:${field}`);
  cov.hit(`extreme-value:${x instanceof RawJson ? x.text : String(x)}`);
  return x;
}

function maybe<T>(rng: Rng, p: number, make: () => T): T | undefined {
  return chance(rng, p) ? make() : undefined;
}

const HEX64 = 'ab'.repeat(32);

function hopOf(rng: Rng, cov: Coverage): unknown {
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
function actionBody(rng: Rng, cov: Coverage, big: boolean): unknown {
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

function chunkPayload(rng: Rng, cov: Coverage, kind: string, big: boolean): Record<string, unknown> {
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

/** A payload object for `kind` (valid or near-valid; the caller may break it further). */
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
