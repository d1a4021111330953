// The player's side of the save transfer (spec "Receiving side"; issue 11 item 2): every ResyncChunk from the host is
// checked (machines/rules/resyncChunks.ts: sha256, count, index, size, the same count and sha256 as the held
// transfer, a duplicate ignored, another id replacing the held transfer), written at its place in a temp file, and
// once every chunk is there the file's SHA-256 is checked: only on a match is the file renamed to its final name and
// reported received (PlayerOutput::SaveReceived). A mismatch forgets the transfer and counts the chunk as dropped.
// One transfer is held at a time; an unfinished one is forgotten 10 minutes after its first chunk (a timer on the
// injected clock, and checked again at the next chunk and at tick()). A ResyncLoad may reach the game only for an
// id and sha256 that `loadable` names.
//
// The hash runs as the chunks arrive in order (the host sends them in order); chunks that came out of order are
// hashed from the file at the end. The save is never whole in memory: each chunk is written and let go.
import { createHash, type Hash } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { checkChunk, CHUNK_BYTES, holdTransfer, transferProgress, TRANSFER_FORGET_MS, type HeldTransfer, type IncomingChunk } from '../../machines/rules/resyncChunks.ts';

export interface SaveReceived {
  id: number;
  sha256: string;
  bytes: number;
  path: string;
}

export interface SaveReceiverOptions {
  /** Where the temp file and the received save go (the game's savegame folder, or the session folder). */
  dir: string;
  clock: Clock;
  log?: LogFn;
  /** The received save's file name (default feverlink3-resync-<id>.sav). */
  fileName?: (id: number) => string;
  forgetAfterMs?: number;
  onReceived?: (save: SaveReceived) => void;
}

interface Transfer extends HeldTransfer {
  startedAt: number;
  temp: string;
  file: Promise<FileHandle>;
  /** The writes so far, in order (each batch's write chained after the previous one). */
  writes: Promise<void>;
  /** Chunks accepted and not yet taken by a write: the next link of `writes` writes them all. */
  unwritten: { data: Uint8Array; position: number }[];
  /** A write failed: nothing more is kept for writing (the completion reports the failure). */
  writeFailed: boolean;
  hash: Hash;
  /** Chunks 0..hashed-1 went through the hash in order. */
  hashed: number;
  bytes: number;
  timer: unknown;
}

/** Chunks per write at most (writev; Linux takes 1024 buffers a call): 16 MiB. */
const WRITE_BATCH = 64;

/**
 * Writes every chunk accepted since the last write: consecutive ones in one writev. A socket read hands over several
 * chunks per event-loop turn and each write costs a turn of its own, so one write per chunk fell behind: up to 240
 * chunks (60 MiB) waited in memory on /dev/shm in the resync bench. A short write (a full disk) fails the transfer.
 */
async function writeUnwritten(t: Transfer): Promise<void> {
  const file = await t.file;
  const batch = t.unwritten;
  t.unwritten = [];
  for (let i = 0; i < batch.length; ) {
    const first = batch[i]!;
    let end = first.position + first.data.length;
    let j = i + 1;
    while (j < batch.length && j - i < WRITE_BATCH && batch[j]!.position === end) end += batch[j++]!.data.length;
    const want = end - first.position;
    const { bytesWritten } =
      j - i === 1
        ? await file.write(first.data, 0, first.data.length, first.position)
        : await file.writev(batch.slice(i, j).map((w) => w.data), first.position);
    if (bytesWritten !== want) throw new Error(`short write: ${bytesWritten} of ${want} bytes at ${first.position}`);
    i = j;
  }
}

/** What happened to one chunk. */
export type ChunkOutcome = 'accepted' | 'duplicate' | 'refused';

export class SaveReceiver {
  readonly #o: SaveReceiverOptions & { forgetAfterMs: number; fileName: (id: number) => string };
  #held: Transfer | undefined;
  /** The last save received intact: the only one a ResyncLoad may load. */
  #received: SaveReceived | undefined;
  /** Chunks refused or lost to a failed check (the spec's dropped count). */
  dropped = 0;
  /** Background work (a completion's check, a forgotten transfer's cleanup) still running. */
  readonly #background = new Set<Promise<void>>();

  constructor(options: SaveReceiverOptions) {
    this.#o = { forgetAfterMs: TRANSFER_FORGET_MS, fileName: (id) => `feverlink3-resync-${id}.sav`, ...options };
  }

  /** The transfer in progress as bytes (the total counted as whole chunks), rate and time left: the terminal's bar. */
  progress(): { bytes: number; total: number; bytesPerSecond: number; secondsLeft: number | undefined } | undefined {
    const t = this.#held;
    if (t === undefined) return undefined;
    return transferProgress(t.bytes, t.count * CHUNK_BYTES, this.#o.clock.now() - t.startedAt);
  }

  /** The transfer in progress: its id, chunks received and count. */
  get inProgress(): { id: number; received: number; count: number } | undefined {
    const t = this.#held;
    return t && { id: t.id, received: t.received, count: t.count };
  }

  /** The path of the save received intact for this id and sha256, if any (a ResyncLoad for anything else is dropped). */
  loadable(id: number, sha256: string): string | undefined {
    const r = this.#received;
    return r && r.id === id && r.sha256 === sha256.toLowerCase() ? r.path : undefined;
  }

  /** Takes one chunk (never passed to the game). Synchronous verdict; the write happens in order in the background. */
  accept(chunk: IncomingChunk): ChunkOutcome {
    this.tick();
    const r = this.#received;
    if (this.#held === undefined && r && r.id === chunk.id && r.sha256 === String(chunk.sha256).toLowerCase()) return 'duplicate';
    const verdict = checkChunk(this.#held, chunk);
    if (verdict.verdict === 'duplicate') return 'duplicate';
    if (verdict.verdict === 'refuse') {
      this.dropped += 1;
      this.#o.log?.({ msg: 'resync chunk refused', id: chunk.id, index: chunk.index, why: verdict.why, detail: verdict.detail });
      return 'refused';
    }
    if (verdict.fresh) this.#start(chunk);
    const t = this.#held!;
    t.have[chunk.index] = 1;
    t.received += 1;
    t.bytes += chunk.data.length;
    if (chunk.index === t.hashed) {
      t.hash.update(chunk.data);
      t.hashed += 1;
    }
    if (!t.writeFailed) t.unwritten.push({ data: chunk.data, position: chunk.index * CHUNK_BYTES });
    if (t.unwritten.length === 1) {
      t.writes = t.writes.then(() => writeUnwritten(t));
      // Seen by #complete / #forget (never an unhandled rejection); the chunks of a failed transfer are let go.
      t.writes.catch(() => {
        t.writeFailed = true;
        t.unwritten = [];
      });
    }
    if (t.received === t.count) this.#track(this.#complete(t));
    return 'accepted';
  }

  /** Forgets an unfinished transfer 10 minutes after its first chunk (also checked at every chunk). */
  tick(): void {
    const t = this.#held;
    if (t && t.received < t.count && this.#o.clock.now() - t.startedAt >= this.#o.forgetAfterMs) this.#track(this.#forget(t, 'unfinished after 10 minutes'));
  }

  /** Forgets everything (the session ends) and waits for the background work. */
  async close(): Promise<void> {
    if (this.#held) this.#track(this.#forget(this.#held, 'closed'));
    await this.idle();
  }

  /** Resolves once no background work (a final check, a cleanup) is running. */
  async idle(): Promise<void> {
    while (this.#background.size > 0) await Promise.all([...this.#background]);
  }

  #track(work: Promise<void>): void {
    this.#background.add(work);
    void work.finally(() => this.#background.delete(work));
  }

  #start(chunk: IncomingChunk): void {
    if (this.#held) this.#track(this.#forget(this.#held, `replaced by transfer ${chunk.id}`));
    const temp = join(this.#o.dir, `.feverlink3-resync-${chunk.id}.part`);
    const held = holdTransfer(chunk);
    const t: Transfer = {
      ...held,
      startedAt: this.#o.clock.now(),
      temp,
      file: open(temp, 'w+'),
      writes: Promise.resolve(),
      unwritten: [],
      writeFailed: false,
      hash: createHash('sha256'),
      hashed: 0,
      bytes: 0,
      timer: undefined,
    };
    t.file.catch(() => undefined);
    t.timer = this.#o.clock.setTimeout(() => this.tick(), this.#o.forgetAfterMs);
    this.#held = t;
  }

  async #complete(t: Transfer): Promise<void> {
    this.#o.clock.clearTimeout(t.timer);
    try {
      await t.writes;
      const file = await t.file;
      // Chunks that came out of order: hash the rest from the file, in order.
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      for (let index = t.hashed; index < t.count; index++) {
        const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, index * CHUNK_BYTES);
        t.hash.update(buffer.subarray(0, bytesRead));
      }
      await file.close();
      if (this.#held !== t) return; // replaced or forgotten meanwhile
      const sha256 = t.hash.digest('hex');
      if (sha256 !== t.sha256) {
        this.dropped += 1;
        await this.#forget(t, 'sha256 mismatch');
        return;
      }
      const path = join(this.#o.dir, this.#o.fileName(t.id));
      await rename(t.temp, path);
      this.#held = undefined;
      this.#received = { id: t.id, sha256, bytes: t.bytes, path };
      this.#o.log?.({ msg: 'resync save received', id: t.id, bytes: t.bytes });
      this.#o.onReceived?.(this.#received);
    } catch (error) {
      this.dropped += 1;
      this.#o.log?.({ msg: 'resync save not written', id: t.id, error: String(error) });
      await this.#forget(t, 'write failed');
    }
  }

  async #forget(t: Transfer, why: string): Promise<void> {
    if (this.#held === t) this.#held = undefined;
    t.unwritten = [];
    this.#o.clock.clearTimeout(t.timer);
    this.#o.log?.({ msg: 'resync transfer forgotten', id: t.id, received: t.received, count: t.count, why });
    await t.writes.catch(() => undefined);
    const file = await t.file.catch(() => undefined);
    await file?.close().catch(() => undefined);
    await rm(t.temp, { force: true });
  }
}
