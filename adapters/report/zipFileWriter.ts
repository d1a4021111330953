// A zip written to a file as it is made (issue 14 item 2: "streamed, never all in memory at once"), with fflate's
// streaming Zip API: each entry is a ZipDeflate fed piece by piece; what fflate outputs is appended to the file in
// order and hashed on the way (SHA-256 of the finished zip, for the chunked transfer). A writer waits while more than
// `highWater` bytes are waiting for the disk, so memory stays bounded by that plus one input piece.
import { createHash } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { Zip, ZipDeflate } from 'fflate';

export interface ZipResult {
  path: string;
  bytes: number;
  /** Lower-case hex. */
  sha256: string;
}

/** Bytes waiting for the disk above which an entry's writer waits: 1 MiB. */
const HIGH_WATER = 1 << 20;
/** Compression level: fflate's default. */
const LEVEL = 6;

export class ZipFileWriter {
  readonly path: string;
  readonly #file: FileHandle;
  readonly #zip: Zip;
  readonly #hash = createHash('sha256');
  #writes: Promise<void> = Promise.resolve();
  #queued = 0;
  #bytes = 0;
  #error: Error | undefined;
  #ended = false;

  private constructor(path: string, file: FileHandle) {
    this.path = path;
    this.#file = file;
    this.#zip = new Zip((error, data, final) => {
      if (error) {
        this.#error ??= error;
        return;
      }
      this.#append(data);
      if (final) this.#ended = true;
    });
  }

  /** Creates (or truncates) the zip file at `path`. */
  static async create(path: string): Promise<ZipFileWriter> {
    return new ZipFileWriter(path, await open(path, 'w'));
  }

  /** Adds one entry, its content from `pieces` in order; resolves with the content's length once it is all pushed. */
  async addEntry(name: string, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<number> {
    const entry = new ZipDeflate(name, { level: LEVEL });
    this.#zip.add(entry);
    let bytes = 0;
    for await (const piece of pieces) {
      if (piece.length === 0) continue;
      entry.push(piece, false);
      bytes += piece.length;
      await this.#drain(HIGH_WATER);
    }
    entry.push(new Uint8Array(0), true);
    await this.#drain(HIGH_WATER);
    return bytes;
  }

  /** Opens one entry to be fed by pushes (call `drain()` between pushes to bound memory); push `final` once. */
  openEntry(name: string): { push(data: Uint8Array, final: boolean): void } {
    const entry = new ZipDeflate(name, { level: LEVEL });
    this.#zip.add(entry);
    return { push: (data, final) => entry.push(data, final) };
  }

  /** Waits while more than 1 MiB is waiting for the disk. */
  async drain(): Promise<void> {
    await this.#drain(HIGH_WATER);
  }

  /** Writes the central directory, waits for the disk and closes the file. */
  async close(): Promise<ZipResult> {
    this.#zip.end();
    await this.#drain(0);
    await this.#file.close();
    if (this.#error) throw this.#error;
    if (!this.#ended) throw new Error('zip not ended');
    return { path: this.path, bytes: this.#bytes, sha256: this.#hash.digest('hex') };
  }

  /** Stops and removes the file. */
  async abort(): Promise<void> {
    this.#zip.terminate();
    await this.#writes.catch(() => undefined);
    await this.#file.close().catch(() => undefined);
    await rm(this.path, { force: true });
  }

  #append(data: Uint8Array): void {
    this.#hash.update(data);
    this.#bytes += data.length;
    this.#queued += data.length;
    this.#writes = this.#writes.then(async () => {
      await this.#file.write(data, 0, data.length);
      this.#queued -= data.length;
    });
  }

  async #drain(limit: number): Promise<void> {
    if (this.#error) throw this.#error;
    if (this.#queued > limit) await this.#writes;
  }
}
