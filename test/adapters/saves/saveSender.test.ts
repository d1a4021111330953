// The host's save sender (adapters/saves/saveSender.ts) against in-process peers: each chunk sealed once and the same
// frame bytes written to every participant, exact 256 KiB cuts in order, a participant with a full queue neither
// stalls the others nor grows the memory (its chunks go through the spool), a removed or closed participant, and the
// frames opened and decoded through the fast base64 port into a receiver that rebuilds the file.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeBase64 } from '../../../adapters/base64/nodeBase64.ts';
import { realClock } from '../../../adapters/clock.ts';
import { nodeCrypto } from '../../../adapters/crypto/nodeCrypto.ts';
import { hashFile } from '../../../adapters/saves/hashFile.ts';
import { SaveReceiver, type SaveReceived } from '../../../adapters/saves/saveReceiver.ts';
import { SaveSender, type TransferPeer } from '../../../adapters/saves/saveSender.ts';
import { CHUNK_BYTES } from '../../../machines/rules/resyncChunks.ts';
import { FrameDecoder } from '../../../protocol/frame.ts';
import { decodeChunkPayload, Kind } from '../../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../../protocol/seal.ts';
import { eventLoopTurnsDuring } from '../../support/eventLoopTurns.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fl3-send-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const key = nodeCrypto.aesGcm(new Uint8Array(32).fill(7));

/** A peer that records what it was handed; `stuck` keeps its queue full until released. */
class Peer implements TransferPeer {
  frames: Uint8Array[] = [];
  queuedBytes = 0;
  closeReason: string | undefined;
  onWrite: (() => void) | undefined;
  write(bytes: Uint8Array): void {
    this.frames.push(bytes);
    this.onWrite?.();
    if (this.stuck) this.queuedBytes += bytes.length;
  }
  stuck = false;
}

async function saveFile(bytes: number) {
  const path = join(dir, 'world.sav');
  const data = randomBytes(bytes);
  await writeFile(path, data);
  return { path, data, ...(await hashFile(path)) };
}

function sender(file: { path: string; sha256: string; bytes: number }, peers: Map<number, TransferPeer>, extra: Partial<ConstructorParameters<typeof SaveSender>[0]> = {}) {
  const sealer = new Sealer(key, 0);
  let seals = 0;
  const s = new SaveSender(
    {
      id: 5,
      ...file,
      sealChunk: (payload) => {
        seals++;
        return sealer.seal(Kind.ResyncChunk, payload);
      },
      base64: nodeBase64,
      clock: realClock,
      spoolDir: dir,
      ...extra,
    },
    peers,
  );
  return { s, seals: () => seals };
}

/** Opens and decodes frames as a player would, into a receiver in `into`. */
async function receive(frames: Uint8Array[], into: string): Promise<SaveReceived> {
  const opener = new Opener(key);
  const decoder = new FrameDecoder({ maxLength: 1_048_576 });
  let result!: SaveReceived;
  const done = new Promise<void>((resolve) => {
    const r = new SaveReceiver({ dir: into, clock: realClock, onReceived: (s) => ((result = s), resolve()) });
    for (const bytes of frames) {
      for (const frame of decoder.push(bytes)) {
        expect(frame.header.kind).toBe(Kind.ResyncChunk);
        const opened = opener.open(frame);
        if (!opened.ok) throw new Error(opened.reason);
        const decoded = decodeChunkPayload('ResyncChunk', opened.payload, nodeBase64);
        if (!decoded.ok) throw new Error(decoded.reason);
        expect(r.accept(decoded.value)).toBe('accepted');
      }
    }
  });
  await done;
  return result;
}

describe('save sender', () => {
  it('cuts at exactly 256 KiB in order, seals each chunk once and hands the same bytes to every participant', async () => {
    const file = await saveFile(5 * CHUNK_BYTES + 123);
    const peers = [new Peer(), new Peer(), new Peer()];
    const done: number[] = [];
    const { s, seals } = sender(file, new Map(peers.map((p, i) => [i + 1, p])), { onPeerDone: (p) => done.push(p) });
    expect(s.count).toBe(6);
    const result = await s.start();
    expect(result).toEqual({ done: [1, 2, 3], gone: [], sealed: 6, spooled: 0, intact: true });
    expect(done).toEqual([1, 2, 3]);
    expect(seals()).toBe(6);
    for (let i = 0; i < 6; i++) {
      expect(peers[1]!.frames[i]).toBe(peers[0]!.frames[i]); // the same buffer, not a copy or a second seal
      expect(peers[2]!.frames[i]).toBe(peers[0]!.frames[i]);
    }
    const got = await receive(peers[0]!.frames, await mkdtemp(join(dir, 'p-')));
    expect(got.sha256).toBe(file.sha256);
    expect(Buffer.compare(await readFile(got.path), file.data)).toBe(0);
    expect(s.progress().bytes).toBe(file.bytes);
  });

  it('a participant with a full queue does not hold the others back: they finish, its chunks go through the spool', async () => {
    const file = await saveFile(40 * CHUNK_BYTES);
    const fast = new Peer();
    const slow = new Peer();
    const peers = new Map<number, TransferPeer>([
      [1, fast],
      [2, slow],
    ]);
    slow.stuck = true;
    let fastDone!: () => void;
    const fastFinished = new Promise<void>((resolve) => (fastDone = resolve));
    const { s, seals } = sender(file, peers, { windowChunks: 4, queueBudget: 1_000_000, onPeerDone: (p) => p === 1 && fastDone() });
    const finished = s.start();
    await fastFinished;
    expect(fast.frames).toHaveLength(40);
    expect(slow.frames.length).toBeLessThan(5); // held by its own queue only
    expect(s.progress().bytes).toBeLessThan(file.bytes);
    // The slow one drains now: it gets everything, in order, partly read back from the spool.
    slow.stuck = false;
    slow.queuedBytes = 0;
    const result = await finished;
    expect(result.done).toEqual([1, 2]);
    expect(result.spooled).toBeGreaterThan(30);
    expect(seals()).toBe(40); // spooled frames are the sealed bytes, never sealed again
    expect(slow.frames.map((f) => Buffer.from(f).toString('hex'))).toEqual(fast.frames.map((f) => Buffer.from(f).toString('hex')));
    expect((await readdir(dir)).filter((n) => n.endsWith('.spool'))).toEqual([]);
  });

  it('a participant removed (it left) or closed is forgotten; the others go on', async () => {
    const file = await saveFile(20 * CHUNK_BYTES);
    const a = new Peer();
    const b = new Peer();
    const c = new Peer();
    b.stuck = true;
    c.stuck = true;
    const { s } = sender(file, new Map<number, TransferPeer>([[1, a], [2, b], [3, c]]), { windowChunks: 2, queueBudget: 600_000 });
    a.onWrite = () => {
      if (a.frames.length !== 3) return;
      s.remove(2);
      c.closeReason = 'write-timeout';
    };
    const finished = s.start();
    const result = await finished;
    expect(result.done).toEqual([1]);
    expect(result.gone.sort()).toEqual([2, 3]);
    expect(a.frames).toHaveLength(20);
  });

  it('refuses a save of 0 bytes or over 512 MiB before sending anything', async () => {
    const file = await saveFile(10);
    expect(() => sender({ ...file, bytes: 0 }, new Map())).toThrow(/at least 1 byte/);
    expect(() => sender({ ...file, bytes: 512 * 1_048_576 + 1 }, new Map())).toThrow(/512 MiB/);
  });

  it('a file changed after its announcement is reported not intact', async () => {
    const file = await saveFile(3 * CHUNK_BYTES);
    const { s } = sender({ ...file, sha256: 'ee'.repeat(32) }, new Map([[1, new Peer()]]));
    expect((await s.start()).intact).toBe(false);
  });
});

describe('save sender and the event loop', () => {
  it('yields between chunks: other callbacks run while a save streams', async () => {
    const file = await saveFile(24 * CHUNK_BYTES);
    const peer = new Peer();
    const { s } = sender(file, new Map([[1, peer]]));
    const { turns } = await eventLoopTurnsDuring(() => s.start());
    // At least one turn of the loop per chunk: every read is awaited, nothing runs the whole file in one go.
    expect(turns).toBeGreaterThanOrEqual(24);
  });
});

describe('hashFile', () => {
  it('streams the SHA-256 and length of a file', async () => {
    const file = await saveFile(CHUNK_BYTES * 2 + 5);
    expect(file.sha256).toBe(createHash('sha256').update(file.data).digest('hex'));
    expect(file.bytes).toBe(CHUNK_BYTES * 2 + 5);
  });
});
