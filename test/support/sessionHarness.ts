// One harness shape for the session scenarios over any transport (DESIGN.md "Actors": the same sessions run over
// TCP, Steam, or the simulator's in-memory network): a host, players, raw protocol peers that speak by hand, and a
// wait that lets transport time pass the transport's way (real time on TCP; the network's simulated clock in
// memory). The host's own timers run on a simulated clock the scenario drives, on every transport. The TCP harness
// here reuses test/support/session.ts as it is; the memory one is in memorySession.ts.
import { connect, type Socket } from 'node:net';
import type { SimulatedClock } from 'xstate';
import type { HostOptions } from '../../actors/host/hostSession.ts';
import type { PlayerOptions } from '../../actors/player/playerSession.ts';
import type { Connection, TransportLimits } from '../../actors/ports.ts';
import { decodeMessage, openMessage, sealedFrame, unsealedFrame, type Message } from '../../actors/wire.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { FrameDecoder, type Frame } from '../../protocol/frame.ts';
import { joinProof, resumeMac } from '../../protocol/keys.ts';
import { Kind, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { closeReasons, handlerFailures } from './hostile.ts';
import { joinPlayer, KEY, startHost, waitFor as realWaitFor, type LogEntry, type TestHost, type TestPlayer } from './session.ts';

export type { TestHost, TestPlayer, LogEntry } from './session.ts';

/** The raw byte stream under a ProtocolPeer: a TCP socket or a memory socket. */
export interface ByteEnd {
  write(bytes: Uint8Array): void;
  /** Graceful close (FIN). */
  end(): void;
  /** Abrupt close. */
  destroy(): void;
  /** Stops reading (the peer's bytes pile up, then its writes queue). */
  pause(): void;
  onData(handler: (chunk: Uint8Array) => void): void;
  onClosed(handler: () => void): void;
}

export type Wait = <T>(probe: () => T | undefined | false, ms?: number, what?: string) => Promise<T>;

/** A client that speaks the protocol by hand over any ByteEnd (hostile and spoofing cases); RawClient's twin. */
export class ProtocolPeer {
  readonly end: ByteEnd;
  readonly frames: Frame[] = [];
  closed = false;
  sealer: Sealer | undefined;
  readonly opener = new Opener(nodeCrypto.aesGcm(KEY));
  you: number | undefined;
  /** The Join frame exactly as `join` wrote it. */
  joinBytes: Uint8Array | undefined;
  #decoder = new FrameDecoder();
  #wait: Wait;
  #opened: Message[] = [];
  #openedUpTo = 0;

  constructor(end: ByteEnd, wait: Wait) {
    this.end = end;
    this.#wait = wait;
    end.onData((chunk) => {
      try {
        this.frames.push(...this.#decoder.push(chunk));
      } catch {
        end.destroy();
      }
    });
    end.onClosed(() => (this.closed = true));
  }

  write(bytes: Uint8Array): void {
    if (!this.closed) this.end.write(bytes);
  }

  /** Waits for the Challenge, answers with a Join (proof under KEY unless told otherwise), waits for Welcome. */
  async join(
    name: string,
    options: { key?: Uint8Array; version?: string; resume?: { id: number; token: Uint8Array; last?: number } } = {},
  ): Promise<Payloads['Welcome']> {
    const challenge = await challengeOf(this, this.#wait);
    const proof = joinProof(nodeCrypto, options.key ?? KEY, challenge.nonce, name);
    const back = options.resume;
    const resume = back && {
      id: back.id,
      mac: resumeMac(nodeCrypto, back.token, challenge.nonce, back.id, name, back.last === undefined ? undefined : BigInt(back.last)),
      ...(back.last === undefined ? {} : { last: back.last }),
    };
    this.joinBytes = unsealedFrame('Join', { name, version: options.version ?? '0.1', proof, ...(resume ? { resume } : {}) });
    this.write(this.joinBytes);
    const welcome = await this.#wait(
      () => this.messages().find((m) => m.kind === 'Welcome') ?? (this.closed ? 'closed' : undefined),
      5000,
      'welcome',
    );
    if (welcome === 'closed') throw new Error('closed before Welcome');
    const payload = (welcome as { payload: Payloads['Welcome'] }).payload;
    this.you = payload.you;
    this.sealer = new Sealer(nodeCrypto.aesGcm(KEY), payload.you);
    return payload;
  }

  /** Every sealed message from the host so far, opened (each frame opened once). */
  messages(): Message[] {
    for (; this.#openedUpTo < this.frames.length; this.#openedUpTo++) {
      const f = this.frames[this.#openedUpTo]!;
      if (f.header.kind <= 3) continue;
      const m = openMessage(this.opener, f);
      if (m.ok) this.#opened.push(m.message);
    }
    return this.#opened;
  }

  /** A Reject the host sent, if any. */
  reject(): Payloads['Reject'] | undefined {
    const f = this.frames.find((x) => x.header.kind === Kind.Reject);
    if (!f) return undefined;
    const d = decodeMessage(Kind.Reject, f.body);
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
    this.end.destroy();
  }
}

/** The Challenge the host sent a peer. */
export async function challengeOf(peer: ProtocolPeer, wait: Wait): Promise<Payloads['Challenge']> {
  const frame = await wait(() => peer.frames.find((f) => f.header.kind === Kind.Challenge), 5000, 'challenge');
  const decoded = decodeMessage(Kind.Challenge, frame.body);
  if (!decoded.ok || decoded.message.kind !== 'Challenge') throw new Error('bad challenge');
  return decoded.message.payload;
}

/** What every scenario needs of a transport. */
export interface SessionHarness {
  readonly transport: 'tcp' | 'memory';
  /** A host (HostSession + a listener), closed by closeAll; its session clock is simulated (TestHost.clock). */
  startHost(options?: Partial<HostOptions>, setup?: { limits?: Partial<TransportLimits> }): Promise<TestHost>;
  /** A PlayerSession connected to the host (not yet welcomed). */
  joinPlayer(h: TestHost, name: string, options?: Partial<PlayerOptions>): Promise<TestPlayer>;
  /** A raw protocol peer connected to the host from `localAddress` (default 127.0.0.1). */
  rawPeer(h: TestHost, localAddress?: string): Promise<ProtocolPeer>;
  /** Waits for `probe` while transport time passes (TCP: real time; memory: the network's clock). */
  waitFor: Wait;
  /** Lets a little transport time pass (TCP: ~20 ms real; memory: the network clock by `ms`, default 20). */
  tick(ms?: number): Promise<void>;
  /** Closes every host and peer; checks no handler of ours threw. */
  closeAll(): Promise<void>;
}

/** Joins and waits for the Welcome. */
export async function joinedPlayer(t: SessionHarness, h: TestHost, name: string, options: Partial<PlayerOptions> = {}): Promise<TestPlayer> {
  const p = await t.joinPlayer(h, name, options);
  await t.waitFor(() => p.player.joined || p.ended(), 5000, `${name} to join`);
  if (!p.player.joined) throw new Error(`${name} was not welcomed: ${JSON.stringify(p.ended())}`);
  return p;
}

/** A raw peer and the host's side of its connection (open them one at a time: mapped by arrival order). */
export async function openRaw(t: SessionHarness, h: TestHost, localAddress?: string): Promise<{ raw: ProtocolPeer; conn: Connection }> {
  const before = h.connections.length;
  const raw = await t.rawPeer(h, localAddress);
  const conn = await t.waitFor(() => h.connections[before], 5000, 'the host to accept the connection');
  return { raw, conn };
}

/** Waits until the host's side of `conn` closed and returns its reason, checking exactly one was logged. */
export async function closedWith(t: SessionHarness, h: TestHost, conn: Connection): Promise<string> {
  const reason = await t.waitFor(() => conn.closeReason, 5000, `connection ${conn.id} to close`);
  const logged = closeReasons(h.logs, conn.id);
  if (logged.length !== 1 || logged[0] !== reason) {
    throw new Error(`connection ${conn.id}: closeReason ${reason}, logged ${JSON.stringify(logged)}`);
  }
  return reason;
}

export function rejectOf(t: SessionHarness, raw: ProtocolPeer): Promise<Payloads['Reject']> {
  return t.waitFor(() => raw.reject(), 5000, 'a Reject');
}

export async function kickedOf(t: SessionHarness, raw: ProtocolPeer): Promise<Payloads['Kicked']> {
  const m = await t.waitFor(() => raw.messages().find((x) => x.kind === 'Kicked'), 5000, 'a Kicked');
  return m.payload as Payloads['Kicked'];
}

/** The host's simulated session clock. */
export const hostClock = (h: TestHost): SimulatedClock => h.clock as SimulatedClock;

/** Two joined players, alice and bob, and a check that chat still flows every way through the host. */
export interface GoodPair {
  alice: TestPlayer;
  bob: TestPlayer;
  relays(): Promise<void>;
}

let relayCount = 0;
const sawChat = (notices: readonly { type: string; text?: string }[], text: string) =>
  notices.some((n) => n.type === 'chat' && n.text === text);

export async function goodPair(t: SessionHarness, h: TestHost): Promise<GoodPair> {
  const alice = await joinedPlayer(t, h, 'alice');
  const bob = await joinedPlayer(t, h, 'bob');
  return {
    alice,
    bob,
    async relays() {
      relayCount += 1;
      const text = `still relaying ${relayCount}`;
      if (!alice.player.chat(text)) throw new Error('alice can no longer send');
      await t.waitFor(() => sawChat(bob.notices, text) && sawChat(h.notices, text), 5000, `bob and the host to see "${text}"`);
      h.host.chat(`${text} back`);
      await t.waitFor(() => sawChat(alice.notices, `${text} back`) && sawChat(bob.notices, `${text} back`), 5000, 'the host chat');
      if (alice.ended() || bob.ended()) throw new Error('a well-behaved player was ended');
    },
  };
}

/** Closes hosts (after checking their logs for handler failures) and runs the extra cleanups. */
export async function closeHosts(hosts: TestHost[], extra: (() => void)[]): Promise<void> {
  const failures = hosts.flatMap((h) => handlerFailures(h.logs));
  for (const clean of extra.splice(0)) clean();
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  if (failures.length > 0) throw new Error(`a handler of ours threw: ${JSON.stringify(failures)}`);
}

function tcpEnd(socket: Socket): ByteEnd {
  return {
    write: (bytes) => void (!socket.destroyed && socket.write(bytes)),
    end: () => void socket.end(),
    destroy: () => void socket.destroy(),
    pause: () => void socket.pause(),
    onData: (handler) => void socket.on('data', (chunk: Buffer) => handler(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length))),
    onClosed: (handler) => {
      socket.on('close', handler);
      socket.on('error', handler);
    },
  };
}

/** The TCP harness: test/support/session.ts's host and players on 127.0.0.1, raw peers on real sockets. */
export function tcpHarness(): SessionHarness {
  const hosts: TestHost[] = [];
  const cleanups: (() => void)[] = [];
  const harness: SessionHarness = {
    transport: 'tcp',
    async startHost(options = {}, setup = {}) {
      const h = await startHost(options, setup.limits ? { limits: setup.limits } : {});
      hosts.push(h);
      return h;
    },
    joinPlayer(h, name, options = {}) {
      return joinPlayer(h.port, name, options);
    },
    async rawPeer(h, localAddress = '127.0.0.1') {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const s = connect({ host: '127.0.0.1', port: h.port, localAddress }, () => resolve(s));
        s.once('error', reject);
      });
      cleanups.push(() => void socket.destroy());
      return new ProtocolPeer(tcpEnd(socket), harness.waitFor);
    },
    waitFor: (probe, ms = 5000, what = 'condition') => realWaitFor(probe, ms, what),
    tick: (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms)),
    closeAll: () => closeHosts(hosts, cleanups),
  };
  return harness;
}
