// The one writer of a line file: appends complete lines only, each batch in ONE write() on an O_APPEND descriptor,
// and cuts a torn tail (bytes after the last `\n`, left by a writer killed mid-write) before appending
// (the session folder contract "Writers"; reliability-tests §7.7 D2).
import { open, type FileHandle } from 'node:fs/promises';
import { removeStaleTmpFiles, replaceFile, type AtomicFs } from './atomicFile.ts';
import { nodeLinkFs, type LinkFileHandle, type LinkFs } from './linkFs.ts';

/** The part of a file handle the line writer uses (node's `FileHandle` through {@link nodeAppendFs}). */
export interface AppendFileHandle {
  stat(): Promise<{ size: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  /** Writes at the end of the file (the handle is opened for appending; `position` is always null). */
  write(buffer: Buffer, offset: number, length: number, position: null): Promise<{ bytesWritten: number }>;
  truncate(length: number): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

/** How the line writer opens its file (the real file system by default); injectable so tests can fail appends. */
export interface AppendFs {
  open(path: string, flags: 'a+'): Promise<AppendFileHandle>;
}

/** The real file system for appends. */
export const nodeAppendFs: AppendFs = {
  open: async (path, flags) => wrapHandle(await open(path, flags)),
};

function wrapHandle(handle: FileHandle): AppendFileHandle {
  return {
    stat: () => handle.stat(),
    read: (buffer, offset, length, position) => handle.read(buffer, offset, length, position),
    write: (buffer, offset, length, position) => handle.write(buffer, offset, length, position),
    truncate: (length) => handle.truncate(length),
    datasync: () => handle.datasync(),
    close: () => handle.close(),
  };
}

export interface LineWriterOptions {
  /** Start a new generation: replace the file by an empty one (a new inode) instead of appending to it. */
  replace?: boolean;
  /** The file system for the replacement (tests). */
  fs?: AtomicFs;
  /** The file system for the appends (tests inject failing writes here); default the real one. */
  appendFs?: AppendFs;
}

/**
 * Appends lines to one file. Writes are serialised in call order. A failed write rejects and leaves the file as it
 * was before that batch (complete lines only); the caller may retry the same batch (gameLink's send queue does).
 */
export interface LineWriter {
  /**
   * Appends `lines` as one write() call. Each line may end in `\n` (added when missing) and must contain no other
   * `\n`; otherwise the promise rejects with a TypeError and nothing is written. An empty batch writes nothing.
   */
  write(lines: string[]): Promise<void>;
  /** Bytes of complete lines in the file: the position just after the last line written. */
  get size(): number;
  /** Bytes of torn tail cut when the file was opened (0 when it ended in `\n`). */
  readonly repairedBytes: number;
  /** fdatasync after the writes queued so far (the link does not call it per line: docs/FILE_LINK.md). */
  sync(): Promise<void>;
  /** Waits for queued writes, then closes the file. Later writes reject. */
  close(): Promise<void>;
}

/**
 * Opens `path` for appending lines, creating it when missing. An existing file is first cut back to its last `\n`
 * (a torn tail is never completed by the next line: that would glue two lines). With `replace`, the file is replaced
 * by an empty one first (tmp → fsync → rename), so readers holding the old one see a new inode.
 */
export async function openLineWriter(path: string, options: LineWriterOptions = {}): Promise<LineWriter> {
  if (options.replace) {
    const fsOption = options.fs ? { fs: options.fs } : {};
    await removeStaleTmpFiles(path, fsOption);
    await replaceFile(path, '', fsOption);
  }
  const handle = await (options.appendFs ?? nodeAppendFs).open(path, 'a+');
  try {
    const { size } = await handle.stat();
    const keep = await lastLineEnd(handle, size);
    if (keep < size) await handle.truncate(keep);
    return new AppendWriter(handle, keep, size - keep);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Where the complete lines of `path` end: just after its last `\n` (0 when it is missing or has none). */
export async function completeLinesEnd(path: string, fs: Pick<LinkFs, 'open'> = nodeLinkFs()): Promise<number> {
  let handle: LinkFileHandle;
  try {
    handle = await fs.open(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    return await lastLineEnd(handle, (await handle.stat()).size);
  } finally {
    await handle.close();
  }
}

const SCAN_CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** The offset just after the last `\n` among the first `size` bytes (0 when there is none). */
async function lastLineEnd(handle: Pick<AppendFileHandle, 'read'>, size: number): Promise<number> {
  const buffer = Buffer.alloc(Math.min(SCAN_CHUNK, size));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - SCAN_CHUNK);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    const at = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}

class AppendWriter implements LineWriter {
  readonly repairedBytes: number;
  #handle: AppendFileHandle;
  #size: number;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  /** A failed append may have left bytes after `#size` that could not be cut yet: cut them before the next one. */
  #torn = false;

  constructor(handle: AppendFileHandle, size: number, repairedBytes: number) {
    this.#handle = handle;
    this.#size = size;
    this.repairedBytes = repairedBytes;
  }

  get size(): number {
    return this.#size;
  }

  write(lines: string[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('line writer is closed'));
    let text = '';
    for (const line of lines) {
      const body = line.endsWith('\n') ? line.slice(0, -1) : line;
      if (body.includes('\n')) return Promise.reject(new TypeError('a line must not contain a newline'));
      text += `${body}\n`;
    }
    if (text === '') return this.#queue;
    const bytes = Buffer.from(text, 'utf8');
    return this.#enqueue(() => this.#append(bytes));
  }

  sync(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('line writer is closed'));
    return this.#enqueue(() => this.#handle.datasync());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.#handle.close();
  }

  #enqueue(job: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(job);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #append(bytes: Buffer): Promise<void> {
    if (this.#torn) {
      // The last failed append could not cut what it wrote: appending now would glue two lines. Throws until it can.
      await this.#handle.truncate(this.#size);
      this.#torn = false;
    }
    try {
      let written = 0;
      // One write() per batch; a regular file takes it whole. The loop only guards against a short write.
      while (written < bytes.length) {
        const { bytesWritten } = await this.#handle.write(bytes, written, bytes.length - written, null);
        if (bytesWritten <= 0) throw new Error('write() wrote nothing');
        written += bytesWritten;
      }
      this.#size += bytes.length;
    } catch (error) {
      // A batch that failed half-way (disk full) must not leave a torn tail for the next batch to glue onto.
      await this.#handle.truncate(this.#size).catch(() => {
        this.#torn = true;
      });
      throw error;
    }
  }
}
