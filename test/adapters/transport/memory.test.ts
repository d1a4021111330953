// The in-memory transport (adapters/transport/memory.ts) against the same port contract and limits as TCP
// (actors/ports.ts; spec wire-protocol.txt "Frame", "Handshake"; lockstep.md "Limits"), and its own steering:
// deliveries on a simulated clock after the link's latency, seeded jitter with order kept, bandwidth, held links,
// cuts, and runs that repeat exactly for a seed. No real time anywhere: the clock moves only when a test moves it.
// The limits of TCP are memoryLimits.test.ts; the harness is memoryHarness.ts.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { createMemoryNetwork, parseMemoryAddress } from '../../../adapters/transport/memory.ts';
import { advanceBy, runUntil, settle } from '../../../adapters/transport/memoryDriver.ts';
import type { Frame } from '../../../protocol/frame.ts';
import { frameOfLength, numberedFrame, numbers } from './support.ts';
import { client, raw, settledValue, setup } from './memoryHarness.ts';

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
