// The player's save receiver (adapters/saves/saveReceiver.ts; spec "Receiving side") against bad chunks — wrong
// count, wrong sha, index out of range, duplicate, oversize, another id — a whole save that does not match its
// SHA-256, chunks out of order, and the 10-minute forget on a simulated clock; real temp files.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { SaveReceiver, type SaveReceived } from '../../../adapters/saves/saveReceiver.ts';
import { CHUNK_BYTES } from '../../../machines/rules/resyncChunks.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fl3-recv-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function save(bytes: number) {
  const data = randomBytes(bytes);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const count = Math.ceil(bytes / CHUNK_BYTES);
  const chunk = (index: number, over: Partial<{ id: number; count: number; sha256: string; data: Uint8Array }> = {}) => ({
    id: 1,
    index,
    count,
    sha256,
    data: new Uint8Array(data.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES)),
    ...over,
  });
  return { data, sha256, count, chunk };
}

function receiver() {
  const clock = createSimulatedClock();
  const received: SaveReceived[] = [];
  const logs: { msg: string; [k: string]: unknown }[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const r = new SaveReceiver({
    dir,
    clock,
    log: (e) => {
      logs.push(e);
      if (e.msg === 'resync transfer forgotten' && e.why === 'sha256 mismatch') resolveDone();
    },
    onReceived: (s) => {
      received.push(s);
      resolveDone();
    },
  });
  return { r, clock, received, logs, done };
}

describe('save receiver', () => {
  it('assembles a save in order, checks its SHA-256 and only then reports it received and loadable', async () => {
    const s = save(3 * CHUNK_BYTES - 1000);
    const { r, received, done } = receiver();
    expect(r.accept(s.chunk(0))).toBe('accepted');
    expect(r.accept(s.chunk(1))).toBe('accepted');
    expect(received).toEqual([]);
    expect(r.loadable(1, s.sha256)).toBeUndefined();
    expect(r.accept(s.chunk(2))).toBe('accepted');
    await done;
    await r.idle();
    expect(received).toEqual([{ id: 1, sha256: s.sha256, bytes: s.data.length, path: join(dir, 'feverlink3-resync-1.sav') }]);
    expect(Buffer.compare(await readFile(received[0]!.path), s.data)).toBe(0);
    expect(r.loadable(1, s.sha256)).toBe(received[0]!.path);
    expect(r.loadable(1, 'cd'.repeat(32))).toBeUndefined();
    expect(r.loadable(2, s.sha256)).toBeUndefined();
    expect(await readdir(dir)).toEqual(['feverlink3-resync-1.sav']); // no temp file left
    expect(r.accept(s.chunk(1))).toBe('duplicate'); // a late repeat of the received save changes nothing
  });

  it('chunks out of order are placed and hashed from the file at the end', async () => {
    const s = save(4 * CHUNK_BYTES);
    const { r, received, done } = receiver();
    for (const i of [2, 0, 3, 1]) r.accept(s.chunk(i));
    await done;
    expect(received[0]!.sha256).toBe(s.sha256);
    expect(Buffer.compare(await readFile(received[0]!.path), s.data)).toBe(0);
  });

  it('refuses wrong sha, count out of range, index out of range, oversize, short middle chunk; ignores duplicates', async () => {
    const s = save(2 * CHUNK_BYTES + 10);
    const { r } = receiver();
    expect(r.accept(s.chunk(0, { sha256: 'xyz' }))).toBe('refused');
    expect(r.accept(s.chunk(0, { count: 0 }))).toBe('refused');
    expect(r.accept(s.chunk(0, { count: 2049 }))).toBe('refused');
    expect(r.accept({ ...s.chunk(0), index: 3 })).toBe('refused');
    expect(r.accept({ ...s.chunk(0), index: -1 })).toBe('refused');
    expect(r.accept(s.chunk(0, { data: new Uint8Array(CHUNK_BYTES + 1) }))).toBe('refused');
    expect(r.accept(s.chunk(0, { data: new Uint8Array(0) }))).toBe('refused');
    expect(r.accept(s.chunk(0, { data: new Uint8Array(100) }))).toBe('refused');
    expect(r.dropped).toBe(8);
    expect(r.inProgress).toBeUndefined();
    expect(r.accept(s.chunk(0))).toBe('accepted');
    expect(r.accept(s.chunk(0))).toBe('duplicate');
    expect(r.accept(s.chunk(1, { count: 4 }))).toBe('refused'); // another count than the transfer's
    expect(r.accept(s.chunk(1, { sha256: 'cd'.repeat(32) }))).toBe('refused'); // another sha256
    expect(r.inProgress).toEqual({ id: 1, received: 1, count: 3 });
    expect(r.dropped).toBe(10);
    await r.close();
  });

  it('a chunk of another id replaces the held transfer (its temp file goes)', async () => {
    const s = save(2 * CHUNK_BYTES);
    const { r, received, done } = receiver();
    r.accept(s.chunk(0));
    r.accept(s.chunk(0, { id: 2 }));
    expect(r.inProgress).toEqual({ id: 2, received: 1, count: 2 });
    r.accept(s.chunk(1, { id: 2 }));
    await done;
    await r.idle();
    expect(received.map((x) => x.id)).toEqual([2]);
    expect(await readdir(dir)).toEqual(['feverlink3-resync-2.sav']);
  });

  it('a complete save that does not match its SHA-256 is forgotten, counted dropped, never loadable', async () => {
    const s = save(2 * CHUNK_BYTES);
    const { r, received, done, logs } = receiver();
    const wrong = createHash('sha256').update('something else').digest('hex');
    r.accept(s.chunk(0, { sha256: wrong }));
    r.accept(s.chunk(1, { sha256: wrong }));
    await done;
    await r.idle();
    expect(received).toEqual([]);
    expect(r.dropped).toBe(1);
    expect(r.loadable(1, wrong)).toBeUndefined();
    expect(logs.some((l) => l.why === 'sha256 mismatch')).toBe(true);
  });

  it('an unfinished transfer is forgotten 10 minutes after its first chunk (timer, or the next chunk)', async () => {
    const s = save(3 * CHUNK_BYTES);
    const { r, clock } = receiver();
    r.accept(s.chunk(0));
    clock.increment(599_999);
    r.accept(s.chunk(1));
    expect(r.inProgress).toEqual({ id: 1, received: 2, count: 3 });
    clock.increment(1);
    expect(r.inProgress).toBeUndefined();
    // The next chunk starts afresh: chunk 2 alone is 1 of 3.
    r.accept(s.chunk(2));
    expect(r.inProgress).toEqual({ id: 1, received: 1, count: 3 });
    await r.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it('writes the chunks that arrive between two writes together (batches over the cap, gaps, a late chunk)', async () => {
    // 70 chunks, more than one writev's 64; accepted in bursts with chunk 5 and chunk 40 held back and given last.
    const s = save(70 * CHUNK_BYTES - 123);
    const { r, received, done } = receiver();
    const order = [...Array.from({ length: 70 }, (_, i) => i).filter((i) => i !== 5 && i !== 40), 40, 5];
    for (let i = 0; i < order.length; i++) {
      expect(r.accept(s.chunk(order[i]!))).toBe('accepted');
      if (i % 25 === 24) await new Promise((resolve) => setImmediate(resolve)); // a write may start between bursts
    }
    await done;
    await r.idle();
    expect(received[0]!.sha256).toBe(s.sha256);
    expect(Buffer.compare(await readFile(received[0]!.path), s.data)).toBe(0);
  });
});
