// The whole-host fuzz's peers: a TCP client under the session key that checks EVERY frame the host sends against
// the spec's validators (and loses no leniently read field), for honest and hostile players alike.
import { connect, type Socket } from 'node:net';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { fromUtf8, utf8 } from '../../protocol/bytes.ts';
import { encodeUnsealedFrame, FrameDecoder, HOST_SENDER, UNASSIGNED_SENDER, type Frame } from '../../protocol/frame.ts';
import { joinProof } from '../../protocol/keys.ts';
import { Kind, decodePayload, encodePayload, isSealedKind, kindName, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { LENIENT_FIELDS } from '../../protocol/messages/table.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { jsonText } from './hostFuzzFields.ts';

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
