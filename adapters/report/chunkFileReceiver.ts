// Receiving a chunked file of a bug report (ReportPart 41 on the host, ReportBundle 24 on the asker; the shape of
// ResyncChunk): each chunk is checked like a save chunk (machines/rules/resyncChunks.ts `checkChunk`: sha256 64 hex,
// 1 ≤ count ≤ 2048, 0 ≤ index < count, 1..256 KiB and every chunk but the last exactly 256 KiB, the same count and
// sha256 as the transfer's first chunk, a duplicate ignored), plus what only a report knows: the transfer id must be
// one this side expects, from the sender it asked, and its count must fit the transfer's bound (maxBytes). A bad chunk
// is refused and dropped; the transfer goes on. Chunks are written at their place in a temp file as they come (never
// the whole file in memory); once all are in, the file's SHA-256 is checked (adapters/saves/hashFile.ts): a match
// renames it to its final name and reports it complete; a mismatch or a size over the bound refuses the whole file.
// A transfer not complete `forgetAfterMs` after it was expected (10 minutes, the save transfer's) is forgotten and
// reported failed: never waited for forever (a timer on the injected clock).
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { checkChunk, CHUNK_BYTES, holdTransfer, TRANSFER_FORGET_MS, type HeldTransfer, type IncomingChunk } from '../../machines/rules/resyncChunks.ts';
import { hashFile } from '../saves/hashFile.ts';

export interface ExpectedTransfer {
  /** The only sender whose chunks are taken (a player id; 0 = the host). */
  from: number;
  /** The most bytes the file may have. */
  maxBytes: number;
  /** The final file's name in `dir`. */
  fileName: string;
}

export interface ReceivedFile {
  id: number;
  from: number;
  path: string;
  bytes: number;
  sha256: string;
}

export interface ChunkFileReceiverOptions {
  dir: string;
  /** What the log calls these files: `report part`, `report bundle`. */
  what: string;
  log?: LogFn;
  /** The clock of the forget timer (none: never forgotten on time, only by `cancel`). */
  clock?: Clock;
  forgetAfterMs?: number;
  onComplete?: (file: ReceivedFile) => void;
  /** The whole file failed (sha256 mismatch, over its bound, the write failed): it is forgotten. */
  onFailed?: (failed: { id: number; from: number; why: string }) => void;
}

export type ReceiveOutcome = { outcome: 'accepted' | 'duplicate' } | { outcome: 'refused'; why: string };

interface Transfer extends ExpectedTransfer {
  id: number;
  held: HeldTransfer | undefined;
  temp: string;
  file: Promise<FileHandle> | undefined;
  writes: Promise<void>;
  bytes: number;
  timer: unknown;
}

export class ChunkFileReceiver {
  readonly #o: ChunkFileReceiverOptions;
  readonly #transfers = new Map<number, Transfer>();
  /** Chunks refused (the dropped count). */
  refused = 0;

  constructor(options: ChunkFileReceiverOptions) {
    this.#o = options;
  }

  /** A transfer this side asked for (a ReportAsk sent, a bundle awaited). */
  expect(id: number, expected: ExpectedTransfer): void {
    void this.cancel(id);
    const t: Transfer = { ...expected, id, held: undefined, temp: join(this.#o.dir, `.feverlink3-report-${id}.part`), file: undefined, writes: Promise.resolve(), bytes: 0, timer: undefined };
    const clock = this.#o.clock;
    if (clock) t.timer = clock.setTimeout(() => void this.#forget(t), this.#o.forgetAfterMs ?? TRANSFER_FORGET_MS);
    this.#transfers.set(id, t);
  }

  /** The transfers still expected. */
  get expected(): number[] {
    return [...this.#transfers.keys()];
  }

  /** One chunk from `from`. Synchronous verdict; the write happens in order in the background. */
  accept(from: number, chunk: IncomingChunk): ReceiveOutcome {
    const t = this.#transfers.get(chunk.id);
    if (t === undefined) return this.#refuse(from, chunk, 'unknown transfer');
    if (t.from !== from) return this.#refuse(from, chunk, 'not the asked sender');
    const verdict = checkChunk(t.held, chunk);
    if (verdict.verdict === 'duplicate') return { outcome: 'duplicate' };
    if (verdict.verdict === 'refuse') return this.#refuse(from, chunk, `${verdict.why}: ${verdict.detail}`);
    if (chunk.count > Math.ceil(t.maxBytes / CHUNK_BYTES)) return this.#refuse(from, chunk, 'over the bound');
    if (t.held === undefined) {
      t.held = holdTransfer(chunk);
      t.file = open(t.temp, 'w+');
      t.file.catch(() => undefined);
    }
    const held = t.held;
    held.have[chunk.index] = 1;
    held.received += 1;
    t.bytes += chunk.data.length;
    const data = chunk.data;
    const file = t.file!;
    t.writes = t.writes.then(async () => {
      await (await file).write(data, 0, data.length, chunk.index * CHUNK_BYTES);
    });
    if (held.received === held.count) void this.#complete(t);
    return { outcome: 'accepted' };
  }

  /** Forgets transfer `id` (the round ended or moved on) and removes its temp file. */
  async cancel(id: number): Promise<void> {
    const t = this.#transfers.get(id);
    if (t === undefined) return;
    this.#transfers.delete(id);
    await this.#drop(t);
  }

  /** Forgets every transfer. */
  async close(): Promise<void> {
    await Promise.all(this.expected.map((id) => this.cancel(id)));
  }

  async #forget(t: Transfer): Promise<void> {
    if (this.#transfers.get(t.id) !== t) return;
    this.#transfers.delete(t.id);
    const why = `unfinished after ${Math.round((this.#o.forgetAfterMs ?? TRANSFER_FORGET_MS) / 1000)} s`;
    this.#o.log?.({ msg: `${this.#o.what} refused`, from: t.from, id: t.id, why });
    this.#o.onFailed?.({ id: t.id, from: t.from, why });
    await this.#drop(t);
  }

  #refuse(from: number, chunk: IncomingChunk, why: string): ReceiveOutcome {
    this.refused += 1;
    this.#o.log?.({ msg: `${this.#o.what} chunk refused`, from, id: chunk.id, index: chunk.index, why });
    return { outcome: 'refused', why };
  }

  async #complete(t: Transfer): Promise<void> {
    const fail = async (why: string) => {
      this.#transfers.delete(t.id);
      await this.#drop(t);
      this.#o.log?.({ msg: `${this.#o.what} refused`, from: t.from, id: t.id, why });
      this.#o.onFailed?.({ id: t.id, from: t.from, why });
    };
    try {
      await t.writes;
      await (await t.file!).close();
      if (this.#transfers.get(t.id) !== t) return;
      if (t.bytes > t.maxBytes) return await fail(`${t.bytes} bytes, over its bound of ${t.maxBytes}`);
      const digest = await hashFile(t.temp);
      if (this.#transfers.get(t.id) !== t) return;
      if (digest.sha256 !== t.held!.sha256) return await fail('sha256 mismatch');
      const path = join(this.#o.dir, t.fileName);
      await rename(t.temp, path);
      this.#transfers.delete(t.id);
      this.#o.onComplete?.({ id: t.id, from: t.from, path, bytes: digest.bytes, sha256: digest.sha256 });
    } catch (error) {
      await fail(`not written: ${String(error)}`);
    }
  }

  async #drop(t: Transfer): Promise<void> {
    this.#o.clock?.clearTimeout(t.timer);
    await t.writes.catch(() => undefined);
    const file = await t.file?.catch(() => undefined);
    await file?.close().catch(() => undefined);
    await rm(t.temp, { force: true });
  }
}
