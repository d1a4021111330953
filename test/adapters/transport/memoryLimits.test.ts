// The in-memory transport (adapters/transport/memory.ts) under the limits of TCP (actors/ports.ts; spec
// wire-protocol.txt "Frame", "Handshake"; lockstep.md "Limits"): the first frame's bound, malformed bytes, floods,
// the caps per address and in all, a peer that stops reading, and an owner handler that throws. On a simulated clock
// (memoryHarness.ts); the port contract and the links the simulator steers are memory.test.ts.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { advanceBy } from '../../../adapters/transport/memoryDriver.ts';
import { frameOfLength, prefix } from './support.ts';
import { client, raw, setup } from './memoryHarness.ts';

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
