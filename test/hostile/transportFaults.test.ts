// Peers that stop reading, send junk or reset, over real loopback TCP (reliability-tests §7.4 L8–L10, §7.5 N7;
// spec wire-protocol.txt "Handshake": 10 s write timeout). Each ends only its own connection, with its reason.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../actors/ports.ts';
import { createSimulatedClock, realClock } from '../../adapters/clock.ts';
import type { Frame } from '../../protocol/frame.ts';
import { startFaultProxy } from '../support/faultProxy.ts';
import { transportFixture } from '../support/transport.ts';
import { frameOfLength, numberedFrame, prefix, waitFor, type RawClient } from '../adapters/transport/support.ts';

const { host, raw, client: goodClient, defer } = transportFixture();

/** Sends one frame each way on a working connection and waits for both. */
async function stillWorks(hostConn: Connection, hostFrames: Frame[], client: { conn: Connection; frames: Frame[] }) {
  const before = [hostFrames.length, client.frames.length];
  client.conn.write(numberedFrame(99));
  hostConn.write(numberedFrame(98));
  const arrived = () => hostFrames.length === before[0]! + 1 && client.frames.length === before[1]! + 1;
  await waitFor(arrived, 'frames on the good connection');
}

describe('L8 write timeout and queue cap', () => {
  it('a peer that stops reading while the host writes 32 MiB: write-timeout, queue under its cap', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const stalled = await raw(h.listener.port);
    stalled.socket.pause();
    const good = await goodClient(h.listener);
    await waitFor(() => h.records.length === 2, 'connections');
    const conn = h.records[0]!.conn;
    const frame = frameOfLength(1_048_576, 16);
    let written = 0;
    let peak = 0;
    while (written < 32 * 1_048_576 && conn.closeReason === undefined) {
      conn.write(frame);
      written += frame.length;
      peak = Math.max(peak, conn.queuedBytes);
      // Let the kernel take what it will between writes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(conn.closeReason).toBe('write-timeout');
    expect(peak).toBeLessThanOrEqual(8 * 1_048_576);
    const line = { msg: 'connection closed', reason: 'write-timeout', cause: 'queue-full' };
    expect(h.logs).toContainEqual(expect.objectContaining(line));
    await stillWorks(h.records[1]!.conn, h.records[1]!.frames, good);
  });

  it('a write that does not drain within writeTimeoutMs (10 s, simulated) closes with write-timeout', async () => {
    const clock = createSimulatedClock();
    const h = await host({ clock, setup: (r) => r.conn.markJoined() });
    const stalled = await raw(h.listener.port);
    stalled.socket.pause();
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn;
    const frame = frameOfLength(262_144, 18);
    // Fill the kernel's buffers until bytes stay queued in the process, staying under the 8 MiB cap.
    for (let i = 0; i < 200 && conn.queuedBytes < 1_048_576; i++) {
      conn.write(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(conn.queuedBytes).toBeGreaterThanOrEqual(1_048_576);
    clock.increment(9_999);
    expect(conn.closeReason).toBeUndefined();
    clock.increment(1);
    expect(conn.closeReason).toBe('write-timeout');
    const line = { msg: 'connection closed', reason: 'write-timeout', cause: 'no-drain' };
    expect(h.logs).toContainEqual(expect.objectContaining(line));
  });

  it('a reader that keeps up is never timed out (the deadline ends at each drain)', async () => {
    const clock = createSimulatedClock();
    const h = await host({ clock, setup: (r) => r.conn.markJoined() });
    const reader = await goodClient(h.listener);
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 8; i++) conn.write(frameOfLength(1_048_576, 18));
      await waitFor(() => reader.frames.length === (round + 1) * 8, 'frames read');
      clock.increment(10_000);
    }
    expect(conn.closeReason).toBeUndefined();
  });

  it('N7: a slow reader (10 KB/s through the fault proxy) trips the write guard; the queue stays bounded', async () => {
    const limits = { writeTimeoutMs: 300, maxQueuedBytes: 2 * 1_048_576 };
    const h = await host({ limits, clock: realClock, setup: (r) => r.conn.markJoined() });
    const target = { host: '127.0.0.1', port: h.listener.port };
    const proxy = await startFaultProxy({ target, downstream: [{ type: 'bandwidth', bytesPerSecond: 10_000 }] });
    defer(() => proxy.close());
    const slow = await goodClient(proxy);
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn;
    const frame = frameOfLength(262_144, 18);
    let peak = 0;
    while (conn.closeReason === undefined) {
      conn.write(frame);
      peak = Math.max(peak, conn.queuedBytes);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(conn.closeReason).toBe('write-timeout');
    expect(peak).toBeLessThanOrEqual(2 * 1_048_576);
    expect(slow.frames.length).toBeLessThan(5);
  });
});

describe('L9 hostile peers each end only their own connection', () => {
  it('junk, absurd length, 2 GB claim, bad version, clean leave, RST; the good connection keeps working', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const good = await goodClient(h.listener);
    await waitFor(() => h.records.length === 1, 'good connection');
    const goodRecord = h.records[0]!;

    const cases: { name: string; act: (c: RawClient) => void; reason: string }[] = [
      { name: 'junk', act: (c) => c.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), reason: 'malformed' },
      { name: 'absurd length', act: (c) => c.socket.write(prefix(0x7fffffff)), reason: 'malformed' },
      {
        name: '2 GB claim',
        act: (c) => c.socket.write(Buffer.concat([Buffer.from(prefix(0x80000000)), Buffer.alloc(64, 1)])),
        reason: 'malformed',
      },
      {
        name: 'bad version',
        act: (c) => c.socket.write(Buffer.from([0, 0, 0, 12, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
        reason: 'malformed',
      },
      { name: 'clean leave', act: (c) => c.socket.end(), reason: 'peer-closed' },
      { name: 'reset', act: (c) => c.socket.resetAndDestroy(), reason: 'reset' },
    ];
    for (const [i, testCase] of cases.entries()) {
      const peer = await raw(h.listener.port);
      await waitFor(() => h.records.length === i + 2, `${testCase.name} connected`);
      testCase.act(peer);
      await waitFor(() => h.records[i + 1]!.closed.length === 1, `${testCase.name} closed`);
      expect(h.records[i + 1]!.closed, testCase.name).toEqual([testCase.reason]);
      await stillWorks(goodRecord.conn, goodRecord.frames, good);
    }
    // An unknown kind is the session's business: the transport delivers it and keeps the connection.
    const odd = await raw(h.listener.port);
    await waitFor(() => h.records.length === cases.length + 2, 'unknown-kind peer');
    odd.socket.write(frameOfLength(30, 200));
    await waitFor(() => h.records.at(-1)!.frames.length === 1, 'unknown kind delivered');
    expect(h.records.at(-1)!.frames[0]!.header.kind).toBe(200);
    expect(h.records.at(-1)!.conn.closeReason).toBeUndefined();
    expect(goodRecord.conn.closeReason).toBeUndefined();
    const closeLines = h.logs.filter((e) => e.msg === 'connection closed');
    expect(closeLines.map((e) => e.reason)).toEqual(cases.map((c) => c.reason));
  });
});

describe('L10 the first close reason wins', () => {
  it('owner close, then another close: the first reason is kept and heard once', async () => {
    const h = await host();
    await raw(h.listener.port);
    await waitFor(() => h.records.length === 1, 'connection');
    const record = h.records[0]!;
    record.conn.close('bad-proof');
    record.conn.close('timeout');
    record.conn.close('shutdown');
    expect(record.conn.closeReason).toBe('bad-proof');
    expect(record.closed).toEqual(['bad-proof']);
    expect(h.logs.filter((e) => e.msg === 'close ignored').map((e) => e.reason)).toEqual(['timeout', 'shutdown']);
  });

  it('flood, then the peer resets: flood is kept', async () => {
    const clock = createSimulatedClock();
    const reject = frameOfLength(20, 3);
    const h = await host({ clock, setup: (r) => r.conn.onViolation((reason) => r.conn.close(reason, reject)) });
    const peer = await raw(h.listener.port);
    peer.socket.write(Buffer.concat(Array.from({ length: 1001 }, () => Buffer.from(frameOfLength(12)))));
    await waitFor(() => h.records[0]?.closed.length === 1, 'flood');
    peer.socket.resetAndDestroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(h.records[0]!.closed).toEqual(['flood']);
    expect(h.records[0]!.conn.closeReason).toBe('flood');
  });

  it('malformed, then the peer closes: malformed is kept', async () => {
    const h = await host();
    const peer = await raw(h.listener.port);
    peer.socket.write(prefix(3));
    peer.socket.end();
    await peer.closed;
    expect(h.records[0]!.closed).toEqual(['malformed']);
  });

  it('write-timeout, then the owner closes: write-timeout is kept', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const stalled = await raw(h.listener.port);
    stalled.socket.pause();
    await waitFor(() => h.records.length === 1, 'connection');
    const conn = h.records[0]!.conn;
    const frame = frameOfLength(1_048_576);
    while (conn.closeReason === undefined) {
      conn.write(frame);
      await new Promise((resolve) => setImmediate(resolve));
    }
    conn.close('kicked');
    expect(h.records[0]!.closed).toEqual(['write-timeout']);
  });

  it('the peer closes, then the owner closes: peer-closed is kept', async () => {
    const h = await host();
    const peer = await raw(h.listener.port);
    await waitFor(() => h.records.length === 1, 'connection');
    peer.socket.end();
    await waitFor(() => h.records[0]!.closed.length === 1, 'peer close seen');
    h.records[0]!.conn.close('timeout');
    expect(h.records[0]!.closed).toEqual(['peer-closed']);
    expect(h.records[0]!.conn.closeReason).toBe('peer-closed');
  });

  it('the client side records its own reasons the same way', async () => {
    const h = await host();
    const c = await goodClient(h.listener);
    const reasons: string[] = [];
    c.conn.onClose((r) => reasons.push(r));
    await waitFor(() => h.records.length === 1, 'connection');
    h.records[0]!.conn.close('kicked', frameOfLength(20, 22));
    await waitFor(() => reasons.length === 1, 'client closed');
    c.conn.close('left');
    expect(reasons).toEqual(['peer-closed']);
    expect(c.frames.map((f) => f.header.kind)).toEqual([22]);
  });
});
