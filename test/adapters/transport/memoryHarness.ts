// The harness of the in-memory transport's tests (memory.test.ts, memoryLimits.test.ts): a network on a simulated
// clock with one listener at 10.0.0.1:4000 that records what each accepted connection reads, a client end, a raw byte
// end, and the value of a promise once it settled (read while the tests move the clock, never awaited in real time).
import type { Connection, LogFn, TransportLimits } from '../../../actors/ports.ts';
import { createSimulatedClock, type ManualClock } from '../../../adapters/clock.ts';
import { createMemoryNetwork, type MemoryNetwork, type MemoryNetworkOptions } from '../../../adapters/transport/memory.ts';
import { runUntil } from '../../../adapters/transport/memoryDriver.ts';
import { FrameDecoder, type Frame } from '../../../protocol/frame.ts';

export type LogEntry = { msg: string; [k: string]: unknown };

export interface Record {
  conn: Connection;
  frames: Frame[];
  closed: string[];
  violations: string[];
}

export function setup(options: Partial<MemoryNetworkOptions> = {}, listen: { limits?: Partial<TransportLimits>; join?: boolean; owner?: (r: Record) => void } = {}) {
  const clock = createSimulatedClock();
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push(e);
  const net = createMemoryNetwork({ clock, log, ...options });
  const listener = net.listen('10.0.0.1:4000', listen.limits ? { limits: listen.limits } : {});
  const records: Record[] = [];
  listener.onConnection((conn) => {
    const r: Record = { conn, frames: [], closed: [], violations: [] };
    records.push(r);
    conn.onFrame((f) => r.frames.push(f));
    conn.onClose((reason) => r.closed.push(reason));
    if (listen.join) conn.markJoined();
    listen.owner?.(r);
  });
  const run = <T>(probe: () => T | undefined | false, what?: string) => runUntil(clock, net, probe, { what: what ?? 'a condition' });
  return { clock, net, listener, records, logs, run };
}

export async function client(net: MemoryNetwork, clock: ManualClock, options: Parameters<MemoryNetwork['connect']>[1] = {}) {
  const pending = net.connect('10.0.0.1:4000', options);
  const conn = await runUntil(clock, net, () => settledValue(pending), { what: 'connect' });
  const frames: Frame[] = [];
  const closed: string[] = [];
  conn.onFrame((f) => frames.push(f));
  conn.onClose((r) => closed.push(r));
  return { conn, frames, closed };
}

/** A raw byte end that records what it reads. */
export async function raw(net: MemoryNetwork, clock: ManualClock, localAddress = '10.0.0.9') {
  const pending = net.connectRaw('10.0.0.1:4000', { localAddress });
  const socket = await runUntil(clock, net, () => settledValue(pending), { what: 'raw connect' });
  const received: Uint8Array[] = [];
  const events: string[] = [];
  socket.on('data', (chunk) => received.push(chunk));
  socket.on('end', () => events.push('end'));
  socket.on('error', (reason) => events.push(`error:${reason}`));
  socket.on('close', () => events.push('close'));
  socket.resume();
  return { socket, received, events, frames: () => new FrameDecoder().push(Buffer.concat(received)) };
}

/** The value of a promise once it settled (undefined before); a rejection is rethrown. */
const outcomes = new WeakMap<Promise<unknown>, { ok: boolean; value: unknown }>();
export function settledValue<T>(promise: Promise<T>): T | undefined {
  if (!outcomes.has(promise)) {
    outcomes.set(promise, undefined as never);
    promise.then(
      (value) => outcomes.set(promise, { ok: true, value }),
      (error: unknown) => outcomes.set(promise, { ok: false, value: error }),
    );
  }
  const outcome = outcomes.get(promise);
  if (outcome === undefined) return undefined;
  if (!outcome.ok) throw outcome.value;
  return outcome.value as T;
}
