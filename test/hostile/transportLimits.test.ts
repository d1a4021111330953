// Hostile peers against the transport's limits over real loopback TCP (reliability-tests §7.4 L1, L2, L4–L7;
// spec wire-protocol.txt "Frame" and "Handshake"; lockstep.md "Limits"). Rates run on a simulated clock.
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { frameOfLength, prefix, waitFor, type RawClient } from '../adapters/transport/support.ts';
import { transportFixture } from '../support/transport.ts';

const { host, raw } = transportFixture();

describe('L1 length bounds', () => {
  it('accepts 12 and 1 048 576 (after join); refuses 0 and 11 as malformed', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    const ok = await raw(h.listener.port);
    ok.socket.write(frameOfLength(12));
    ok.socket.write(frameOfLength(1_048_576));
    await waitFor(() => h.records[0]?.frames.length === 2, 'both frames');
    expect(h.records[0]!.frames.map((f) => f.body.length)).toEqual([0, 1_048_564]);
    for (const length of [0, 11]) {
      const bad = await raw(h.listener.port);
      bad.socket.write(Buffer.concat([Buffer.from(prefix(length)), Buffer.alloc(40)]));
      await bad.closed;
    }
    expect(h.records.slice(1).map((r) => r.closed)).toEqual([['malformed'], ['malformed']]);
    expect(h.records.slice(1).map((r) => r.frames.length)).toEqual([0, 0]);
    expect(h.records[0]!.conn.closeReason).toBeUndefined();
  });

  it('refuses 1 048 577 and 0xFFFFFFFF before allocating: arrayBuffers grows < 64 KiB', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    for (const length of [1_048_577, 0xffffffff]) {
      const bad = await raw(h.listener.port);
      await waitFor(() => h.records.length > 0 && h.records.at(-1)!.conn.closeReason === undefined, 'connection');
      const before = process.memoryUsage().arrayBuffers;
      // The claim plus a header: a decoder that believed it would allocate the body now.
      bad.socket.write(Buffer.concat([Buffer.from(prefix(length)), Buffer.from([1, 2, 0xff, 0xff]), Buffer.alloc(8)]));
      await bad.closed;
      const record = h.records.at(-1)!;
      expect(record.closed).toEqual(['malformed']);
      expect(record.conn.bufferedBytes).toBe(0);
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024);
    }
    const line = { msg: 'limit exceeded', reason: 'malformed', length: 0xffffffff };
    expect(h.logs).toContainEqual(expect.objectContaining(line));
  });
});

describe('L2 handshake frames', () => {
  it('accepts a first frame of 4096 and refuses 4097 before the Join', async () => {
    const h = await host();
    const a = await raw(h.listener.port);
    a.socket.write(frameOfLength(4096));
    await waitFor(() => h.records[0]?.frames.length === 1, '4096 parsed');
    const b = await raw(h.listener.port);
    b.socket.write(frameOfLength(4097));
    await b.closed;
    expect(h.records[1]!.closed).toEqual(['malformed']);
    expect(h.records[1]!.frames).toHaveLength(0);
    expect(h.records[0]!.conn.closeReason).toBeUndefined();
  });
});

describe('L4 pending cap', () => {
  it('closes the 33rd pending connection (3 addresses) unread; a slot frees when one closes', async () => {
    const h = await host();
    const clients: RawClient[] = [];
    for (let i = 0; i < 32; i++) {
      clients.push(await raw(h.listener.port, { localAddress: `127.0.0.${2 + (i % 3)}` }));
      await waitFor(() => h.records.length === i + 1, `connection ${i + 1}`);
    }
    const extra = await raw(h.listener.port, { localAddress: '127.0.0.4' });
    extra.socket.write(frameOfLength(20));
    await extra.closed;
    expect(h.refusals('too-many-pending')).toBe(1);
    expect(h.records).toHaveLength(32);
    // A joiner from a fourth address is refused too while the pool is full (reliability-tests §8 item 6).
    const legit = await raw(h.listener.port, { localAddress: '127.0.0.5' });
    await legit.closed;
    expect(h.refusals('too-many-pending')).toBe(2);
    clients[0]!.socket.destroy();
    await waitFor(() => h.records[0]!.closed.length === 1, 'slot freed');
    const firstId = h.records[0]!.conn.id;
    const closedLine = (e: { msg: string; [k: string]: unknown }) => e.msg === 'connection closed' && e.id === firstId;
    await waitFor(() => h.logs.filter(closedLine).length === 1, 'log');
    // The slot is free once the host's socket has fully closed: retry until a new connection is admitted.
    for (let attempt = 0; h.records.length === 32; attempt++) {
      expect(attempt).toBeLessThan(100);
      const next = await raw(h.listener.port, { localAddress: '127.0.0.5' });
      await waitFor(() => next.isClosed || h.records.length === 33, 'admitted or refused');
    }
    expect(h.records[32]!.conn.closeReason).toBeUndefined();
    expect(h.records[32]!.conn.remoteAddress).toBe('127.0.0.5');
  });
});

describe('L5 per-address and total caps', () => {
  it('refuses the 17th from one address; IPv4-mapped and plain IPv4 count as one', async () => {
    const h = await host({ host: '::', setup: (r) => r.conn.markJoined() });
    for (let i = 0; i < 16; i++) {
      // Half through the IPv4 address, half through its IPv4-mapped IPv6 form: the host sees one address.
      const mapped = i % 2 === 1;
      const route = mapped
        ? { host: '::ffff:127.0.0.1', localAddress: '::ffff:127.0.0.2' }
        : { localAddress: '127.0.0.2' };
      await raw(h.listener.port, route);
      await waitFor(() => h.records.length === i + 1, `connection ${i + 1}`);
    }
    expect(new Set(h.records.map((r) => r.conn.addressKey))).toEqual(new Set(['127.0.0.2']));
    expect(h.records[0]!.conn.remoteAddress).toBe('::ffff:127.0.0.2');
    const seventeenth = await raw(h.listener.port, { localAddress: '127.0.0.2' });
    await seventeenth.closed;
    expect(h.refusals('too-many-from-address')).toBe(1);
    const other = await raw(h.listener.port, { localAddress: '127.0.0.3' });
    await waitFor(() => h.records.length === 17, 'another address still admitted');
    expect(other.isClosed).toBe(false);
  });

  it('refuses the 65th connection (16 each from four addresses, then a fifth)', async () => {
    const h = await host({ setup: (r) => r.conn.markJoined() });
    for (let a = 2; a <= 5; a++) {
      for (let i = 0; i < 16; i++) await raw(h.listener.port, { localAddress: `127.0.0.${a}` });
    }
    await waitFor(() => h.records.length === 64, '64 connections');
    const sixtyFifth = await raw(h.listener.port, { localAddress: '127.0.0.6' });
    await sixtyFifth.closed;
    expect(h.refusals('too-many-connections')).toBe(1);
    expect(h.records).toHaveLength(64);
    expect(h.records.every((r) => r.conn.closeReason === undefined)).toBe(true);
  });
});

describe('L6 frame rate', () => {
  it('the 1001st frame at one instant is flood; the 1000 before it are delivered, nothing after', async () => {
    const clock = createSimulatedClock();
    const h = await host({ clock });
    const peer = await raw(h.listener.port);
    peer.socket.write(Buffer.concat(Array.from({ length: 1100 }, () => Buffer.from(frameOfLength(12)))));
    await peer.closed;
    expect(h.records[0]!.frames).toHaveLength(1000);
    expect(h.records[0]!.closed).toEqual(['flood']);
  });

  it('a steady 950 frames/s (simulated) for 3 s is never flood', async () => {
    const clock = createSimulatedClock();
    const h = await host({ clock, setup: (r) => r.conn.onViolation((reason) => r.violations.push(reason)) });
    const peer = await raw(h.listener.port);
    const batch = Buffer.concat(Array.from({ length: 95 }, () => Buffer.from(frameOfLength(24))));
    for (let step = 1; step <= 30; step++) {
      peer.socket.write(batch);
      await waitFor(() => h.records[0]?.frames.length === step * 95, `batch ${step}`);
      clock.increment(100);
    }
    expect(h.records[0]!.conn.closeReason).toBeUndefined();
    expect(h.records[0]!.violations).toEqual([]);
  });
});

describe('L7 byte rate', () => {
  it('one largest frame passes, a second within 1 s is flood; after 1 s it passes again', async () => {
    const clock = createSimulatedClock();
    const h = await host({
      clock,
      setup: (r) => {
        r.conn.markJoined();
        r.conn.onViolation((reason) => {
          r.violations.push(reason);
          r.conn.close(reason, frameOfLength(20, 3));
        });
      },
    });
    const max = Buffer.from(frameOfLength(1_048_576));
    const paced = await raw(h.listener.port);
    paced.socket.write(max);
    await waitFor(() => h.records[0]?.frames.length === 1, 'first max frame');
    clock.increment(1000);
    paced.socket.write(max);
    await waitFor(() => h.records[0]!.frames.length === 2, 'second max frame a second later');
    expect(h.records[0]!.conn.closeReason).toBeUndefined();

    const eager = await raw(h.listener.port);
    eager.socket.write(Buffer.concat([max, max]));
    await eager.closed;
    expect(h.records[1]!.frames).toHaveLength(1);
    expect(h.records[1]!.violations).toEqual(['flood']);
    expect(h.records[1]!.closed).toEqual(['flood']);
  });
});
