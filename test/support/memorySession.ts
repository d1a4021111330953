// The session harness over the in-memory network (adapters/transport/memory.ts): the same HostSession and
// PlayerSession as over TCP, with every byte on a memory link. Two simulated clocks, as the TCP harness has two
// clocks: the host session's (the scenario drives it, as session.ts's startHost does) and the network's, which
// also runs the players' sessions and the transport's own timers and which waitFor moves (real time's role on
// TCP). No real time and no real randomness moves anything here: a run repeats for its seed.
import { SimulatedClock } from 'xstate';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import type { Connection, LogFn } from '../../actors/ports.ts';
import { createSimulatedClock, type ManualClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { createMemoryNetwork, type MemoryNetwork, type MemoryNetworkOptions } from '../../adapters/transport/memory.ts';
import { runUntil, settle } from '../../adapters/transport/memoryDriver.ts';
import type { MemorySocket } from '../../adapters/transport/memorySocket.ts';
import { closeHosts, ProtocolPeer, type ByteEnd, type SessionHarness } from './sessionHarness.ts';
import { KEY, type LogEntry, type TestHost, type TestPlayer } from './session.ts';

/** The value of a promise once it settled (undefined before); a rejection is rethrown. */
export function settledValue<T>(promise: Promise<T>): T | undefined {
  let outcome = outcomes.get(promise);
  if (outcome === undefined) {
    outcome = { done: false, ok: true, value: undefined };
    const record = outcome;
    outcomes.set(promise, record);
    promise.then(
      (value) => Object.assign(record, { done: true, ok: true, value }),
      (error: unknown) => Object.assign(record, { done: true, ok: false, value: error }),
    );
  }
  if (!outcome.done) return undefined;
  if (!outcome.ok) throw outcome.value;
  return outcome.value as T;
}
const outcomes = new WeakMap<Promise<unknown>, { done: boolean; ok: boolean; value: unknown }>();

/** A memory socket as a ProtocolPeer's byte end (reading starts at once). */
export function memoryEnd(socket: MemorySocket): ByteEnd {
  const end: ByteEnd = {
    write: (bytes) => void socket.write(bytes),
    end: () => socket.end(),
    destroy: () => socket.destroy(),
    pause: () => socket.pause(),
    onData: (handler) => void socket.on('data', handler),
    onClosed: (handler) => {
      socket.on('close', handler);
      socket.on('error', handler);
    },
  };
  socket.resume();
  return end;
}

export interface MemoryHarness extends SessionHarness {
  readonly transport: 'memory';
  readonly network: MemoryNetwork;
  /** The network's clock (players, transport timers, deliveries). */
  readonly clock: ManualClock;
}

/** The session harness over a fresh memory network (seed 1, links of latency 0 unless told otherwise). */
export function memoryHarness(options: Partial<Omit<MemoryNetworkOptions, 'clock'>> = {}): MemoryHarness {
  const clock = createSimulatedClock();
  const network = createMemoryNetwork({ clock, ...options });
  const hosts: TestHost[] = [];
  const cleanups: (() => void)[] = [];
  const connect = async <T>(promise: Promise<T>): Promise<T> =>
    runUntil(clock, network, () => settledValue(promise), { maxMs: 30_000, what: 'the connection' });

  const harness: MemoryHarness = {
    transport: 'memory',
    network,
    clock,

    async startHost(hostOptions = {}, setup = {}) {
      const logs: LogEntry[] = [];
      const log: LogFn = (e) => logs.push(e);
      const hostSessionClock = new SimulatedClock();
      const listener = network.listen('127.0.0.1:0', { log, ...(setup.limits ? { limits: setup.limits } : {}) });
      const host = new HostSession(
        { hostName: 'host', key: KEY, ...hostOptions },
        { crypto: nodeCrypto, clock: hostSessionClock, wallClock: () => hostSessionClock.now(), log },
      );
      const connections: Connection[] = [];
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
      const notices: TestHost['notices'] = [];
      host.on((n) => notices.push(n));
      const h: TestHost = {
        host,
        listener,
        port: listener.port,
        notices,
        logs,
        clock: hostSessionClock,
        connections,
        close: async () => {
          host.stop('test over');
          await listener.close('test over');
          await settle();
        },
      };
      hosts.push(h);
      return h;
    },

    async joinPlayer(h, name, playerOptions = {}) {
      const logs: LogEntry[] = [];
      const log: LogFn = (e) => logs.push(e);
      const conn = await connect(network.connect({ host: h.listener.host, port: h.port }, { log }));
      const player = new PlayerSession({ name, key: KEY, ...playerOptions }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log });
      const notices: PlayerNotice[] = [];
      player.on((n) => notices.push(n));
      player.connect(conn);
      const p: TestPlayer = {
        player,
        notices,
        logs,
        games: () => notices.flatMap((n) => (n.type === 'game' ? [n.message] : [])),
        ended: () => notices.find((n): n is PlayerNotice & { type: 'ended' } => n.type === 'ended'),
      };
      return p;
    },

    async rawPeer(h, localAddress = '127.0.0.1') {
      const socket = await connect(network.connectRaw({ host: h.listener.host, port: h.port }, { localAddress }));
      cleanups.push(() => socket.destroy());
      return new ProtocolPeer(memoryEnd(socket), harness.waitFor);
    },

    waitFor: (probe, ms = 5000, what = 'condition') =>
      runUntil(clock, network, probe, { maxMs: ms, idleStepMs: 5, what }),

    async tick(ms = 20) {
      const end = clock.now() + ms;
      await runUntil(clock, network, () => clock.now() >= end, { maxMs: ms + 1, idleStepMs: 5, what: 'the tick' });
    },

    closeAll: () => closeHosts(hosts, cleanups),
  };
  return harness;
}
