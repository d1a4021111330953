// The file system of the link's reads (docs/FILE_LINK.md "Waking up"): the session folder's creation, identity.txt,
// where from_game.log's complete lines end, and the tail of a line file with what wakes it. The real one is node:fs
// with fs.watch of the folder and polling; memoryLink.ts wires a MemoryFs, woken by its writes. The writer's appends
// (lineWriter.ts AppendFs) and the replacements (atomicFile.ts AtomicFs) have their own seams.
import { watch as watchFolder, type FSWatcher } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { readTextFile } from './atomicFile.ts';

/** What the reader compares to notice a new file under the name (node's `Stats` fits). */
export interface LinkFileStat {
  ino: number;
  dev: number;
  size: number;
}

/** A file opened for reading (node's `FileHandle` fits, unwrapped: the tail reads on the action latency path). */
export interface LinkFileHandle {
  stat(): Promise<LinkFileStat>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

export interface LinkFs {
  /** Creates the folder and its parents when missing. */
  mkdir(path: string): Promise<void>;
  /** A small file's whole text (UTF-8); `undefined` when it does not exist. */
  readText(path: string): Promise<string | undefined>;
  /** Opens a file for reading; rejects with code `ENOENT` when it does not exist. */
  open(path: string): Promise<LinkFileHandle>;
  /** The file now under `path`; rejects with code `ENOENT` when there is none. */
  stat(path: string): Promise<LinkFileStat>;
  /**
   * Calls `onChange` once soon (the first look), then whenever the file under `path` may have changed (written,
   * created, replaced, removed); more calls than changes are fine. Returns the function that stops it.
   */
  watch(path: string, onChange: () => void): () => void;
}

export interface NodeWakeOptions {
  /** Poll interval in ms (default 25). Polling always runs, watching or not. */
  pollMs?: number;
  /** Also wake on fs.watch events of the folder (default true). */
  watch?: boolean;
}

const DEFAULT_POLL_MS = 25;

/** The real file system; its `watch` is fs.watch of the folder plus polling every `pollMs` (either alone is enough). */
export function nodeLinkFs(wake: NodeWakeOptions = {}): LinkFs {
  const pollMs = Math.max(1, wake.pollMs ?? DEFAULT_POLL_MS);
  const useWatch = wake.watch ?? true;
  return {
    mkdir: async (path) => {
      await fsp.mkdir(path, { recursive: true });
    },
    readText: readTextFile,
    open: (path) => fsp.open(path, 'r'),
    stat: (path) => fsp.stat(path),
    watch: (path, onChange) => watchAndPoll(path, onChange, pollMs, useWatch),
  };
}

function watchAndPoll(path: string, onChange: () => void, pollMs: number, useWatch: boolean): () => void {
  const name = basename(path);
  let watcher: FSWatcher | undefined;
  let stopped = false;
  // Watches the folder (the file may not exist yet, and a replacement is a new file under the name).
  const ensureWatcher = (): void => {
    if (!useWatch || watcher || stopped) return;
    try {
      const made = watchFolder(dirname(path), (_event, filename) => {
        if (filename === null || filename === name) onChange();
      });
      made.on('error', () => {
        made.close();
        if (watcher === made) watcher = undefined;
      });
      watcher = made;
    } catch {
      // folder not there yet (or no watch support): polling covers it, and the next tick tries again
    }
  };
  const timer = setInterval(() => {
    ensureWatcher();
    onChange();
  }, pollMs);
  ensureWatcher();
  onChange();
  return () => {
    stopped = true;
    clearInterval(timer);
    watcher?.close();
    watcher = undefined;
  };
}
