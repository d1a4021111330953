// The in-memory transport (adapters/transport/memory.ts) against the same port contract and limits as TCP
// (actors/ports.ts; spec wire-protocol.txt "Frame", "Handshake"; lockstep.md "Limits"), and its own steering:
// deliveries on a simulated clock after the link's latency, seeded jitter with order kept, bandwidth, held links,
// cuts, and runs that repeat exactly for a seed. No real time anywhere: the clock moves only when a test moves it.
import { describe, expect, it } from 'vitest';
import type { Connection, LogFn, TransportLimits } from '../../../actors/ports.ts';
import { createSimulatedClock, type ManualClock } from '../../../adapters/clock.ts';
import {
  createMemoryNetwork,
  parseMemoryAddress,
  type MemoryNetwork,
  type MemoryNetworkOptions,
} from '../../../adapters/transport/memory.ts';
import { advanceBy, runUntil, settle } from '../../../adapters/transport/memoryDriver.ts';
import { FrameDecoder, type Frame } from '../../../protocol/frame.ts';
import { frameOfLength, numberedFrame, numbers, prefix } from './support.ts';

type LogEntry = { msg: string; [k: string]: unknown };

interface Record {
  conn: Connection;
  frames: Frame[];
  closed: string[];
  violations: string[];
}

function setup(options: Partial<MemoryNetworkOptions> = {}, listen: { limits?: Partial<TransportLimits>; join?: boolean; owner?: (r: Record) => void } = {}) {
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

async function client(net: MemoryNetwork, clock: ManualClock, options: Parameters<MemoryNetwork['connect']>[1] = {}) {
  const pending = net.connect('10.0.0.1:4000', options);
  const conn = await runUntil(clock, net, () => settledValue(pending), { what: 'connect' });
  const frames: Frame[] = [];
  const closed: string[] = [];
  conn.onFrame((f) => frames.push(f));
  conn.onClose((r) => closed.push(r));
  return { conn, frames, closed };
}

/** A raw byte end that records what it reads. */
async function raw(net: MemoryNetwork, clock: ManualClock, localAddress = '10.0.0.9') {
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
function settledValue<T>(promise: Promise<T>): T | undefined {
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

describe('memory network: the Connection and Listener ports', () => {
  it('carries frames both ways in order; ids fresh from 1; addresses as seen, with the cap key', async () => {
    const { clock, net, listener, records, run } = setup({}, { join: true });
    expect(listener).toMatchObject({ host: '10.0.0.1', port: 4000, address: '10.0.0.1:4000' });
    const c = await client(net, clock, { localAddress: '::ffff:10.0.0.7' });
    await run(() => records.length === 1);
    for (let i = 1; i <= 50; i++) c.conn.write(numberedFrame(i));
    await run(() => records[0]!.frames.length === 50);
    expect(numbers(records[0]!.frames)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (let i = 1; i <= 50; i++) records[0]!.conn.write(numberedFrame(i, 2000));
    await run(() => c.frames.length === 50);
    expect(numbers(c.frames)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(records[0]!.conn.remoteAddress).toBe('::ffff:10.0.0.7');
    expect(records[0]!.conn.addressKey).toBe('10.0.0.7');
    expect(c.conn.remoteAddress).toBe('10.0.0.1');
    expect([c.conn.id, records[0]!.conn.id].sort()).toEqual([1, 2]);
  });

  it('delivers after the link latency on the clock, never before, never inside write()', async () => {
    const { clock, net, records, run } = setup({ link: { latencyMs: 40 } }, { join: true });
    const c = await client(net, clock);
    expect(clock.now()).toBe(80); // one round trip: SYN, SYN-ACK
    await run(() => records.length === 1);
    const sentAt = clock.now();
    c.conn.write(numberedFrame(1));
    await settle();
    expect(records[0]!.frames).toHaveLength(0);
    clock.increment(39);
    await settle();
    expect(records[0]!.frames).toHaveLength(0);
    clock.increment(1);
    await settle();
    expect(records[0]!.frames).toHaveLength(1);
    expect(clock.now() - sentAt).toBe(40);
  });

  it('even latency 0 is asynchronous: delivered at the next clock step', async () => {
    const { clock, net, records, run } = setup({}, { join: true });
    const c = await client(net, clock);
    await run(() => records.length === 1);
    c.conn.write(numberedFrame(1));
    await settle();
    expect(records[0]!.frames).toHaveLength(0);
    clock.increment(0);
    await settle();
    expect(records[0]!.frames).toHaveLength(1);
  });

  it('close(reason, finalBytes): the final frame arrives, then peer-closed; first reason wins; onClose once', async () => {
    const { clock, net, records, logs, run } = setup();
    const c = await client(net, clock);
    await run(() => records.length === 1);
    const r = records[0]!;
    r.conn.close('bad-proof', frameOfLength(40, 3));
    r.conn.close('again');
    expect(r.conn.closeReason).toBe('bad-proof');
    await run(() => c.closed.length === 1);
    expect(c.frames.map((f) => f.header.kind)).toEqual([3]);
    expect(c.closed).toEqual(['peer-closed']);
    expect(r.closed).toEqual(['bad-proof']);
    expect(logs).toContainEqual({ msg: 'connection closed', id: r.conn.id, address: '127.0.0.1', reason: 'bad-proof' });
    expect(logs).toContainEqual({ msg: 'close ignored', id: r.conn.id, reason: 'again', first: 'bad-proof' });
    expect(() => r.conn.write(frameOfLength(20))).not.toThrow();
    const late: string[] = [];
    r.conn.onClose((reason) => late.push(reason));
    expect(late).toEqual(['bad-proof']);
  });

  it('holds connections until onConnection is set, and bytes until onFrame is set', async () => {
    const clock = createSimulatedClock();
    const net = createMemoryNetwork({ clock });
    const listener = net.listen('h:1');
    const pending = net.connect('h:1');
    const c = await runUntil(clock, net, () => settledValue(pending));
    c.write(frameOfLength(20));
    await advanceBy(clock, net, 10);
    const conns: Connection[] = [];
    listener.onConnection((conn) => conns.push(conn));
    expect(conns).toHaveLength(1);
    const got: Frame[] = [];
    conns[0]!.onFrame((f) => got.push(f));
    expect(got).toHaveLength(0); // handed over on a microtask, never inside onFrame
    await settle();
    expect(got).toHaveLength(1);
  });

  it('Listener.close closes every connection with its reason; connecting afterwards is refused', async () => {
    const { clock, net, listener, records, run } = setup();
    const a = await client(net, clock);
    const b = await client(net, clock);
    await run(() => records.length === 2);
    await listener.close('shutdown');
    expect(records.map((r) => r.closed)).toEqual([['shutdown'], ['shutdown']]);
    await run(() => a.closed.length === 1 && b.closed.length === 1);
    expect(a.closed).toEqual(['peer-closed']);
    const refused = net.connect('10.0.0.1:4000');
    await expect(runUntil(clock, net, () => settledValue(refused))).rejects.toThrow(/ECONNREFUSED/);
    // Every link is gone once both its ends closed: nothing left over.
    await run(() => net.links().length === 0);
    expect(net.pendingEvents).toBe(0);
  });

  it('refuses an address in use; port 0 picks a free one; bad addresses are a TypeError', () => {
    const clock = createSimulatedClock();
    const net = createMemoryNetwork({ clock });
    net.listen('h:7');
    expect(() => net.listen({ host: 'h', port: 7 })).toThrow(/EADDRINUSE/);
    const a = net.listen('h:0');
    const b = net.listen('h:0');
    expect(a.port).not.toBe(b.port);
    expect(parseMemoryAddress('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(() => parseMemoryAddress('nohost')).toThrow(TypeError);
  });

  it('a connect over a held link times out after writeTimeoutMs', async () => {
    const clock = createSimulatedClock();
    const net = createMemoryNetwork({ clock, limits: { writeTimeoutMs: 500 } });
    net.listen('h:1');
    net.route('127.0.0.1', 'h', { held: true });
    const pending = net.connect('h:1');
    let error: unknown;
    pending.catch((e: unknown) => (error = e));
    await advanceBy(clock, net, 499);
    expect(error).toBeUndefined();
    await advanceBy(clock, net, 1);
    expect(String(error)).toMatch(/timed out/);
  });
});

describe('memory network: the limits of TCP', () => {
  it('a first frame over 4096 bytes is malformed from its prefix; 4096 passes; markJoined lifts the limit', async () => {
    const { clock, net, records, logs, run } = setup();
    const c = await client(net, clock);
    c.conn.write(frameOfLength(4096));
    await run(() => records[0]?.frames.length === 1);
    records[0]!.conn.markJoined();
    c.conn.write(frameOfLength(100_000));
    await run(() => records[0]!.frames.length === 2);
    expect(records[0]!.conn.closeReason).toBeUndefined();

    const bad = await raw(net, clock);
    bad.socket.write(prefix(4097));
    await run(() => records[1]?.closed.length === 1);
    expect(records[1]!.closed).toEqual(['malformed']);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'limit exceeded', reason: 'malformed', code: 'length', length: 4097 }));
    await run(() => bad.events.includes('close'));
    expect(bad.frames()).toEqual([]);
  });

  it('junk bytes are malformed (bad version) without an owner handler: closed with that reason', async () => {
    const { clock, net, records, run } = setup();
    const bad = await raw(net, clock);
    bad.socket.write(new TextEncoder().encode('GET / HTTP/1.1\r\n\r\n'));
    await run(() => records[0]?.closed.length === 1);
    expect(records[0]!.closed).toEqual(['malformed']);
  });

  it('a violation stops delivery at once; the owner gets it; unanswered it still ends after writeTimeoutMs', async () => {
    const { clock, net, records, run } = setup({}, { owner: (r) => r.conn.onViolation((v) => r.violations.push(v)) });
    const bad = await raw(net, clock);
    bad.socket.write(Buffer.concat([Buffer.from(frameOfLength(20)), Buffer.from([0, 0, 0, 20, 9]), Buffer.alloc(19)]));
    await run(() => records[0]?.violations.length === 1);
    bad.socket.write(frameOfLength(20));
    await advanceBy(clock, net, 10);
    expect(records[0]!.frames).toHaveLength(1);
    expect(records[0]!.conn.closeReason).toBeUndefined();
    await advanceBy(clock, net, 9_990);
    expect(records[0]!.conn.closeReason).toBe('malformed');
  });

  it('more than 1000 frames in a second is a flood; the owner answers with a final frame that arrives', async () => {
    const { clock, net, records, run } = setup(
      {},
      { owner: (r) => r.conn.onViolation((v) => r.conn.close(v, frameOfLength(30, 3))) },
    );
    const bad = await raw(net, clock);
    bad.socket.write(Buffer.concat(Array.from({ length: 1500 }, () => Buffer.from(frameOfLength(12)))));
    await run(() => bad.events.includes('close'));
    expect(records[0]!.frames).toHaveLength(1000);
    expect(records[0]!.closed).toEqual(['flood']);
    expect(bad.frames().map((f) => f.header.kind)).toEqual([3]);
  });

  it('the rate refills with time: 1000 frames a second for three seconds pass', async () => {
    const { clock, net, records, run } = setup();
    const c = await client(net, clock);
    for (let s = 0; s < 3; s++) {
      for (let i = 0; i < 1000; i++) c.conn.write(frameOfLength(12));
      await advanceBy(clock, net, 1000);
    }
    await run(() => records[0]?.frames.length === 3000);
    expect(records[0]!.conn.closeReason).toBeUndefined();
  });

  it('1 MiB per second: a second largest-size burst in the same second is a flood', async () => {
    const { clock, net, records, run } = setup({}, { join: true });
    const c = await client(net, clock);
    c.conn.write(frameOfLength(1_048_576));
    c.conn.write(frameOfLength(1000));
    await run(() => records[0]?.closed.length === 1);
    expect(records[0]!.closed).toEqual(['flood']);
    expect(records[0]!.frames).toHaveLength(1);
  });

  it('caps: 16 per address key (the 17th closed unread), 32 pending, 64 in all', async () => {
    const { clock, net, records, logs, run } = setup();
    const sixteen = [];
    for (let i = 0; i < 16; i++) sixteen.push(await raw(net, clock, '10.0.0.2'));
    const seventeenth = await raw(net, clock, '10.0.0.2');
    await run(() => seventeenth.events.includes('close'));
    expect(seventeenth.events).toEqual(['end', 'close']);
    expect(records).toHaveLength(16);
    expect(logs.filter((l) => l.reason === 'too-many-from-address')).toEqual([expect.objectContaining({ address: '10.0.0.2' })]);

    // One of the sixteen goes: once the host saw it go, the address may open one again.
    sixteen[0]!.socket.destroy();
    await run(() => records[0]!.closed.length === 1);
    const again = await raw(net, clock, '10.0.0.2');
    await advanceBy(clock, net, 5);
    expect(again.events).toEqual([]);
    expect(records).toHaveLength(17);

    // 16 pending now, from 10.0.0.2; 16 more from other addresses reach 32; the 33rd is refused as pending.
    for (let i = 0; i < 16; i++) await raw(net, clock, `10.0.1.${i}`);
    const over = await raw(net, clock, '10.0.2.1');
    await run(() => over.events.includes('close'));
    expect(logs.filter((l) => l.reason === 'too-many-pending')).toHaveLength(1);

    // Joined connections leave the pending count: fill to 64 and see the 65th refused.
    for (const r of records) if (r.conn.closeReason === undefined) r.conn.markJoined();
    let n = 0;
    while (records.filter((r) => r.conn.closeReason === undefined).length < 64) {
      const peer = await raw(net, clock, `10.0.3.${n++}`);
      await advanceBy(clock, net, 1);
      const last = records.at(-1)!;
      if (last.conn.remoteAddress === peer.socket.localAddress) last.conn.markJoined();
    }
    const last = await raw(net, clock, '10.0.4.1');
    await run(() => last.events.includes('close'));
    expect(logs.filter((l) => l.reason === 'too-many-connections')).toHaveLength(1);
  });

  it('a peer that stops reading: the window fills, the queue grows, write-timeout; the queue stays bounded', async () => {
    const maxQueuedBytes = 1_100_000;
    const { clock, net, records, run } = setup({ link: { windowBytes: 200_000 } }, { limits: { writeTimeoutMs: 300, maxQueuedBytes }, join: true });
    const sleeper = await raw(net, clock);
    sleeper.socket.pause();
    await run(() => records.length === 1);
    const conn = records[0]!.conn as Connection & { queuedBytes: number };
    let highest = 0;
    for (let i = 0; i < 200 && conn.closeReason === undefined; i++) {
      conn.write(frameOfLength(20_000));
      highest = Math.max(highest, conn.queuedBytes);
      await advanceBy(clock, net, 1);
    }
    await run(() => conn.closeReason);
    expect(conn.closeReason).toBe('write-timeout');
    expect(highest).toBeGreaterThan(0);
    expect(highest).toBeLessThanOrEqual(maxQueuedBytes);
  });

  it('a full queue closes with write-timeout at once (queue-full), before the timer', async () => {
    const { clock, net, records, logs, run } = setup({ link: { windowBytes: 100_000 } }, { limits: { maxQueuedBytes: 1_100_000 }, join: true });
    const sleeper = await raw(net, clock);
    sleeper.socket.pause();
    await run(() => records.length === 1);
    for (let i = 0; i < 30; i++) records[0]!.conn.write(frameOfLength(100_000));
    expect(records[0]!.conn.closeReason).toBe('write-timeout');
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'connection closed', reason: 'write-timeout', cause: 'queue-full' }));
  });

  it('a throwing owner handler closes only that connection (internal-error)', async () => {
    const { clock, net, records, logs, run } = setup();
    const bad = await client(net, clock);
    const good = await client(net, clock);
    await run(() => records.length === 2);
    records[0]!.conn.onFrame(() => {
      throw new Error('owner bug');
    });
    bad.conn.write(frameOfLength(20));
    await run(() => logs.some((l) => l.msg === 'handler failed'));
    good.conn.write(frameOfLength(20));
    await run(() => records[1]!.frames.length === 1);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'handler failed', handler: 'frame' }));
  });
});

describe('memory network: links the simulator steers', () => {
  it('a cut closes both ends at once with its reason; nothing in flight arrives', async () => {
    const { clock, net, records, run } = setup({ link: { latencyMs: 50 } }, { join: true });
    const c = await client(net, clock);
    await run(() => records.length === 1);
    c.conn.write(numberedFrame(1));
    await advanceBy(clock, net, 10);
    expect(net.cut(c.conn)).toBe(true);
    expect(c.closed).toEqual(['reset']);
    expect(records[0]!.closed).toEqual(['reset']);
    await advanceBy(clock, net, 100);
    expect(records[0]!.frames).toEqual([]);
    expect(net.cut(c.conn)).toBe(false);

    const d = await client(net, clock);
    await run(() => records.length === 2);
    net.linkOf(records[1]!.conn)!.cut('timeout');
    expect(d.closed).toEqual(['timeout']);
  });

  it('a destroyed peer: the other end sees peer-closed; RST when unread bytes were thrown away', async () => {
    const { clock, net, records, run } = setup({}, { join: true });
    const a = await raw(net, clock);
    await run(() => records.length === 1);
    a.socket.destroy();
    await run(() => records[0]!.closed.length === 1);
    expect(records[0]!.closed).toEqual(['peer-closed']);

    const b = await raw(net, clock);
    await run(() => records.length === 2);
    b.socket.pause();
    records[1]!.conn.write(numberedFrame(1));
    await advanceBy(clock, net, 1);
    expect(b.socket.unreadBytes).toBeGreaterThan(0);
    b.socket.destroy();
    await run(() => records[1]!.closed.length === 1);
    expect(records[1]!.closed).toEqual(['reset']);
  });

  it('jitter keeps order; bandwidth spaces the bytes; both as the numbers say', async () => {
    const { clock, net, records, run } = setup({ link: { latencyMs: 20, jitterMs: 30 } }, { join: true });
    const c = await client(net, clock);
    await run(() => records.length === 1);
    const at: number[] = [];
    records[0]!.conn.onFrame((f) => {
      records[0]!.frames.push(f);
      at.push(clock.now());
    });
    for (let i = 1; i <= 200; i++) {
      c.conn.write(numberedFrame(i));
      await advanceBy(clock, net, 1);
    }
    await run(() => records[0]!.frames.length === 200);
    expect(numbers(records[0]!.frames)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(at.map((t, i) => Math.round(t - i))).size).toBeGreaterThan(5); // the delays differ

    // 100 kB at 10 kB/s: the last byte arrives 10 s after the first was sent (plus the latency).
    const slow = setup({ link: { bytesPerSecond: 10_000, latencyMs: 5 } }, { join: true });
    const s = await client(slow.net, slow.clock);
    await slow.run(() => slow.records.length === 1);
    const start = slow.clock.now();
    s.conn.write(frameOfLength(100_000 - 4));
    await slow.run(() => slow.records[0]!.frames.length === 1);
    expect(slow.clock.now() - start).toBe(10_005);
  });

  it('a held link keeps what is sent and delivers it in order once released', async () => {
    const { clock, net, records, run } = setup({ link: { latencyMs: 10 } }, { join: true });
    const c = await client(net, clock);
    await run(() => records.length === 1);
    const link = net.linkOf(c.conn)!;
    c.conn.write(numberedFrame(1));
    await advanceBy(clock, net, 5);
    link.set({ held: true });
    c.conn.write(numberedFrame(2));
    await advanceBy(clock, net, 1000);
    expect(records[0]!.frames).toEqual([]);
    link.set({ held: false });
    await advanceBy(clock, net, 9);
    expect(records[0]!.frames).toEqual([]);
    await advanceBy(clock, net, 1);
    expect(numbers(records[0]!.frames)).toEqual([1, 2]);
    expect(link.stats().up).toMatchObject({ queued: 0, inWindow: 0 });
  });

  it('the same seed and the same steps give the same deliveries at the same times; another seed differs', async () => {
    const trace = async (seed: number) => {
      const { clock, net, records, run } = setup({ seed, link: { latencyMs: 5, jitterMs: 40 } }, { join: true });
      const c = await client(net, clock);
      await run(() => records.length === 1);
      const seen: string[] = [];
      records[0]!.conn.onFrame((f) => seen.push(`${clock.now().toFixed(3)}:${numbers([f])[0]}`));
      c.conn.onFrame((f) => seen.push(`back ${clock.now().toFixed(3)}:${numbers([f])[0]}`));
      for (let i = 1; i <= 60; i++) {
        c.conn.write(numberedFrame(i));
        if (i % 3 === 0) records[0]!.conn.write(numberedFrame(i));
        await advanceBy(clock, net, 2);
      }
      await advanceBy(clock, net, 100);
      return seen;
    };
    const a = await trace(7);
    const b = await trace(7);
    const c = await trace(8);
    expect(a).toHaveLength(80);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });
});
