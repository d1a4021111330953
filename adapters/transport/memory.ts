// The in-memory transport (DESIGN.md "Adapters: Transport": "the same sessions run over TCP, Steam, or the
// simulator's in-memory network"): createMemoryNetwork gives listen() and connect() with exactly the ports of
// actors/ports.ts and the limits of the TCP transport (spec wire-protocol.txt "Frame", "Handshake" last paragraph;
// lockstep.md "Limits"), reusing its pieces: limits.ts, admission.ts, addressKey.ts, rateLimiter.ts, writeQueue.ts
// and the protocol's FrameDecoder. The bytes travel through memorySocket.ts: asynchronously on the injected clock,
// per-link latency, seeded jitter, bandwidth, a window, held links and cuts. Deterministic for a seed and a clock.
import type { Clock, Connection, Listener, LogFn, TransportLimits } from '../../actors/ports.ts';
import { FramedConnection, type FramedConnectionOptions, type StreamTraits } from './connection.ts';
import { addressKey } from './addressKey.ts';
import { Admission } from './admission.ts';
import { resolveLimits } from './limits.ts';
import {
  DEFAULT_LINK,
  Fabric,
  resolveConditions,
  type LinkConditions,
  type MemoryLink,
  type MemorySocket,
} from './memorySocket.ts';

export { DEFAULT_LINK, MemorySocket, type LinkConditions, type MemoryLink, type DirectionStats } from './memorySocket.ts';

const noLog: LogFn = () => {};

/** Where a listener is: `"host:port"` (`"[::1]:4000"` for IPv6) or the parts. Port 0 picks a free port. */
export type MemoryAddress = string | { host: string; port: number };

export interface MemoryNetworkOptions {
  /** Every delivery and every transport timer runs on this clock (a SimulatedClock in tests and the simulator). */
  clock: Clock;
  /** The seed of every link's jitter (default 1). */
  seed?: number;
  /** The transport's log lines, unless a listen/connect call gives its own. */
  log?: LogFn;
  /** Limits of every listener and connection (the spec's numbers by default; a call may override). */
  limits?: Partial<TransportLimits>;
  /** Conditions of every new link (route() overrides them per pair of hosts). */
  link?: Partial<LinkConditions>;
}

export interface MemoryListenOptions {
  limits?: Partial<TransportLimits>;
  log?: LogFn;
}

export interface MemoryConnectOptions {
  /** Our end's address, as the listener sees it (default 127.0.0.1, as TCP on loopback); it keys the per-address cap. */
  localAddress?: string;
  limits?: Partial<TransportLimits>;
  log?: LogFn;
}

/** A listener of the memory network: the Listener port plus its `"host:port"`. */
export interface MemoryListener extends Listener {
  readonly address: string;
}

/** See createMemoryNetwork. */
export interface MemoryNetwork {
  readonly clock: Clock;
  readonly seed: number;
  /** Binds host:port at once (throws EADDRINUSE when taken). Connections over a cap are closed unread, as TCP. */
  listen(address: MemoryAddress, options?: MemoryListenOptions): MemoryListener;
  /**
   * Connects after one round trip on the clock; rejects `ECONNREFUSED` when nothing listens there, or after
   * limits.writeTimeoutMs when the link is held. Our end has no caps and no rate limits, as connectTcp.
   */
  connect(address: MemoryAddress, options?: MemoryConnectOptions): Promise<MemoryConnection>;
  /** A raw byte end (hostile peers, probes): resolves once connected; it starts paused (resume() to read). */
  connectRaw(address: MemoryAddress, options?: { localAddress?: string }): Promise<MemorySocket>;
  /** Conditions of the links made from now on between hosts `a` and `b` (both directions). */
  route(a: string, b: string, changes: Partial<LinkConditions>): void;
  /** The link under a connection or raw end (undefined once both its ends closed). */
  linkOf(end: Connection | MemorySocket): MemoryLink | undefined;
  /** Cuts the link under `end`: both ends close at once with `reason` (default 'reset'). False if none. */
  cut(end: Connection | MemorySocket, reason?: string): boolean;
  /** Every link with an end still open, oldest first. */
  links(): MemoryLink[];
  /** When the next delivery is due on the clock (undefined: nothing in flight). */
  nextEventAt(): number | undefined;
  /** Deliveries scheduled and not yet made. */
  readonly pendingEvents: number;
}

/** How a MemoryConnection is set up (by listen / connect). */
export interface MemoryConnectionOptions extends FramedConnectionOptions {
  socket: MemorySocket;
}

/** A memory socket's traits: no coalescing (nothing to save), its error is the reason, the linger on the clock. */
function memoryTraits(clock: Clock): StreamTraits {
  return {
    errorReason: (reason) => ({ reason: String(reason) }),
    linger: (destroy, ms) => {
      const timer = clock.setTimeout(destroy, ms);
      return () => clock.clearTimeout(timer);
    },
  };
}

/**
 * One framed connection over a MemorySocket: TCP's FramedConnection (the length bounds before allocation, 4096
 * until joined, 1000 frames and 1 MiB per second on an accepted connection, the write guard, `flood` / `malformed`
 * through onViolation, the first close reason wins, onClose once), with every timer on the injected clock.
 */
export class MemoryConnection extends FramedConnection {
  /** The byte end underneath (the simulator finds the link through it). */
  readonly socket: MemorySocket;

  constructor(options: MemoryConnectionOptions) {
    super(options, options.socket, memoryTraits(options.clock));
    this.socket = options.socket;
  }
}

/** Splits `"host:port"` / `"[v6]:port"`; throws TypeError for anything else (our own code's mistake). */
export function parseMemoryAddress(address: MemoryAddress): { host: string; port: number } {
  let host: string;
  let portText: string;
  if (typeof address !== 'string') {
    host = address.host;
    portText = String(address.port);
  } else {
    const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(address);
    if (!match) throw new TypeError(`not a host:port address: ${JSON.stringify(address)}`);
    host = match[1] ?? match[2]!;
    portText = match[3]!;
  }
  const port = Number(portText);
  if (host === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`not a host:port address: ${JSON.stringify(address)}`);
  }
  return { host, port };
}

function addressText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** First port handed out for `port: 0` (then counting up, deterministically). */
const FIRST_EPHEMERAL_PORT = 40_000;

interface BoundListener {
  accept(server: MemorySocket): void;
}

/**
 * An in-memory network: listen() and connect() give the Listener and Connection ports over links delivered on
 * `options.clock`. Nothing here reads the real clock or real randomness: the same seed, the same calls and the same
 * clock steps give the same deliveries at the same times. On a SimulatedClock nothing moves until the clock does
 * (even a link with latency 0 delivers at the next increment, `increment(0)` included); the clock jumps, so step it
 * no further than the resolution you care about (nextEventAt() tells when the next delivery is due).
 */
export function createMemoryNetwork(options: MemoryNetworkOptions): MemoryNetwork {
  const clock = options.clock;
  const netLog = options.log ?? noLog;
  const seed = (options.seed ?? 1) >>> 0;
  const fabric = new Fabric(clock, seed, netLog);
  const baseLimits = options.limits ?? {};
  resolveLimits(baseLimits);
  const baseLink = resolveConditions(DEFAULT_LINK, options.link ?? {});
  const routes = new Map<string, LinkConditions>();
  const listeners = new Map<string, BoundListener>();
  const connections = new Map<number, MemoryConnection>();
  let lastId = 0;
  let nextPort = FIRST_EPHEMERAL_PORT;

  const routeKey = (a: string, b: string): string => (a < b ? `${a}\n${b}` : `${b}\n${a}`);
  const conditionsFor = (a: string, b: string): LinkConditions => routes.get(routeKey(a, b)) ?? baseLink;
  const limitsWith = (overrides: Partial<TransportLimits> | undefined): TransportLimits =>
    resolveLimits({ ...baseLimits, ...overrides });

  const freePort = (host: string): number => {
    for (;;) {
      const port = nextPort;
      nextPort = nextPort >= 65535 ? FIRST_EPHEMERAL_PORT : nextPort + 1;
      if (!listeners.has(addressText(host, port))) return port;
    }
  };

  /** Opens a link to host:port; resolves with the client end once the SYN-ACK is in. */
  const open = (
    address: MemoryAddress,
    localAddress: string,
    timeoutMs: number,
  ): Promise<{ socket: MemorySocket; host: string; port: number }> => {
    const { host, port } = parseMemoryAddress(address);
    const target = addressText(host, port);
    const conditions = conditionsFor(localAddress, host);
    const link = fabric.pair(localAddress, host, conditions, conditions);
    const server = link.server;
    server.onSyn = () => {
      const bound = listeners.get(target);
      if (bound === undefined) {
        fabric.refuse(server);
        return;
      }
      fabric.accept(server);
      bound.accept(server);
    };
    return new Promise((resolve, reject) => {
      const timer = clock.setTimeout(() => {
        link.client.onConnect = undefined;
        link.cut('reset');
        reject(Object.assign(new Error(`connect to ${target} timed out`), { code: 'ETIMEDOUT' }));
      }, timeoutMs);
      link.client.onConnect = (outcome) => {
        clock.clearTimeout(timer);
        if (outcome === 'ok') resolve({ socket: link.client, host, port });
        else reject(Object.assign(new Error(`connect ECONNREFUSED ${target}`), { code: 'ECONNREFUSED' }));
      };
    });
  };

  const socketOf = (end: Connection | MemorySocket): MemorySocket | undefined => {
    if (end instanceof MemoryConnection) return end.socket;
    if ('localAddress' in end && 'breakWith' in end) return end;
    return connections.get(end.id)?.socket;
  };

  return {
    clock,
    seed,

    listen(address, listenOptions = {}) {
      const limits = limitsWith(listenOptions.limits);
      const log = listenOptions.log ?? netLog;
      const parsed = parseMemoryAddress(address);
      const host = parsed.host;
      const port = parsed.port === 0 ? freePort(host) : parsed.port;
      const bound = addressText(host, port);
      if (listeners.has(bound)) {
        throw Object.assign(new Error(`listen EADDRINUSE: address already in use ${bound}`), { code: 'EADDRINUSE' });
      }
      const admission = new Admission(limits);
      const open = new Set<MemoryConnection>();
      const waiting: MemoryConnection[] = [];
      let handler: ((conn: Connection) => void) | undefined;
      let closing: Promise<void> | undefined;
      let closeReason = 'listener-closed';

      const deliver = (conn: Connection): void => {
        try {
          handler?.(conn);
        } catch (error) {
          log({ msg: 'handler failed', id: conn.id, handler: 'connection', error: String(error) });
          conn.close('internal-error');
        }
      };

      listeners.set(bound, {
        accept(server) {
          const id = ++lastId;
          const remote = server.remoteAddress;
          const refuse = (reason: string): void => {
            server.destroy();
            log({ msg: 'connection closed', id, address: remote, reason });
          };
          if (closing !== undefined) {
            refuse(closeReason);
            return;
          }
          const key = addressKey(remote);
          const refusal = admission.admit(id, key);
          if (refusal !== undefined) {
            refuse(refusal);
            return;
          }
          const conn = new MemoryConnection({
            id,
            socket: server,
            remoteAddress: remote,
            addressKey: key,
            limits,
            clock,
            log,
            role: 'host',
            onJoined: () => admission.joined(id),
            onGone: () => {
              admission.release(id);
              open.delete(conn);
              connections.delete(id);
            },
          });
          open.add(conn);
          connections.set(id, conn);
          log({ msg: 'connection opened', id, address: remote, key });
          if (handler !== undefined) deliver(conn);
          else waiting.push(conn);
        },
      });
      log({ msg: 'listening', host, port });

      return {
        host,
        port,
        address: bound,
        onConnection(next) {
          handler = next;
          for (const conn of waiting.splice(0)) if (conn.closeReason === undefined) deliver(conn);
        },
        close(reason) {
          if (closing !== undefined) return closing;
          closeReason = reason;
          if (listeners.get(bound) !== undefined) listeners.delete(bound);
          // Resolves once every connection has closed (its reason recorded); the FINs travel on the clock after.
          for (const conn of [...open]) conn.close(reason);
          closing = Promise.resolve();
          return closing;
        },
      };
    },

    async connect(address, connectOptions = {}) {
      const limits = limitsWith(connectOptions.limits);
      const log = connectOptions.log ?? netLog;
      const local = connectOptions.localAddress ?? '127.0.0.1';
      const { socket, host } = await open(address, local, limits.writeTimeoutMs);
      const id = ++lastId;
      const conn = new MemoryConnection({
        id,
        socket,
        remoteAddress: host,
        addressKey: addressKey(host),
        limits,
        clock,
        log,
        role: 'client',
        onGone: () => connections.delete(id),
      });
      connections.set(id, conn);
      log({ msg: 'connection opened', id, address: host });
      return conn;
    },

    async connectRaw(address, rawOptions = {}) {
      const limits = limitsWith(undefined);
      const { socket } = await open(address, rawOptions.localAddress ?? '127.0.0.1', limits.writeTimeoutMs);
      return socket;
    },

    route(a, b, changes) {
      routes.set(routeKey(a, b), resolveConditions(conditionsFor(a, b), changes));
    },

    linkOf(end) {
      const socket = socketOf(end);
      return socket === undefined ? undefined : fabric.linkOf(socket);
    },

    cut(end, reason = 'reset') {
      const socket = socketOf(end);
      const link = socket === undefined ? undefined : fabric.linkOf(socket);
      if (link === undefined || link.cutReason !== undefined) return false;
      link.cut(reason);
      return true;
    },

    links: () => fabric.links(),
    nextEventAt: () => fabric.events.nextAt(),
    get pendingEvents() {
      return fabric.events.size;
    },
  };
}
