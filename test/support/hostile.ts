// Helpers for the hostile-peer tests (reliability-tests §7.3, §7.4): two well-behaved players that must keep
// relaying, raw connections mapped to the host's side of them, hand-made frames, and the host's records
// (close reasons from the transport's 'connection closed' lines, per-player drop counters); and useHosts, the
// per-file host pool that closes every host after each test and checks that no handler of ours threw.
import { afterEach, expect } from 'vitest';
import type { SimulatedClock } from 'xstate';
import type { HostSession } from '../../actors/host/hostSession.ts';
import type { PlayerOptions } from '../../actors/player/playerSession.ts';
import type { Connection } from '../../actors/ports.ts';
import type { TcpConnection } from '../../adapters/transport/tcpConnection.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { utf8 } from '../../protocol/bytes.ts';
import { encodeUnsealedFrame, UNASSIGNED_SENDER } from '../../protocol/frame.ts';
import { Kind, type Payloads } from '../../protocol/messages/index.ts';
import { joinProof } from '../../protocol/keys.ts';
import { Sealer } from '../../protocol/seal.ts';
import { decodeMessage } from '../../actors/wire.ts';
import {
  joinedPlayer,
  KEY,
  RawClient,
  startHost,
  waitFor,
  type LogEntry,
  type TestHost,
  type TestPlayer,
} from './session.ts';

/**
 * Registers an afterEach for the calling test file and returns a startHost that records its hosts. After every
 * test the hook runs `beforeClose` (e.g. destroying raw clients), checks that no handler of ours threw on any
 * recorded host (handlerFailures), then closes them all. Call it once, at the top level of a test file.
 */
export function useHosts(beforeClose?: () => void): (...args: Parameters<typeof startHost>) => Promise<TestHost> {
  let hosts: TestHost[] = [];
  afterEach(async () => {
    beforeClose?.();
    for (const h of hosts) expect(handlerFailures(h.logs)).toEqual([]);
    await Promise.all(hosts.map((h) => h.close()));
    hosts = [];
  });
  return async (...args) => {
    const h = await startHost(...args);
    hosts.push(h);
    return h;
  };
}

/** The host's simulated clock (startHost's default). */
export const simClock = (h: TestHost): SimulatedClock => h.clock as SimulatedClock;

/** Two joined players, alice (1) and bob (2), and a check that chat still flows every way through the host. */
export interface GoodPair {
  alice: TestPlayer;
  bob: TestPlayer;
  /** alice → bob and the host, then the host → alice and bob; resolves once every copy arrived. */
  relays(): Promise<void>;
}

let relayCount = 0;

function sawChat(notices: readonly { type: string; text?: string }[], text: string): boolean {
  return notices.some((n) => n.type === 'chat' && n.text === text);
}

export async function goodPair(h: TestHost, options: Partial<PlayerOptions> = {}): Promise<GoodPair> {
  const alice = await joinedPlayer(h.port, 'alice', options);
  const bob = await joinedPlayer(h.port, 'bob', options);
  return {
    alice,
    bob,
    async relays() {
      relayCount += 1;
      const text = `still relaying ${relayCount}`;
      if (!alice.player.chat(text)) throw new Error('alice can no longer send');
      await waitFor(() => sawChat(bob.notices, text) && sawChat(h.notices, text), 5000, `bob and the host to see "${text}"`);
      h.host.chat(`${text} back`);
      await waitFor(() => sawChat(alice.notices, `${text} back`) && sawChat(bob.notices, `${text} back`), 5000, 'the host chat');
      if (alice.ended() || bob.ended()) throw new Error('a well-behaved player was ended');
    },
  };
}

/**
 * Opens a raw connection and returns it with the host's side of it. Open them one at a time: the mapping is
 * by arrival order.
 */
export async function openRaw(h: TestHost, localAddress = '127.0.0.1'): Promise<{ raw: RawClient; conn: Connection }> {
  const before = h.connections.length;
  const raw = await RawClient.open(h.port, localAddress);
  const conn = await waitFor(() => h.connections[before], 3000, 'the host to accept the connection');
  return { raw, conn };
}

/** The transport's connection behind the port (buffered and queued byte counts, joined). */
export const tcp = (conn: Connection): TcpConnection => conn as TcpConnection;

/** The reasons the transport logged for connection `id` ('connection closed' lines), in order. */
export function closeReasons(logs: readonly LogEntry[], id: number): string[] {
  return logs.filter((l) => l.msg === 'connection closed' && l.id === id).map((l) => String(l.reason));
}

/** Waits until the host's side of `conn` closed and returns its reason, checking exactly one was logged. */
export async function closedWith(h: TestHost, conn: Connection): Promise<string> {
  const reason = await waitFor(() => conn.closeReason, 5000, `connection ${conn.id} to close`);
  const logged = closeReasons(h.logs, conn.id);
  if (logged.length !== 1 || logged[0] !== reason) {
    throw new Error(`connection ${conn.id}: closeReason ${reason}, logged ${JSON.stringify(logged)}`);
  }
  return reason;
}

/** The host's per-player drop counters ("cause:kind" → count); undefined once the player's link is gone. */
export function hostDrops(host: HostSession, id: number): ReadonlyMap<string, number> | undefined {
  return host.droppedFrames(id);
}

/** 'frame dropped' lines the host logged for a player. */
export function dropLines(logs: readonly LogEntry[], player: number): LogEntry[] {
  return logs.filter((l) => l.msg === 'frame dropped' && l.player === player);
}

/** Lines the transport logs when a handler of ours threw (it must never happen). */
export function handlerFailures(logs: readonly LogEntry[]): LogEntry[] {
  return logs.filter((l) => l.msg === 'handler failed');
}

/** An unsealed frame from the unassigned sender with any kind and raw body bytes. */
export function rawUnsealed(kind: number, body: Uint8Array | string): Uint8Array {
  return encodeUnsealedFrame(kind, UNASSIGNED_SENDER, typeof body === 'string' ? utf8(body) : body);
}

/** A 4-byte length prefix alone. */
export function lengthPrefix(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length);
  return out;
}

/** The Challenge the host sent a raw client. */
export async function challengeOf(raw: RawClient): Promise<Payloads['Challenge']> {
  const frame = await waitFor(() => raw.frames.find((f) => f.header.kind === Kind.Challenge), 3000, 'challenge');
  const decoded = decodeMessage(Kind.Challenge, frame.body);
  if (!decoded.ok || decoded.message.kind !== 'Challenge') throw new Error('bad challenge');
  return decoded.message.payload;
}

/** A correct Join for `nonce` as JSON text, with `extra` fields appended (unknown fields are ignored). */
export function joinJson(nonce: Uint8Array, name: string, extra: Record<string, unknown> = {}): string {
  const proof = Buffer.from(joinProof(nodeCrypto, KEY, nonce, name)).toString('base64');
  return JSON.stringify({ name, version: '0.1', proof, ...extra });
}

/** Waits for the raw client's Reject. */
export function rejectOf(raw: RawClient): Promise<Payloads['Reject']> {
  return waitFor(() => raw.reject(), 5000, 'a Reject');
}

/** Waits for a sealed Kicked to the raw client. */
export async function kickedOf(raw: RawClient): Promise<Payloads['Kicked']> {
  const m = await waitFor(() => raw.messages().find((x) => x.kind === 'Kicked'), 5000, 'a Kicked');
  return m.payload as Payloads['Kicked'];
}

/** A sealer for any sender id under the session key (what a joined, hostile player can build). */
export function forgerFor(sender: number, firstCounter = 1n): Sealer {
  return new Sealer(nodeCrypto.aesGcm(KEY), sender, { firstCounter });
}

/** A transition as a stable text: source --event [guard]--> targets (TransitionDefinition objects differ per provide). */
export function transitionKey(t: { source: { id: string }; eventType: string; target?: readonly { id: string }[] | undefined; guard?: unknown }): string {
  const guard = t.guard && typeof t.guard === 'object' && 'type' in t.guard ? ` [${String(t.guard.type)}]` : '';
  const target = t.target?.length ? t.target.map((s) => s.id).join(',') : '(no target: actions only)';
  return `${t.source.id} --${t.eventType}${guard}--> ${target}`;
}

/**
 * Records the transitions the host's handshake actor for `conn` takes from now on (through xstate's inspection
 * API); the actor must still run.
 */
export function watchHandshake(host: HostSession, conn: Connection, into: Set<string>): void {
  const actor = host.handshakeOf(conn.id);
  if (!actor) throw new Error(`no handshake actor for connection ${conn.id}`);
  actor.system.inspect((e) => {
    const event = e as { type: string; _transitions?: Parameters<typeof transitionKey>[0][] };
    if (event.type === '@xstate.microstep') for (const t of event._transitions ?? []) into.add(transitionKey(t));
  });
}
