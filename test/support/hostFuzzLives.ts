// The whole-host fuzz's players: the honest and hostile lives that test/support/hostFuzzRun.ts runs against a real
// host, the token bucket that paces a hostile player under the host's rate limits, and the checks of one relay order.
import { createHash } from 'node:crypto';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { utf8 } from '../../protocol/bytes.ts';
import { encodeFrame, MAX_COUNTER, UNASSIGNED_SENDER } from '../../protocol/frame.ts';
import { Kind, type Payloads } from '../../protocol/messages/index.ts';
import { Sealer } from '../../protocol/seal.ts';
import { type FuzzHost } from './hostFuzzHost.ts';
import { type Received, FuzzPeer, sleep } from './hostFuzzPeer.ts';
import { jsonText, type Rng, pick, between, Coverage, type HostileState, type HostileStep } from './hostFuzzFields.ts';
import { hostileName } from './hostFuzzFrames.ts';
import { peer } from './hostFuzzPool.ts';

export const SEEDS = (process.env.HOST_FUZZ_SEEDS ?? '5,77').split(',').map(Number);
/** Steps per hostile player per seed (paced over about STEP_MS each). */
export const STEPS = Number(process.env.HOST_FUZZ_STEPS ?? 300);
export const STEP_MS = 10;
/** A generous bound on the host's resident memory (node + tsx alone is about 100 MB). */
export const RSS_BOUND_MB = 600;
export const HOSTILES = 3;
/** A host life lasts at least this long (two of the host's 2 s pings: a Pong's effect shows in the next Ping). */
export const MIN_LIFE_MS = 5000;
/**
 * The host's transport allows 1000 frames and 1 MiB (length fields) per second per connection, as token buckets
 * that start full: a bucket of the same size refilled a little slower never lets a hostile player flood by mistake,
 * yet lets a frame of the largest size through once the connection was quiet for about a second.
 */
export const RATE_BYTES = 1024 * 1024;
export const RATE_FRAMES = 1000;
export const REFILL = 0.9;

/** A problem the fuzz found: the seed and host life it happened in, a class, and the evidence. */
export interface Finding {
  seed: number;
  life: number;
  what: string;
  detail: string;
}

export const short = (x: unknown, n = 240): string => {
  const s = typeof x === 'string' ? x : JSON.stringify(x);
  return s === undefined ? String(x) : s.length > n ? `${s.slice(0, n)}…` : s;
};

/** Mirrors the host's token buckets for one connection, so a hostile player floods only on purpose. */
export class Bucket {
  private bytes = RATE_BYTES;
  private frames = RATE_FRAMES;
  private at = Date.now();
  private refill(): void {
    const now = Date.now();
    const dt = (now - this.at) / 1000;
    this.at = now;
    this.bytes = Math.min(RATE_BYTES, this.bytes + dt * RATE_BYTES * REFILL);
    this.frames = Math.min(RATE_FRAMES, this.frames + dt * RATE_FRAMES * REFILL);
  }
  /** Waits until a frame of `wireBytes` (prefix included) fits. */
  async take(wireBytes: number): Promise<void> {
    const bytes = Math.min(RATE_BYTES, wireBytes - 4);
    for (;;) {
      this.refill();
      if (this.bytes >= bytes && this.frames >= 1) break;
      await sleep(Math.max(2, Math.ceil(((bytes - this.bytes) / (RATE_BYTES * REFILL)) * 1000)));
    }
    this.bytes -= bytes;
    this.frames -= 1;
  }
}

/** A message as compared across the honest players: kind and a digest of the decoded payload. */
export function digest(m: Received): string {
  return `${m.kind}:${createHash('sha1').update(jsonText(m.payload)).digest('hex').slice(0, 12)}`;
}

export const chatsOf = (p: FuzzPeer): Payloads['Chat'][] =>
  p.received.flatMap((m) => (m.kind === 'Chat' ? [m.payload as Payloads['Chat']] : []));
export const actionsOf = (p: FuzzPeer): Payloads['Action'][] =>
  p.received.flatMap((m) => (m.kind === 'Action' ? [m.payload as Payloads['Action']] : []));
/** Whether `p` received a Chat with `text` (from `from`, when given). */
export const sawChat = (p: FuzzPeer, text: string, from?: number): boolean =>
  chatsOf(p).some((c) => c.text === text && (from === undefined || c.from === from));
export const sawStart = (p: FuzzPeer): boolean =>
  p.received.some((m) => m.kind === 'Session' && (m.payload as Payloads['Session']).started);
/** `until` waits for a value: true, or undefined to keep waiting. */
export const yes = (ok: boolean): true | undefined => (ok ? true : undefined);

export function fromOf(m: Received): number | undefined {
  const p = m.payload as { from?: unknown };
  return typeof p.from === 'number' ? p.from : undefined;
}

/** One honest player: Hello, Clock every tick, an Action every 2nd tick, a Chat every 3rd; what it sent. */
export interface Honest {
  peer: FuzzPeer;
  tag: string;
  t: number;
  n: number;
  chats: string[];
  actions: number[];
}

export function honestTick(h: Honest, started: boolean): void {
  h.n += 1;
  if (started) h.t += 200;
  h.peer.send('Clock', { t: h.t, speed: started ? 1 : 0, ahead: 2, safe: h.t + 800 });
  if (h.n % 2 === 0) {
    h.actions.push(h.n);
    const body = { who: h.tag, n: h.n, road: [1.5, -2] };
    h.peer.send('Action', { stamp: h.t + 1200, seq: h.n, body, category: 'build' });
  }
  if (h.n % 3 === 0) {
    const text = `${h.tag}-${h.n} ✓`;
    h.chats.push(text);
    h.peer.send('Chat', { text });
  }
}

/** A hostile player's state across its connections: the RNG stream, its clock and what it sent. */
export interface Hostile {
  index: number;
  rng: Rng;
  state: HostileState;
  peer: FuzzPeer | undefined;
  bucket: Bucket;
  /** The current connection had a step that ends it (junk, flood, Leave, a used-up counter). */
  ending: boolean;
  /** Valid sealed chats sent on the current connection (the honest players must see them). */
  chats: string[];
  /** Expectations of connections that stayed open to the end. */
  expectedChats: { from: number; text: string }[];
  joins: number;
  joinFailures: string[];
  recent: string[];
  /** The `w` of its answers to the host's Pings (half of them absurd). */
  pongW: () => unknown;
}

/** Connects and joins a hostile player (retrying refused names); false when the host gave it no usable Welcome. */
export async function hostileJoin(
  h: FuzzHost,
  x: Hostile,
  cov: Coverage,
  findings: Finding[],
  seed: number,
  life: number,
): Promise<boolean> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const { name, acceptable } = hostileName(x.rng, cov);
    let p: FuzzPeer;
    try {
      p = await peer(h, `hostile${x.index}`, false, x.pongW);
    } catch {
      return false;
    }
    const end = await p.join(name, { waitMs: 3000 });
    x.joins += 1;
    cov.hit(`join:${end}`);
    if (end === 'welcome') {
      x.peer = p;
      x.bucket = new Bucket(); // the host's buckets start full on every connection
      x.ending = false;
      x.chats = [];
      x.state.you = p.you!;
      x.state.seq = 0;
      return true;
    }
    if (end === 'reject' && (!acceptable || p.reject?.reason === 'flood')) {
      p.destroy(); // a refused name, or the host's joins-per-address limit: both are the host's right
      continue;
    }
    if (end === 'closed') await sleep(300);
    if (!h.alive()) return false; // the host died meanwhile: that is the finding
    // An acceptable name that got no Welcome, or a Welcome that does not decode: nobody can join.
    const why = end === 'reject' ? `Reject ${short(p.reject)}` : end;
    x.joinFailures.push(why);
    findings.push({
      seed,
      life,
      what: `join of an acceptable name failed: ${end}`,
      detail: `name ${JSON.stringify(name)}: ${why}; ${short(p.failures.find((f) => f.kindName === 'Welcome'))}`,
    });
    p.destroy();
    return false;
  }
  return false;
}

/** Puts one generated step on the wire in its frame mode. */
export async function sendStep(x: Hostile, step: HostileStep, cov: Coverage): Promise<void> {
  const p = x.peer!;
  const you = p.you!;
  const rng = x.rng;
  let bytes: Uint8Array | undefined;
  const seal = (kind: number, payload: Uint8Array): Uint8Array | undefined => {
    try {
      return p.sealer!.seal(kind, payload).slice();
    } catch {
      cov.hit('sent:unsealable');
      return undefined;
    }
  };
  switch (step.mode) {
    case 'sealed':
    case 'forbiddenKind':
    case 'unknownKind':
      bytes = seal(step.kind, step.payload);
      if (bytes) {
        p.sent.push(bytes);
        if (p.sent.length > 64) p.sent.shift();
      }
      break;
    case 'replay':
      bytes = p.sent.length > 0 ? pick(rng, p.sent) : seal(step.kind, step.payload);
      break;
    case 'wrongSender': {
      // Never its own id: validly sealed as itself with a far counter, that would be farCounter, muting it.
      const sender = pick(rng, [0, 65535, ...x.state.others, you + 1, 65534].filter((id) => id !== you));
      const forger = new Sealer(nodeCrypto.aesGcm(p.key), sender, { firstCounter: pick(rng, [1n, 2n ** 40n]) });
      bytes = forger.seal(step.kind, step.payload).slice();
      break;
    }
    case 'forgedTag': {
      bytes = seal(step.kind, step.payload);
      const at = between(rng, 4, bytes ? bytes.length - 1 : 4);
      if (bytes) bytes[at]! ^= 1 << between(rng, 0, 7);
      if (at === 4) x.ending = true; // the version byte: a malformed frame, the host ends the connection
      break;
    }
    case 'unsealed':
      const sender = pick(rng, [you, UNASSIGNED_SENDER]);
      bytes = encodeFrame({ version: 1, kind: step.kind, sender, counter: 0n }, step.payload);
      break;
    case 'shortBody':
      const header = { version: 1, kind: step.kind, sender: you, counter: p.sealer!.nextCounter };
      bytes = encodeFrame(header, step.payload.subarray(0, between(rng, 0, 15)));
      break;
    case 'farCounter': {
      // Only ever forward: a counter sealed twice would be refused as a replay (and reuse a nonce).
      const jump = pick(rng, [2n ** 40n, 2n ** 62n, MAX_COUNTER]);
      const first = jump > p.sealer!.nextCounter ? jump : p.sealer!.nextCounter;
      if (first > MAX_COUNTER) {
        x.ending = true;
        break;
      }
      p.sealer = new Sealer(nodeCrypto.aesGcm(p.key), you, { firstCounter: first });
      bytes = seal(step.kind, step.payload);
      if (first === MAX_COUNTER) x.ending = true; // used up: every later frame is unsealable
      break;
    }
    case 'junk': {
      bytes = Uint8Array.from({ length: between(rng, 4, 64) }, () => between(rng, 0, 255));
      bytes[0] = pick(rng, [0x00, 0xff, 0x47]); // a length the host refuses, or an HTTP request
      x.ending = true;
      break;
    }
    case 'flood': {
      const one = utf8('{"n":1}');
      const many: Uint8Array[] = [];
      for (let i = 0; i < 1100; i++) many.push(seal(Kind.Pong, one)!);
      bytes = Buffer.concat(many);
      x.ending = true;
      break;
    }
  }
  if (!bytes) return;
  if (step.mode !== 'flood' && step.mode !== 'junk') await x.bucket.take(bytes.length);
  if (step.kind === Kind.Leave && step.mode === 'sealed' && step.valid) x.ending = true;
  if (step.chatText !== undefined && !x.ending) x.chats.push(step.chatText);
  p.write(bytes);
  cov.hit(`sent:${step.label.split('/')[0]}`);
  cov.hit(`sent-mode:${step.mode}`);
  if (step.valid && step.mode === 'sealed') cov.hit(`sent-valid:${step.label.split('/')[0]}`);
  x.recent.push(`${Date.now() % 100000} ${step.label} ${step.payload.length}B`);
  if (x.recent.length > 12) x.recent.shift();
}

export interface LifeResult {
  died: boolean;
  rssMaxKb: number;
}

/** The host's terminal: chat lines of every shape, /pause, /speed and /perm; what it typed as chat. */
export function hostUiAction(rng: Rng, h: FuzzHost, cov: Coverage, typed: string[]): void {
  const r = rng();
  if (r < 0.45) {
    const text = pick(rng, [
      'hello from the host',
      'ctl \u0007\u001b here',
      'emoji 👋 and name#1',
      'ALICE#3 says hi',
      'é'.repeat(500),
      'é'.repeat(500),
      'x'.repeat(501),
    ]);
    cov.hit(`host-ui:chat${text.length >= 500 ? `-${text.length}` : ''}`);
    typed.push(text);
    h.type(text);
  } else if (r < 0.6) {
    cov.hit('host-ui:pause');
    h.type('/pause');
  } else if (r < 0.75) {
    const speed = pick(rng, [1, 2, 4]);
    cov.hit(`host-ui:speed${speed}`);
    h.type(`/speed ${speed}`);
  } else if (r < 0.85) {
    const perm = pick(rng, ['build 1,2', 'build everyone', 'bulldoze host', 'other 1', 'other everyone']);
    cov.hit('host-ui:perm');
    h.type(`/perm ${perm}`);
  } else {
    cov.hit('host-ui:players');
    h.type('/players');
  }
}

/**
 * The streams of the two honest players, compared from the moment both were joined: every message both must get
 * (all but Pings, what came from either of them, and what is addressed to one game) in one identical order.
 */
export function compareOrder(a: Honest, b: Honest, hostDone: string | undefined): string | undefined {
  const ra = a.peer.received;
  const rb = b.peer.received;
  const bId = b.peer.you!;
  const ids = new Set([a.peer.you!, bId]);
  const joinedB = (m: Received) =>
    m.kind === 'PlayerJoined' && (m.payload as Payloads['PlayerJoined']).player.id === bId;
  const startA = ra.findIndex(joinedB) + 1;
  const welcomeB = rb.findIndex((m) => m.kind === 'Welcome');
  const startB = rb.findIndex((m, i) => i > welcomeB && m.kind === 'Permissions') + 1;
  if (startA === 0 || startB === 0) return `no common start (A at ${startA}, B at ${startB})`;
  const endOf = (list: Received[]): number => {
    if (hostDone === undefined) return list.length;
    const i = list.findIndex((m) => m.kind === 'Chat' && (m.payload as Payloads['Chat']).text === hostDone);
    return i < 0 ? list.length : i + 1;
  };
  const shared = (list: Received[], from: number, to: number): Received[] =>
    list.slice(from, to).filter((m) => {
      if (m.kind === 'Ping' || m.kind === 'Kicked') return false;
      // A bug report's ask names each game's own transfer id; the busy answer and the bundle go to the asker only.
      if (m.kind === 'ReportAsk' || m.kind === 'ReportBusy' || m.kind === 'ReportBundle') return false;
      const origin = fromOf(m);
      const relayed = m.kind === 'Chat' || m.kind === 'Action' || m.kind === 'PeerClock';
      if (relayed && origin !== undefined && ids.has(origin)) {
        // The host's pause-order flush goes to all, the origin included; an ordinary relay to all but the origin.
        return m.kind === 'Action' && (m.payload as Payloads['Action']).pause === true;
      }
      if (m.kind === 'PlayerJoined' && ids.has((m.payload as Payloads['PlayerJoined']).player.id)) return false;
      if (m.kind === 'PlayerLeft' && ids.has((m.payload as Payloads['PlayerLeft']).id)) return false;
      return true;
    });
  const sa = shared(ra, startA, endOf(ra)).map(digest);
  const sb = shared(rb, startB, endOf(rb)).map(digest);
  const n = Math.min(sa.length, sb.length);
  for (let i = 0; i < n; i++) {
    if (sa[i] !== sb[i]) {
      return `differ at ${i} of ${n}: A ${sa.slice(i, i + 4).join(' ')} | B ${sb.slice(i, i + 4).join(' ')}`;
    }
  }
  if (hostDone !== undefined && sa.length !== sb.length) return `A saw ${sa.length} shared messages, B ${sb.length}`;
  return undefined;
}

/** Runs one seed: host lives until every hostile player has run its steps; returns findings and coverage. */
