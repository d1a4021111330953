// Connection.uncount (actors/ports.ts; adapters/transport/connection.ts, rateLimiter.ts): the owner gives back the
// frame it is handling (a repair source's ResyncUpload the host asked for, spec "Repair source"), on both transports
// (real loopback TCP and the memory network), with the rates on a simulated clock that never moves: a given-back frame
// no longer counts, at most once, at most its own length, only while it is being delivered; nothing else changes.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { createMemoryNetwork } from '../../../adapters/transport/memory.ts';
import { runUntil } from '../../../adapters/transport/memoryDriver.ts';
import { RateLimiter } from '../../../adapters/transport/rateLimiter.ts';
import type { Frame } from '../../../protocol/frame.ts';
import { frameOfLength, rawClient, startHost, waitFor } from './support.ts';

/** Kind 39 (ResyncUpload's number) stands for a frame the owner exempts; kind 2 for any other. */
const EXEMPT = 39;
const MAX = 1_048_576;

interface Seen {
  frames: Frame[];
  closed: string[];
  violations: string[];
  /** What each uncount call answered. */
  answers: boolean[];
  conn: Connection;
}

/** The owner of a joined connection: gives back every EXEMPT frame with `bytes` (its whole length by default). */
function owner(conn: Connection, seen: Seen, o: { bytes?: number; twice?: boolean } = {}): void {
  conn.markJoined();
  conn.onFrame((frame) => {
    seen.frames.push(frame);
    if (frame.header.kind !== EXEMPT) return;
    seen.answers.push(conn.uncount!(o.bytes ?? MAX));
    if (o.twice) seen.answers.push(conn.uncount!(o.bytes ?? MAX));
  });
  conn.onViolation((reason) => {
    seen.violations.push(reason);
    conn.close(reason);
  });
  conn.onClose((reason) => seen.closed.push(reason));
}

const burst = (count: number, length: number, kind = EXEMPT) => Buffer.concat(Array.from({ length: count }, () => Buffer.from(frameOfLength(length, kind))));

describe('RateLimiter.refund', () => {
  it('gives back one frame and the bytes, never above the capacity', () => {
    const clock = createSimulatedClock();
    const limiter = new RateLimiter({ maxFramesPerSecond: 2, maxBytesPerSecond: MAX }, clock);
    expect(limiter.admit(MAX)).toBe(true);
    expect(limiter.admit(12)).toBe(false); // the bytes are spent
    limiter.refund(MAX);
    expect(limiter.admit(MAX)).toBe(true);
    limiter.refund(MAX);
    limiter.refund(MAX); // more than was taken: capped at the capacity
    expect(limiter.admit(MAX)).toBe(true);
    expect(limiter.admit(12)).toBe(false);
    // The frame tokens: 2, one given back twice is still at most 2 (one left after the last admit).
    expect(limiter.admit(0)).toBe(true);
    expect(limiter.admit(0)).toBe(false);
  });
});

describe('Connection.uncount over TCP', () => {
  it('ten largest frames at one instant pass when each is given back; not given back, the second is flood', async () => {
    const clock = createSimulatedClock();
    const seen: Seen[] = [];
    const h = await startHost({
      clock,
      setup: (r) => {
        const s: Seen = { frames: [], closed: [], violations: [], answers: [], conn: r.conn };
        seen.push(s);
        owner(r.conn, s);
      },
    });
    const source = await rawClient(h.listener.port);
    source.socket.write(burst(10, MAX));
    await waitFor(() => seen[0]?.frames.length === 10, 'ten largest frames');
    expect(seen[0]!.answers).toEqual(Array(10).fill(true));
    expect(seen[0]!.conn.closeReason).toBeUndefined();
    // Other frames still count: the buckets are full again, so a largest one passes and the next byte floods.
    source.socket.write(Buffer.concat([frameOfLength(MAX, 2), frameOfLength(12, 2)]));
    await source.closed;
    expect(seen[0]!.frames).toHaveLength(11);
    expect(seen[0]!.violations).toEqual(['flood']);

    const other = await rawClient(h.listener.port);
    other.socket.write(burst(2, MAX, 2));
    await other.closed;
    expect(seen[1]!.frames).toHaveLength(1);
    expect(seen[1]!.closed).toEqual(['flood']);
    await h.listener.close('test over');
  });

  it('1500 small frames at one instant pass when given back (the frame token too)', async () => {
    const clock = createSimulatedClock();
    const seen: Seen = { frames: [], closed: [], violations: [], answers: [], conn: undefined as never };
    const h = await startHost({ clock, setup: (r) => ((seen.conn = r.conn), owner(r.conn, seen)) });
    const source = await rawClient(h.listener.port);
    source.socket.write(burst(1500, 12));
    await waitFor(() => seen.frames.length === 1500, '1500 frames');
    expect(seen.conn.closeReason).toBeUndefined();
    await h.listener.close('test over');
  });

  it('at most once per frame, at most `bytes`, and never outside its delivery', async () => {
    const clock = createSimulatedClock();
    const seen: Seen[] = [];
    const h = await startHost({
      clock,
      setup: (r) => {
        const s: Seen = { frames: [], closed: [], violations: [], answers: [], conn: r.conn };
        const twice = seen.length === 0;
        seen.push(s);
        // The first connection asks twice per frame; the second gives back only 1000 bytes of each.
        owner(r.conn, s, twice ? { twice: true } : { bytes: 1000 });
      },
    });
    const a = await rawClient(h.listener.port);
    a.socket.write(burst(3, 400_000));
    await waitFor(() => seen[0]?.frames.length === 3, 'three frames');
    expect(seen[0]!.answers).toEqual([true, false, true, false, true, false]);
    // Between deliveries there is nothing to give back.
    expect(seen[0]!.conn.uncount!(MAX)).toBe(false);

    const b = await rawClient(h.listener.port);
    b.socket.write(burst(3, 400_000));
    await b.closed;
    // 400 000 + 399 000 … the third (1 000 bytes given back each) no longer fits the 1 MiB.
    expect(seen[1]!.frames).toHaveLength(2);
    expect(seen[1]!.violations).toEqual(['flood']);
    await h.listener.close('test over');
  });
});

describe('Connection.uncount over the memory network', () => {
  it('the same rule: given back, ten largest frames pass at one instant; not given back, the second is flood', async () => {
    const clock = createSimulatedClock();
    const net = createMemoryNetwork({ clock });
    const listener = net.listen('10.0.0.1:4000');
    const seen: Seen[] = [];
    listener.onConnection((conn) => {
      const s: Seen = { frames: [], closed: [], violations: [], answers: [], conn };
      seen.push(s);
      owner(conn, s);
    });
    const run = <T>(probe: () => T | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 0 });
    const open = async (kind: number, localAddress: string) => {
      const pending = net.connectRaw('10.0.0.1:4000', { localAddress });
      let socket: Awaited<typeof pending> | undefined;
      void pending.then((s) => (socket = s));
      await runUntil(clock, net, () => socket, { what: 'connect' });
      socket!.resume();
      socket!.write(burst(10, MAX, kind));
    };
    const at = clock.now();
    await open(EXEMPT, '10.0.0.2');
    await run(() => seen[0]?.frames.length === 10, 'ten exempt frames');
    expect(seen[0]!.conn.closeReason).toBeUndefined();
    await open(2, '10.0.0.3');
    await run(() => seen[1]?.closed.length === 1, 'the flood');
    expect(seen[1]!.frames).toHaveLength(1);
    expect(seen[1]!.closed).toEqual(['flood']);
    // No refill could explain it: well under a second of clock time passed.
    expect(clock.now() - at).toBeLessThan(1000);
  });
});
