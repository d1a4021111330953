// The TCP transport's behaviour over real loopback sockets (spec wire-protocol.txt "Frame", "Handshake";
// actors/ports.ts): frames both ways, ids and addresses, close reasons and final frames, the handshake
// limit lifted by markJoined, violations with and without an owner, listener and connect failures.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { connectTcp, HOST_SOCKET_HIGH_WATER_MARK, listenTcp } from '../../../adapters/transport/tcp.ts';
import { decodeWireFrame, FrameDecoder, type Frame } from '../../../protocol/frame.ts';
import { transportFixture } from '../../support/transport.ts';
import { frameOfLength, numberedFrame, numbers, prefix, rawClient, startHost, waitFor } from './support.ts';

const { host, client, defer } = transportFixture();

describe('listenTcp / connectTcp', () => {
  it('binds port 0 to a real port and carries frames both ways, in order', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    expect(h.listener.port).toBeGreaterThan(0);
    expect(h.listener.host).toBe('127.0.0.1');
    const c = await client(h.listener);
    for (let i = 1; i <= 50; i++) c.conn.write(numberedFrame(i));
    await waitFor(() => h.records[0]?.frames.length === 50, 'frames at the host');
    const hostConn = h.records[0]!.conn;
    expect(numbers(h.records[0]!.frames)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    for (let i = 1; i <= 50; i++) hostConn.write(numberedFrame(i, 2000));
    await waitFor(() => c.frames.length === 50, 'frames at the client');
    expect(numbers(c.frames)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(c.frames[7]!.header).toEqual({ version: 1, kind: 30, sender: 1, counter: 8n });
  });

  it('gives each connection a fresh id and reports the address as seen, with its cap key', async () => {
    const h = await host();
    const a = await client(h.listener);
    const b = await client(h.listener);
    await waitFor(() => h.records.length === 2, 'two connections');
    const ids = [a.conn.id, b.conn.id, ...h.records.map((r) => r.conn.id)];
    expect(new Set(ids).size).toBe(4);
    expect(Math.min(...ids)).toBeGreaterThanOrEqual(1);
    expect(h.records[0]!.conn.remoteAddress).toBe('127.0.0.1');
    expect(h.records[0]!.conn.addressKey).toBe('127.0.0.1');
    expect(a.conn.remoteAddress).toBe('127.0.0.1');
  });

  it('close(reason, finalBytes) delivers the final frame, then the peer sees peer-closed; onClose once', async () => {
    const h = await host();
    const c = await client(h.listener);
    await waitFor(() => h.records.length === 1, 'connection');
    const record = h.records[0]!;
    const reject = frameOfLength(40, 3);
    record.conn.close('bad-proof', reject);
    record.conn.close('again');
    expect(record.conn.closeReason).toBe('bad-proof');
    await waitFor(() => c.closed.length === 1, 'client close');
    expect(c.frames.map((f) => f.header.kind)).toEqual([3]);
    expect(c.closed).toEqual(['peer-closed']);
    expect(record.closed).toEqual(['bad-proof']);
    const line = { msg: 'connection closed', id: record.conn.id, address: '127.0.0.1', reason: 'bad-proof' };
    expect(h.logs).toContainEqual(line);
    expect(h.logs).toContainEqual({ msg: 'close ignored', id: record.conn.id, reason: 'again', first: 'bad-proof' });
    // After the close: writes are dropped, never thrown; a late onClose handler hears the first reason.
    expect(() => record.conn.write(frameOfLength(20))).not.toThrow();
    const late: string[] = [];
    record.conn.onClose((r) => late.push(r));
    expect(late).toEqual(['bad-proof']);
  });

  it('the final frame reaches a peer that is flooding us (lingering close)', async () => {
    const h = await host({
      limits: { maxFramesPerSecond: 100 },
      setup: (r) => r.conn.onViolation((reason) => r.conn.close(reason, frameOfLength(30, 3))),
    });
    const raw = await rawClient(h.listener.port);
    const burst = Buffer.concat(Array.from({ length: 2000 }, () => Buffer.from(frameOfLength(12))));
    raw.socket.write(burst);
    const keepFlooding = setInterval(() => raw.socket.writable && raw.socket.write(burst), 1);
    defer(() => clearInterval(keepFlooding));
    await raw.closed;
    clearInterval(keepFlooding);
    const frames = new FrameDecoder().push(Buffer.concat(raw.received));
    expect(frames.map((f) => f.header.kind)).toEqual([3]);
    expect(h.records[0]!.closed).toEqual(['flood']);
    expect(h.records[0]!.frames).toHaveLength(100);
  });

  it('holds frames before the Join to 4096 bytes and lifts the limit after markJoined', async () => {
    const h = await host();
    const c = await client(h.listener);
    c.conn.write(frameOfLength(4096));
    await waitFor(() => h.records[0]?.frames.length === 1, 'first frame');
    h.records[0]!.conn.markJoined();
    c.conn.write(frameOfLength(100_000));
    await waitFor(() => h.records[0]!.frames.length === 2, 'large frame after join');
    expect(h.records[0]!.frames[1]!.body.length).toBe(100_000 - 12);
    expect(h.records[0]!.conn.closeReason).toBeUndefined();
  });

  it('without an owner handler a violation closes the connection with its reason', async () => {
    const h = await host();
    const raw = await rawClient(h.listener.port);
    raw.socket.write(prefix(5000));
    await raw.closed;
    expect(h.records[0]!.closed).toEqual(['malformed']);
    const line = { msg: 'limit exceeded', reason: 'malformed', code: 'length', length: 5000 };
    expect(h.logs).toContainEqual(expect.objectContaining(line));
  });

  it('a violation stops frame delivery at once; the connection ends even if the owner never closes it', async () => {
    const { createSimulatedClock } = await import('../../../adapters/clock.ts');
    const clock = createSimulatedClock();
    const seen: string[] = [];
    const h = await host({ clock, setup: (r) => r.conn.onViolation((reason) => seen.push(reason)) });
    const raw = await rawClient(h.listener.port);
    raw.socket.write(Buffer.concat([Buffer.from(frameOfLength(20)), Buffer.from([0, 0, 0, 20, 9]), Buffer.alloc(19)]));
    await waitFor(() => seen.length === 1, 'violation');
    raw.socket.write(frameOfLength(20));
    expect(seen).toEqual(['malformed']);
    expect(h.records[0]!.frames).toHaveLength(1);
    expect(h.records[0]!.conn.closeReason).toBeUndefined();
    clock.increment(10_000);
    expect(h.records[0]!.conn.closeReason).toBe('malformed');
    await raw.closed;
    expect(h.records[0]!.frames).toHaveLength(1);
  });

  it('a throwing owner handler closes only that connection (internal-error), never the process', async () => {
    const h = await host();
    const bad = await client(h.listener);
    const good = await client(h.listener);
    await waitFor(() => h.records.length === 2, 'two connections');
    h.records[0]!.conn.onFrame(() => {
      throw new Error('owner bug');
    });
    bad.conn.write(frameOfLength(20));
    await waitFor(() => bad.closed.length === 1, 'bad closed');
    expect(h.records[0]!.closed).toEqual(['internal-error']);
    good.conn.write(frameOfLength(20));
    await waitFor(() => h.records[1]!.frames.length === 1, 'good still works');
    expect(h.logs).toContainEqual(expect.objectContaining({ msg: 'handler failed', handler: 'frame' }));
  });

  it('holds connections until onConnection is set, and reading until onFrame is set', async () => {
    const listener = await listenTcp({ host: '127.0.0.1', port: 0 });
    defer(() => listener.close('test-end'));
    const raw = await rawClient(listener.port);
    raw.socket.write(frameOfLength(20));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const got: Frame[] = [];
    const conns: Connection[] = [];
    listener.onConnection((conn) => conns.push(conn));
    expect(conns).toHaveLength(1);
    conns[0]!.onFrame((f) => got.push(f));
    await waitFor(() => got.length === 1, 'held frame');
  });

  it('Listener.close closes every connection with its reason and resolves', async () => {
    const h = await startHost();
    const a = await client(h.listener);
    const b = await client(h.listener);
    await waitFor(() => h.records.length === 2, 'two connections');
    await h.listener.close('shutdown');
    expect(h.records.map((r) => r.closed)).toEqual([['shutdown'], ['shutdown']]);
    await waitFor(() => a.closed.length === 1 && b.closed.length === 1, 'clients closed');
    expect(a.closed).toEqual(['peer-closed']);
    await expect(connectTcp({ host: '127.0.0.1', port: h.listener.port })).rejects.toThrow();
  });

  it('rejects listening on a port in use and connecting to a closed port, without an uncaught error', async () => {
    const h = await host();
    await expect(listenTcp({ host: '127.0.0.1', port: h.listener.port })).rejects.toThrow(/EADDRINUSE/);
    const probe = await listenTcp({ host: '127.0.0.1', port: 0 });
    const port = probe.port;
    await probe.close('probe');
    await expect(connectTcp({ host: '127.0.0.1', port })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a frame written whole is the same bytes as decoded (write keeps the bytes as given)', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const c = await client(h.listener);
    const wire = numberedFrame(7, 300_000);
    c.conn.write(wire);
    await waitFor(() => h.records[0]?.frames.length === 1, 'frame');
    const expected = decodeWireFrame(wire);
    if (expected instanceof Error) throw expected;
    expect(Buffer.from(h.records[0]!.frames[0]!.body).equals(Buffer.from(expected.body))).toBe(true);
  });

  it('coalesces the small frames of one turn into one write: order kept, a large frame after them, queuedBytes counts them', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const raw = await rawClient(h.listener.port);
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn as Connection & { queuedBytes: number };
    // 40 small frames, one larger than the socket's high-water mark (written at once, after the ones before), 40 more.
    for (let i = 1; i <= 40; i++) conn.write(numberedFrame(i, 100));
    expect(conn.queuedBytes).toBeGreaterThan(0);
    conn.write(numberedFrame(41, HOST_SOCKET_HIGH_WATER_MARK + 4_000));
    for (let i = 42; i <= 81; i++) conn.write(numberedFrame(i, 100));
    const expected = Array.from({ length: 81 }, (_, i) => i + 1);
    await waitFor(() => new FrameDecoder({ maxLength: 1 << 20 }).push(Buffer.concat(raw.received)).length === 81, 'frames');
    expect(numbers(new FrameDecoder({ maxLength: 1 << 20 }).push(Buffer.concat(raw.received)))).toEqual(expected);
    await waitFor(() => conn.queuedBytes === 0, 'queue drained');
    // A graceful close sends what was written before it, then the final frame; an abrupt one (a reset) drops it.
    for (let i = 1; i <= 5; i++) conn.write(numberedFrame(i, 50));
    conn.close('shutdown', frameOfLength(30, 3));
    await raw.closed;
    const frames = new FrameDecoder({ maxLength: 1 << 20 }).push(Buffer.concat(raw.received));
    expect(frames.map((f) => f.header.kind)).toEqual([...expected.map(() => 30), 30, 30, 30, 30, 30, 3]);
  });

  it("a host connection holds a turn's small frames up to its 64 KiB high-water mark for one write", async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const raw = await rawClient(h.listener.port);
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn as Connection & { queuedBytes: number };
    // 48 KiB of 500-byte frames in one turn: past Node's default 16 KiB, every frame is still held for the turn's
    // one write (a socket at 16 KiB would have handed the first 16 KiB to the kernel already).
    let written = 0;
    let count = 0;
    while (written + 500 < 48 * 1024) {
      const frame = numberedFrame(++count, 500 - 16);
      conn.write(frame);
      written += frame.length;
    }
    expect(conn.queuedBytes).toBe(written);
    await waitFor(() => new FrameDecoder({ maxLength: 1 << 20 }).push(Buffer.concat(raw.received)).length === count, 'frames');
    expect(conn.queuedBytes).toBe(0);
  });
});
