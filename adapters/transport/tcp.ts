// The TCP transport (DESIGN.md "Adapters: Transport"; spec wire-protocol.txt "Handshake", last paragraph):
// listenTcp for the host, with the listener caps (64 connections, 16 per address, 32 not yet joined) applied
// before anything is read, and connectTcp for a player. Both hand out the Connection port of actors/ports.ts.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import type { Clock, Connection, Listener, LogFn, TransportLimits } from '../../actors/ports.ts';
import { realClock } from '../clock.ts';
import { addressKey } from './addressKey.ts';
import { Admission } from './admission.ts';
import { nextConnectionId } from './connection.ts';
import { TcpConnection } from './tcpConnection.ts';
import { resolveLimits } from './limits.ts';

export { DEFAULT_LIMITS, resolveLimits } from './limits.ts';
export { TcpConnection } from './tcpConnection.ts';

const noLog: LogFn = () => {};

/**
 * The high-water mark of the host's sockets (Node's default is 16 KiB; a player's stay at it: it writes little). A
 * connection coalesces the small frames of one turn while they stay below it (connection.ts `write`), so it sets how
 * many frames one write syscall carries: a busy host's relay made one 16 KiB write per ~125 Actions per receiver,
 * and on loopback each write costs the sender the receiver's TCP path too. 64 KiB, the loopback MTU and libuv's read
 * size, cut the host's CPU per relayed Action by about 8 % (docs/DECISIONS.md "Transport: the host's sockets have a
 * 64 KiB high-water mark"). The queue bound (maxQueuedBytes) and the write deadline are unchanged.
 */
export const HOST_SOCKET_HIGH_WATER_MARK = 64 * 1024;

/** Options of listenTcp. `port` 0 picks a free port (Listener.port tells which). */
export interface ListenOptions {
  host: string;
  port: number;
  limits?: Partial<TransportLimits>;
  clock?: Clock;
  log?: LogFn;
}

/** Options of connectTcp. `localAddress` binds our end (tests connect from 127.0.0.2 …). */
export interface ConnectOptions {
  host: string;
  port: number;
  localAddress?: string;
  limits?: Partial<TransportLimits>;
  clock?: Clock;
  log?: LogFn;
}

/**
 * Listens on host:port. Resolves once bound; rejects when the port cannot be opened (EADDRINUSE …).
 * A connection over a cap is destroyed at once, unread, with a logged reason and never reaches onConnection.
 */
export async function listenTcp(options: ListenOptions): Promise<Listener> {
  const limits = resolveLimits(options.limits);
  const clock = options.clock ?? realClock;
  const log = options.log ?? noLog;
  const admission = new Admission(limits);
  const open = new Set<TcpConnection>();
  const waiting: TcpConnection[] = [];
  let handler: ((conn: Connection) => void) | undefined;
  let closing: Promise<void> | undefined;
  let closeReason = 'listener-closed';

  const server = createServer({ pauseOnConnect: true, noDelay: true, highWaterMark: HOST_SOCKET_HIGH_WATER_MARK });

  const refuse = (socket: Socket, id: number, address: string, reason: string): void => {
    socket.on('error', () => {});
    socket.destroy();
    log({ msg: 'connection closed', id, address, reason });
  };

  server.on('connection', (socket: Socket) => {
    const id = nextConnectionId();
    const remote = socket.remoteAddress;
    if (remote === undefined) {
      refuse(socket, id, 'unknown', 'peer-closed');
      return;
    }
    if (closing !== undefined) {
      refuse(socket, id, remote, closeReason);
      return;
    }
    const key = addressKey(remote);
    const refusal = admission.admit(id, key);
    if (refusal !== undefined) {
      refuse(socket, id, remote, refusal);
      return;
    }
    const conn = new TcpConnection({
      id,
      socket,
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
      },
    });
    open.add(conn);
    log({ msg: 'connection opened', id, address: remote, key });
    if (handler !== undefined) deliver(conn);
    else waiting.push(conn);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) => log({ msg: 'listener error', code: error.code ?? 'unknown' }));
  const bound = server.address() as AddressInfo;
  log({ msg: 'listening', host: bound.address, port: bound.port });

  const deliver = (conn: Connection): void => {
    try {
      handler?.(conn);
    } catch (error) {
      log({ msg: 'handler failed', id: conn.id, handler: 'connection', error: String(error) });
      conn.close('internal-error');
    }
  };

  return {
    host: bound.address,
    port: bound.port,
    onConnection(next) {
      handler = next;
      for (const conn of waiting.splice(0)) if (conn.closeReason === undefined) deliver(conn);
    },
    close(reason) {
      if (closing !== undefined) return closing;
      closeReason = reason;
      // server.close calls back once every connection is gone; each one ends gracefully (see TcpConnection).
      closing = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const conn of [...open]) conn.close(reason);
      return closing;
    },
  };
}

/**
 * Connects to host:port. Resolves with the connection once TCP is up; rejects when it cannot be made
 * (refused, unreachable, or not up within limits.writeTimeoutMs on the injected clock). The client side has
 * no pending or per-address caps and no rate limits, and its decoder starts at MAX_FRAME_LENGTH.
 */
export function connectTcp(options: ConnectOptions): Promise<Connection> {
  const limits = resolveLimits(options.limits);
  const clock = options.clock ?? realClock;
  const log = options.log ?? noLog;
  return new Promise<Connection>((resolve, reject) => {
    const socket = connect({
      host: options.host,
      port: options.port,
      noDelay: true,
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    });
    const timer = clock.setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect to ${options.host}:${options.port} timed out`));
    }, limits.writeTimeoutMs);
    const failed = (error: Error): void => {
      clock.clearTimeout(timer);
      reject(error);
    };
    socket.once('error', failed);
    socket.once('connect', () => {
      clock.clearTimeout(timer);
      socket.off('error', failed);
      const id = nextConnectionId();
      const remote = socket.remoteAddress ?? options.host;
      const conn = new TcpConnection({
        id,
        socket,
        remoteAddress: remote,
        addressKey: addressKey(remote),
        limits,
        clock,
        log,
        role: 'client',
      });
      log({ msg: 'connection opened', id, address: remote });
      resolve(conn);
    });
  });
}
