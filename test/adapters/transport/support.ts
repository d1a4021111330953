// Helpers for the transport tests over real loopback TCP: a host listener that records what happens, raw
// client sockets for hostile peers, frame builders, and a bounded wait for real events (never for time).
import { connect, type Socket } from 'node:net';
import type { Clock, Connection, LogFn, TransportLimits } from '../../../actors/ports.ts';
import { listenTcp, type TcpConnection } from '../../../adapters/transport/tcp.ts';
import { encodeFrame, encodeUnsealedFrame, HEADER_BYTES, type Frame } from '../../../protocol/frame.ts';

/** Waits until `check()` holds, polling; fails after `ms` (a safety net, not a timing assertion). */
export async function waitFor(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A frame (prefix included) whose length field is `length` (≥ 12), kind `kind`, zero body. */
export function frameOfLength(length: number, kind = 2): Uint8Array {
  return encodeUnsealedFrame(kind, 65535, new Uint8Array(length - HEADER_BYTES));
}

/** A frame with a numbered body, so order and content can be checked. */
export function numberedFrame(n: number, bodyBytes = 8, kind = 30): Uint8Array {
  const body = new Uint8Array(bodyBytes);
  new DataView(body.buffer).setUint32(0, n);
  return encodeFrame({ version: 1, kind, sender: 1, counter: BigInt(n) }, body);
}

/** Just a length prefix. */
export function prefix(length: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, length >>> 0);
  return out;
}

/** What the host side saw of one connection. */
export interface HostRecord {
  conn: TcpConnection;
  frames: Frame[];
  closed: string[];
  violations: string[];
}

/** A listener on 127.0.0.1 (or `host`) recording every connection. */
export async function startHost(
  options: {
    limits?: Partial<TransportLimits>;
    clock?: Clock;
    host?: string;
    /** Called for every new connection after recording starts (e.g. markJoined, onViolation). */
    setup?: (record: HostRecord) => void;
  } = {},
) {
  const logs: { msg: string; [k: string]: unknown }[] = [];
  const log: LogFn = (entry) => logs.push(entry);
  const listener = await listenTcp({
    host: options.host ?? '127.0.0.1',
    port: 0,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    log,
  });
  const records: HostRecord[] = [];
  listener.onConnection((conn: Connection) => {
    const record: HostRecord = { conn: conn as TcpConnection, frames: [], closed: [], violations: [] };
    records.push(record);
    conn.onFrame((frame) => record.frames.push(frame));
    conn.onClose((reason) => record.closed.push(reason));
    options.setup?.(record);
  });
  const refusals = (reason: string) => logs.filter((e) => e.msg === 'connection closed' && e.reason === reason).length;
  return { listener, records, logs, refusals };
}

/** A raw client socket (a hostile or scripted peer); `closed` resolves when its socket has closed. */
export interface RawClient {
  socket: Socket;
  received: Buffer[];
  readonly isClosed: boolean;
  closed: Promise<void>;
}

export function rawClient(port: number, options: { host?: string; localAddress?: string } = {}): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: options.host ?? '127.0.0.1',
      port,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    const received: Buffer[] = [];
    let isClosed = false;
    const closed = new Promise<void>((done) =>
      socket.on('close', () => {
        isClosed = true;
        done();
      }),
    );
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.once('connect', () =>
      resolve({
        socket,
        received,
        get isClosed() {
          return isClosed;
        },
        closed,
      }),
    );
    socket.once('error', reject);
  });
}

/** The body's leading u32 of each frame (see numberedFrame). */
export function numbers(frames: Frame[]): number[] {
  return frames.map((f) => new DataView(f.body.buffer, f.body.byteOffset, f.body.length).getUint32(0));
}
