// Network faults through the in-repo fault proxy (reliability-tests §5, §7.5 N1, N2): sliced and coalesced
// streams give the same frames as sent, both ways; and the proxy's other toxics do what they claim.
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import type { Connection } from '../../../actors/ports.ts';
import { connectTcp } from '../../../adapters/transport/tcp.ts';
import { decodeWireFrame, type Frame } from '../../../protocol/frame.ts';
import { startFaultProxy, type Toxic } from '../../../adapters/transport/faultProxy.ts';
import { seededRandom } from '../../support/random.ts';
import { startHost, waitFor } from './support.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Frames of random kinds, senders, counters and bodies (0..maxBody bytes; frame 1234 of each 2500 is large). */
function randomFrames(count: number, seed: number, maxBody = 200, bigBody = 120_000): Uint8Array[] {
  const random = seededRandom(seed);
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const big = i % 2500 === 1234;
    const size = big ? Math.floor(bigBody / 6 + (random() * bigBody * 5) / 6) : Math.floor(random() * (maxBody + 1));
    const body = new Uint8Array(size);
    for (let j = 0; j < size; j++) body[j] = Math.floor(random() * 256);
    const prefixAndHeader = new Uint8Array(16);
    const view = new DataView(prefixAndHeader.buffer);
    view.setUint32(0, 12 + size);
    view.setUint8(4, 1);
    view.setUint8(5, Math.floor(random() * 256));
    view.setUint16(6, Math.floor(random() * 65536));
    view.setBigUint64(8, BigInt(i + 1) * 0x1_0000_0001n);
    const wire = new Uint8Array(16 + size);
    wire.set(prefixAndHeader);
    wire.set(body, 16);
    out.push(wire);
  }
  return out;
}

function sameFrames(received: Frame[], sent: Uint8Array[]): void {
  expect(received.length).toBe(sent.length);
  for (let i = 0; i < sent.length; i++) {
    const expected = decodeWireFrame(sent[i]!);
    if (expected instanceof Error) throw expected;
    const got = received[i]!;
    if (
      got.header.kind !== expected.header.kind ||
      got.header.sender !== expected.header.sender ||
      got.header.counter !== expected.header.counter ||
      !Buffer.from(got.body).equals(Buffer.from(expected.body))
    ) {
      expect.fail(`frame ${i} differs`);
    }
  }
}

/** host ⇄ proxy (toxics both ways) ⇄ client, rate limits lifted so 10 000 frames pass. */
async function throughProxy(toxics: Toxic[], seed: number) {
  const h = await startHost({
    limits: { maxFramesPerSecond: 1e9, maxBytesPerSecond: 1e12 },
    setup: (r) => r.conn.markJoined(),
  });
  cleanups.push(() => h.listener.close('test-end'));
  const target = { host: '127.0.0.1', port: h.listener.port };
  const proxy = await startFaultProxy({ target, upstream: toxics, downstream: toxics, seed });
  cleanups.push(() => proxy.close());
  const conn: Connection = await connectTcp({ host: '127.0.0.1', port: proxy.port });
  cleanups.push(() => conn.close('test-end'));
  const clientFrames: Frame[] = [];
  conn.onFrame((f) => clientFrames.push(f));
  await waitFor(() => h.records.length === 1, 'proxied connection');
  return { h, conn, clientFrames, hostRecord: h.records[0]!, proxy };
}

describe('N1 slicer and N2 coalesce', () => {
  it('N1: 10 000 frames cut into 1–7-byte pieces arrive identical, both ways', async () => {
    const slicer: Toxic = { type: 'slicer', minBytes: 1, maxBytes: 7, maxDelayMs: 5, delayChance: 0.001, burst: 3 };
    const { conn, clientFrames, hostRecord } = await throughProxy([slicer], 7);
    // Small bodies keep the piece count (≈ 70 000 writes) inside the file's time budget.
    const up = randomFrames(10_000, 1, 16, 8_000);
    const down = randomFrames(1_500, 2, 16, 8_000);
    for (const wire of up) conn.write(wire);
    for (const wire of down) hostRecord.conn.write(wire);
    const done = () => hostRecord.frames.length === up.length && clientFrames.length === down.length;
    await waitFor(done, 'all frames', 20_000);
    sameFrames(hostRecord.frames, up);
    sameFrames(clientFrames, down);
    expect(hostRecord.conn.closeReason).toBeUndefined();
  }, 30_000);

  it('N2: 10 000 frames merged into 64 KiB chunks arrive identical, both ways', async () => {
    const coalesce: Toxic = { type: 'coalesce', chunkBytes: 65_536, flushMs: 5 };
    const { conn, clientFrames, hostRecord } = await throughProxy([coalesce], 9);
    const up = randomFrames(10_000, 3);
    const down = randomFrames(10_000, 4);
    for (const wire of up) conn.write(wire);
    for (const wire of down) hostRecord.conn.write(wire);
    const done = () => hostRecord.frames.length === up.length && clientFrames.length === down.length;
    await waitFor(done, 'all frames', 20_000);
    sameFrames(hostRecord.frames, up);
    sameFrames(clientFrames, down);
  });
});

describe('fault proxy toxics', () => {
  /** An echo target and a raw client through the proxy; resolves the client socket and what it received. */
  async function echoThrough(toxics: { upstream?: Toxic[]; downstream?: Toxic[] }) {
    const { createServer } = await import('node:net');
    const server = createServer((s) => {
      s.on('error', () => {});
      s.pipe(s);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as { port: number }).port;
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port }, ...toxics });
    cleanups.push(() => proxy.close());
    const socket = connect({ host: proxy.host, port: proxy.port });
    cleanups.push(() => void socket.destroy());
    const received: Buffer[] = [];
    const chunks: number[] = [];
    let error: string | undefined;
    let closed = false;
    socket.on('data', (b: Buffer) => {
      received.push(b);
      chunks.push(b.length);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
    socket.on('close', () => (closed = true));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    return {
      socket,
      proxy,
      chunks,
      bytes: () => Buffer.concat(received),
      get error() {
        return error;
      },
      get closed() {
        return closed;
      },
    };
  }

  it('latency keeps the order of the bytes', async () => {
    const t = await echoThrough({ upstream: [{ type: 'latency', ms: 5, jitterMs: 4 }] });
    const sent = Buffer.from(Array.from({ length: 500 }, (_, i) => i % 251));
    for (let i = 0; i < sent.length; i += 10) t.socket.write(sent.subarray(i, i + 10));
    await waitFor(() => t.bytes().length === sent.length, 'echo');
    expect(t.bytes().equals(sent)).toBe(true);
  });

  it('coalesce emits full chunks of the asked size', async () => {
    const t = await echoThrough({ downstream: [{ type: 'coalesce', chunkBytes: 1000, flushMs: 50 }] });
    for (let i = 0; i < 30; i++) t.socket.write(Buffer.alloc(100, i));
    await waitFor(() => t.bytes().length === 3000, 'echo');
    expect(t.chunks.every((n) => n % 1000 === 0)).toBe(true);
  });

  it('blackhole drops everything and keeps the connection open', async () => {
    const t = await echoThrough({ upstream: [{ type: 'blackhole' }] });
    t.socket.write('hello');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(t.bytes().length).toBe(0);
    expect(t.closed).toBe(false);
    expect(t.proxy.connections).toBe(1);
  });

  it('limit_data passes that many bytes, then closes', async () => {
    const t = await echoThrough({ downstream: [{ type: 'limit_data', bytes: 7 }] });
    t.socket.write('0123456789');
    await waitFor(() => t.closed, 'closed');
    expect(t.bytes().toString()).toBe('0123456');
  });

  it('reset and resetAll send RST to the client', async () => {
    const t = await echoThrough({ upstream: [{ type: 'reset', afterMs: 10 }] });
    await waitFor(() => t.closed, 'reset');
    expect(t.error).toBe('ECONNRESET');
    const u = await echoThrough({});
    u.socket.write('x');
    await waitFor(() => u.bytes().length === 1, 'echo');
    u.proxy.resetAll();
    await waitFor(() => u.closed, 'reset all');
    expect(u.error).toBe('ECONNRESET');
  });

  it('cutAll resets every current connection; a new one passes again', async () => {
    const t = await echoThrough({});
    t.socket.write('x');
    await waitFor(() => t.bytes().length === 1, 'echo');
    expect(t.proxy.cutAll()).toBe(1);
    await waitFor(() => t.closed, 'cut');
    expect(t.error).toBe('ECONNRESET');
    expect(t.proxy.opened).toBe(1);
    const again = connect({ host: t.proxy.host, port: t.proxy.port });
    cleanups.push(() => void again.destroy());
    const got: Buffer[] = [];
    again.on('data', (b: Buffer) => got.push(b));
    again.write('yz');
    await waitFor(() => Buffer.concat(got).toString() === 'yz', 'echo after the cut');
    expect(t.proxy.opened).toBe(2);
  });

  it('cutAfter passes that many more bytes of a live connection (a cut inside a frame), then closes it', async () => {
    const t = await echoThrough({});
    t.socket.write('abc');
    await waitFor(() => t.bytes().length === 3, 'echo');
    expect(t.proxy.cutAfter(5, 'upstream')).toBe(1);
    t.socket.write('0123456789');
    await waitFor(() => t.closed, 'cut');
    expect(t.bytes().toString()).toBe('abc01234');
    await waitFor(() => t.proxy.connections === 0, 'the pair closed');
  });
});
