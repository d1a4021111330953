// Test harness for the session core over real TCP on 127.0.0.1: a host (HostSession + listenTcp), players
// (PlayerSession + connectTcp), and a raw client that speaks the protocol by hand for hostile cases.
import { connect, type Socket } from 'node:net';
import { SimulatedClock } from 'xstate';
import { HostSession, type HostNotice, type HostOptions } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice, type PlayerOptions } from '../../actors/player/playerSession.ts';
import type { Clock, Connection, Listener, LogFn, TransportLimits } from '../../actors/ports.ts';
import { decodeMessage, openMessage, sealedFrame, unsealedFrame, type Message } from '../../actors/wire.ts';
import { realClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { connectTcp, listenTcp } from '../../adapters/transport/tcp.ts';
import { FrameDecoder, type Frame } from '../../protocol/frame.ts';
import { joinProof, resumeMac } from '../../protocol/keys.ts';
import type { KindName, Payloads } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';

export const KEY = new Uint8Array(32).map((_, i) => i + 1);

/** Polls `probe` until it returns a value that is not undefined/false; fails after `ms` of real time. */
export async function waitFor<T>(probe: () => T | undefined | false, ms = 5000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface LogEntry { msg: string; [k: string]: unknown }

export interface TestHost {
  host: HostSession;
  listener: Listener;
  port: number;
  notices: HostNotice[];
  logs: LogEntry[];
  /** The host session's clock: simulated unless the test asked for the real one. */
  clock: SimulatedClock | Clock;
  /** Every connection the listener handed to the host, in arrival order (refused ones never get here). */
  connections: Connection[];
  close(): Promise<void>;
}

export async function startHost(
  options: Partial<HostOptions> = {},
  setup: { limits?: Partial<TransportLimits>; realClock?: boolean; transportClock?: Clock } = {},
): Promise<TestHost> {
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push(e);
  const clock = setup.realClock ? realClock : new SimulatedClock();
  const listener = await listenTcp({ host: '127.0.0.1', port: 0, limits: setup.limits, clock: setup.transportClock ?? realClock, log });
  const host = new HostSession(
    { hostName: 'host', key: KEY, ...options },
    { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log },
  );
  const connections: Connection[] = [];
  // The host sees the real listener; the wrapper only records what it hands out.
  host.attach({
    host: listener.host,
    port: listener.port,
    close: (reason) => listener.close(reason),
    onConnection: (handler) =>
      listener.onConnection((conn) => {
        connections.push(conn);
        handler(conn);
      }),
  });
  const notices: HostNotice[] = [];
  host.on((n) => notices.push(n));
  return {
    host,
    listener,
    port: listener.port,
    notices,
    logs,
    clock,
    connections,
    close: async () => {
      host.stop('test over');
      await listener.close('test over');
    },
  };
}

export interface TestPlayer {
  player: PlayerSession;
  notices: PlayerNotice[];
  logs: LogEntry[];
  games(): Message[];
  ended(): PlayerNotice & { type: 'ended' } | undefined;
}

/** Joins with a PlayerSession over TCP; resolves once the connection is open (not yet welcomed). */
export async function joinPlayer(port: number, name: string, options: Partial<PlayerOptions> = {}): Promise<TestPlayer> {
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push(e);
  const conn = await connectTcp({ host: '127.0.0.1', port, clock: realClock, log });
  const player = new PlayerSession({ name, key: KEY, ...options }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
  const notices: PlayerNotice[] = [];
  player.on((n) => notices.push(n));
  player.connect(conn);
  return {
    player,
    notices,
    logs,
    games: () => notices.flatMap((n) => (n.type === 'game' ? [n.message] : [])),
    ended: () => notices.find((n): n is PlayerNotice & { type: 'ended' } => n.type === 'ended'),
  };
}

/** Joins and waits for the Welcome. */
export async function joinedPlayer(port: number, name: string, options: Partial<PlayerOptions> = {}): Promise<TestPlayer> {
  const p = await joinPlayer(port, name, options);
  await waitFor(() => p.player.joined || p.ended(), 5000, `${name} to join`);
  if (!p.player.joined) throw new Error(`${name} was not welcomed: ${JSON.stringify(p.ended())}`);
  return p;
}

/** A client that speaks the protocol by hand over a raw socket (for hostile and spoofing cases). */
export class RawClient {
  readonly socket: Socket;
  readonly frames: Frame[] = [];
  closed = false;
  private readonly decoder = new FrameDecoder();
  sealer: Sealer | undefined;
  readonly opener = new Opener(nodeCrypto.aesGcm(KEY));
  you: number | undefined;
  /** The Join frame exactly as `join` wrote it (for replaying it elsewhere). */
  joinBytes: Uint8Array | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk) => {
      try {
        this.frames.push(...this.decoder.push(chunk));
      } catch {
        socket.destroy();
      }
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => (this.closed = true));
  }

  static open(port: number, localAddress = '127.0.0.1'): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Waits for the Challenge, answers with a Join (proof under KEY unless told otherwise), waits for Welcome. */
  async join(
    name: string,
    options: { key?: Uint8Array; version?: string; resume?: { id: number; token: Uint8Array; last?: number } } = {},
  ): Promise<Payloads['Welcome']> {
    const challenge = await waitFor(() => this.frames.find((f) => f.header.kind === 1), 3000, 'challenge');
    const decoded = decodeMessage(1, challenge.body);
    if (!decoded.ok || decoded.message.kind !== 'Challenge') throw new Error('bad challenge');
    const nonce = decoded.message.payload.nonce;
    const proof = joinProof(nodeCrypto, options.key ?? KEY, nonce, name);
    const back = options.resume;
    const last = back?.last === undefined ? undefined : BigInt(back.last);
    const resume = back && { id: back.id, mac: resumeMac(nodeCrypto, back.token, nonce, back.id, name, last), ...(back.last === undefined ? {} : { last: back.last }) };
    this.joinBytes = unsealedFrame('Join', { name, version: options.version ?? '0.1', proof, ...(resume ? { resume } : {}) });
    this.write(this.joinBytes);
    const welcome = await waitFor(() => this.messages().find((m) => m.kind === 'Welcome') ?? (this.closed ? 'closed' : undefined), 3000, 'welcome');
    if (welcome === 'closed') throw new Error('closed before Welcome');
    const payload = (welcome as { payload: Payloads['Welcome'] }).payload;
    this.you = payload.you;
    this.sealer = new Sealer(nodeCrypto.aesGcm(KEY), payload.you);
    return payload;
  }

  /** Every sealed message from the host so far, opened (each frame opened once). */
  private opened: Message[] = [];
  private openedUpTo = 0;
  messages(): Message[] {
    for (; this.openedUpTo < this.frames.length; this.openedUpTo++) {
      const f = this.frames[this.openedUpTo]!;
      if (f.header.kind <= 3) continue;
      const m = openMessage(this.opener, f);
      if (m.ok) this.opened.push(m.message);
    }
    return this.opened;
  }

  /** A Reject the host sent, if any. */
  reject(): Payloads['Reject'] | undefined {
    const f = this.frames.find((x) => x.header.kind === 3);
    if (!f) return undefined;
    const d = decodeMessage(3, f.body);
    return d.ok && d.message.kind === 'Reject' ? d.message.payload : undefined;
  }

  sealed<K extends KindName>(kind: K, payload: Payloads[K]): Uint8Array {
    if (!this.sealer) throw new Error('not joined');
    const frame = sealedFrame(this.sealer, kind, payload);
    if (!frame) throw new RangeError(`${kind}: larger than a frame`);
    return frame;
  }

  send<K extends KindName>(kind: K, payload: Payloads[K]): Uint8Array {
    const bytes = this.sealed(kind, payload);
    this.write(bytes);
    return bytes;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
