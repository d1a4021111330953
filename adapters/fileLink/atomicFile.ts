// Atomic replacement of a small file: tmp → fsync → rename over the live name → fsync the folder (the session folder
// contract: identity.txt, resync_cursor.txt; reliability-tests §6 "replacement = stage, flush, swap", §7.7 D5).
// A reader sees the old or the new complete content, never an empty or partial file. The fs layer is injectable so
// tests can record the steps and crash at each one.
import * as fsp from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The part of a file handle that atomic replacement uses (node's `FileHandle` fits). */
export interface AtomicFileHandle {
  writeFile(data: string | Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file system calls atomic replacement uses (node's `fs/promises` fits); injectable for crash tests. */
export interface AtomicFs {
  open(path: string, flags: string): Promise<AtomicFileHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
}

/** The real file system. */
export const nodeAtomicFs: AtomicFs = {
  open: (path, flags) => fsp.open(path, flags),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  readdir: (path) => fsp.readdir(path),
};

export interface ReplaceOptions {
  /** The file system to use (default: the real one). */
  fs?: AtomicFs;
}

let tmpCounter = 0;

/** The prefix of every temporary file staged for `path`; {@link removeStaleTmpFiles} removes these. */
export function tmpPrefix(path: string): string {
  return `${basename(path)}.tmp-`;
}

/**
 * Replaces `path` with `content` atomically: writes a temporary file beside it (`<name>.tmp-<pid>-<n>`), fsyncs it,
 * renames it over `path`, then fsyncs the folder so the rename itself is durable. On failure the temporary file is
 * removed (when still possible) and the error is rethrown; `path` then still holds its old content.
 */
export async function replaceFile(
  path: string,
  content: string | Uint8Array,
  options: ReplaceOptions = {},
): Promise<void> {
  const fs = options.fs ?? nodeAtomicFs;
  const tmp = join(dirname(path), `${tmpPrefix(path)}${process.pid}-${++tmpCounter}`);
  try {
    const handle = await fs.open(tmp, 'wx');
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameWithRetry(fs, tmp, path);
  } catch (error) {
    await fs.unlink(tmp).catch(() => undefined);
    throw error;
  }
  await syncDir(fs, dirname(path));
}

/**
 * Removes temporary files a writer killed mid-replacement left beside `path`. Call it when the file's one writer
 * starts, before it replaces anything. Returns how many were removed.
 */
export async function removeStaleTmpFiles(path: string, options: ReplaceOptions = {}): Promise<number> {
  const fs = options.fs ?? nodeAtomicFs;
  const prefix = tmpPrefix(path);
  let names: string[];
  try {
    names = await fs.readdir(dirname(path));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    try {
      await fs.unlink(join(dirname(path), name));
      removed++;
    } catch {
      // gone already, or not ours to remove: either way nothing stale is left that we could fix
    }
  }
  return removed;
}

/** Reads a whole text file; `undefined` when it does not exist. Other errors are rethrown. */
export async function readTextFile(path: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// On Windows a rename over a file another process has open can fail for a moment (TPF2MP retries the same way).
const RETRY_CODES = new Set(['EBUSY', 'EPERM', 'EACCES']);
const RENAME_ATTEMPTS = 8;

async function renameWithRetry(fs: AtomicFs, from: string, to: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await fs.rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (attempt >= RENAME_ATTEMPTS || !RETRY_CODES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt));
    }
  }
}

// Folders cannot be opened or fsynced on Windows and some file systems; the rename is then as durable as they make it.
const NO_DIR_SYNC = new Set(['EISDIR', 'EPERM', 'EINVAL', 'EBADF', 'EACCES', 'ENOTSUP']);

async function syncDir(fs: AtomicFs, dir: string): Promise<void> {
  let handle: AtomicFileHandle;
  try {
    handle = await fs.open(dir, 'r');
  } catch (error) {
    if (NO_DIR_SYNC.has((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!NO_DIR_SYNC.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}
