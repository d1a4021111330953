// An in-memory file system for session folders (DESIGN.md "Actors": the same sessions run over the simulator's
// in-memory network and folder; docs/FILE_LINK.md). It implements the file link's seams, AppendFs (lineWriter.ts:
// to_game.log's appends) and AtomicFs (atomicFile.ts: replacement of to_game.log, identity.txt, resync_cursor.txt),
// and backs its LinkFs (linkFs.ts: the reads; memoryLink.ts wires it), with the semantics the link relies on: files
// are inodes, a handle keeps its inode through a rename or unlink, a rename over a name swaps the inode atomically, an
// append is one write at the end. The game's side (a simulated game, a test) reads and writes through the plain
// methods below; watchers hear every change.
// Nothing here is asynchronous of its own accord: every promise resolves on a microtask.
import { dirname, normalize } from 'node:path';
import type { AtomicFileHandle, AtomicFs } from './atomicFile.ts';
import type { AppendFileHandle, AppendFs } from './lineWriter.ts';
import type { LinkFileHandle } from './linkFs.ts';

/** One file's content; its identity is the object (and `ino`). */
export interface MemoryInode {
  readonly ino: number;
  bytes: Uint8Array;
  size: number;
}

/** The operations a fault hook can fail. */
export type MemoryFsOp = 'open' | 'append' | 'truncate' | 'rename' | 'unlink' | 'readdir' | 'writeFile' | 'sync' | 'mkdir';

/**
 * What a fault hook returns: nothing (the operation runs), an error (it fails, nothing done), or for `append` an
 * error after `partial` bytes were written (`'half'`: half of them, at least 1) — a disk that filled up mid-write.
 */
export type MemoryFault = undefined | Error | { error: Error; partial: number | 'half' };

type Entry = { kind: 'file'; inode: MemoryInode } | { kind: 'dir' };

/** A handle of {@link MemoryFs.open}: what the writer, the replacements and the reader use. */
export type MemoryFileHandle = AppendFileHandle & AtomicFileHandle & LinkFileHandle;

const DESCRIPTIONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  ENOTDIR: 'not a directory',
  EISDIR: 'illegal operation on a directory',
  EBADF: 'bad file descriptor',
  EINVAL: 'invalid argument',
  ENOSPC: 'no space left on device',
};

/** An error shaped like Node's fs errors: `CODE: description, syscall 'path'` with `code`, `syscall`, `path`. */
export function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${DESCRIPTIONS[code] ?? 'error'}, ${syscall} '${path}'`);
  error.code = code;
  error.syscall = syscall;
  error.path = path;
  return error;
}

const utf8 = new TextEncoder();
const toBytes = (data: string | Uint8Array): Uint8Array => (typeof data === 'string' ? utf8.encode(data) : data);

/** A file system in memory: paths are normalised (node:path), the roots (`/`, `.`) always exist. */
export class MemoryFs implements AppendFs, AtomicFs {
  /** Consulted before every operation of the launcher's seams (AppendFs, AtomicFs, LinkFs's opens): tests fail them here. */
  fault: ((op: MemoryFsOp, path: string) => MemoryFault) | undefined;
  #entries = new Map<string, Entry>();
  #nextIno = 1;
  #watchers = new Set<(path: string) => void>();

  constructor() {}

  // ---- paths ----

  // The same few paths are asked for every frame (to_game.log, the mod's state file): their keys are remembered.
  #keys = new Map<string, string>();

  #key(path: string): string {
    let key = this.#keys.get(path);
    if (key === undefined) {
      const p = normalize(path);
      key = p.length > 1 && /[\\/]$/.test(p) ? p.slice(0, -1) : p;
      if (this.#keys.size >= 4096) this.#keys.clear();
      this.#keys.set(path, key);
    }
    return key;
  }

  #isRoot(key: string): boolean {
    return key.length <= 3 && dirname(key) === key; // '/', '.', or a drive's root
  }

  #entry(key: string): Entry | undefined {
    if (this.#isRoot(key)) return { kind: 'dir' };
    return this.#entries.get(key);
  }

  /** The parent folder must exist and be a folder. */
  #checkParent(key: string, syscall: string, path: string): void {
    const parent = this.#entry(dirname(key));
    if (parent === undefined) throw fsError('ENOENT', syscall, path);
    if (parent.kind !== 'dir') throw fsError('ENOTDIR', syscall, path);
  }

  #fault(op: MemoryFsOp, path: string): void {
    const fault = this.fault?.(op, path);
    if (fault === undefined) return;
    throw fault instanceof Error ? fault : fault.error;
  }

  #notify(path: string): void {
    for (const watcher of [...this.#watchers]) {
      try {
        watcher(path);
      } catch {
        // a watcher's fault is its own
      }
    }
  }

  #newInode(bytes: Uint8Array = new Uint8Array(0)): MemoryInode {
    const copy = new Uint8Array(Math.max(64, bytes.length));
    copy.set(bytes);
    return { ino: this.#nextIno++, bytes: copy, size: bytes.length };
  }

  // ---- the game's side and tests: synchronous ----

  /** Hears every change: the path written, created, truncated, renamed (both names) or removed. */
  watch(listener: (path: string) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  /** Creates a folder and its parents (ENOTDIR when a file is in the way). */
  mkdir(path: string): void {
    const key = this.#key(path);
    const chain: string[] = [];
    for (let k = key; !this.#isRoot(k); k = dirname(k)) chain.unshift(k);
    for (const k of chain) {
      const entry = this.#entries.get(k);
      if (entry === undefined) this.#entries.set(k, { kind: 'dir' });
      else if (entry.kind !== 'dir') throw fsError(k === key ? 'EEXIST' : 'ENOTDIR', 'mkdir', path);
    }
  }

  /** The inode now under `path` (undefined: none, or a folder). */
  inode(path: string): MemoryInode | undefined {
    const entry = this.#entry(this.#key(path));
    return entry?.kind === 'file' ? entry.inode : undefined;
  }

  stat(path: string): { kind: 'file'; ino: number; size: number } | { kind: 'dir' } | undefined {
    const entry = this.#entry(this.#key(path));
    if (entry === undefined) return undefined;
    return entry.kind === 'dir' ? { kind: 'dir' } : { kind: 'file', ino: entry.inode.ino, size: entry.inode.size };
  }

  /** A copy of the file's bytes (ENOENT / EISDIR thrown). */
  readFile(path: string): Uint8Array {
    const entry = this.#entry(this.#key(path));
    if (entry === undefined) throw fsError('ENOENT', 'open', path);
    if (entry.kind === 'dir') throw fsError('EISDIR', 'read', path);
    return entry.inode.bytes.slice(0, entry.inode.size);
  }

  /** The file as UTF-8 text, undefined when it does not exist (EISDIR thrown). */
  readText(path: string): string | undefined {
    const entry = this.#entry(this.#key(path));
    if (entry === undefined) return undefined;
    return new TextDecoder().decode(this.readFile(path));
  }

  /** Appends in one write (creating the file), as a game's O_APPEND write. */
  appendFile(path: string, data: string | Uint8Array): void {
    const inode = this.#openForWrite(path);
    appendTo(inode, toBytes(data));
    this.#notify(this.#key(path));
  }

  /** Rewrites the file in place (same inode): truncate, then write, like fs.writeFileSync. */
  writeFile(path: string, data: string | Uint8Array): void {
    const inode = this.#openForWrite(path);
    inode.size = 0;
    appendTo(inode, toBytes(data));
    this.#notify(this.#key(path));
  }

  /** Puts a NEW inode with `data` under `path` in one step (a rename over it). */
  replaceFile(path: string, data: string | Uint8Array): void {
    const key = this.#key(path);
    this.#checkParent(key, 'rename', path);
    if (this.#entries.get(key)?.kind === 'dir') throw fsError('EISDIR', 'rename', path);
    this.#entries.set(key, { kind: 'file', inode: this.#newInode(toBytes(data)) });
    this.#notify(key);
  }

  /** Cuts the file in place to `size` bytes. */
  truncate(path: string, size: number): void {
    const inode = this.inode(path);
    if (inode === undefined) throw fsError('ENOENT', 'truncate', path);
    inode.size = Math.min(inode.size, size);
    this.#notify(this.#key(path));
  }

  /** Removes a file (or an empty folder); nothing when it does not exist. */
  remove(path: string): void {
    const key = this.#key(path);
    if (!this.#entries.delete(key)) return;
    this.#notify(key);
  }

  /** Names directly inside a folder, sorted. */
  list(path: string): string[] {
    const key = this.#key(path);
    const entry = this.#entry(key);
    if (entry === undefined) throw fsError('ENOENT', 'scandir', path);
    if (entry.kind !== 'dir') throw fsError('ENOTDIR', 'scandir', path);
    const names: string[] = [];
    for (const k of this.#entries.keys()) if (k !== key && dirname(k) === key) names.push(k.slice(key.length).replace(/^[\\/]/, ''));
    return names.sort();
  }

  #openForWrite(path: string): MemoryInode {
    const key = this.#key(path);
    const entry = this.#entries.get(key);
    if (entry?.kind === 'dir') throw fsError('EISDIR', 'open', path);
    if (entry !== undefined) return entry.inode;
    this.#checkParent(key, 'open', path);
    const inode = this.#newInode();
    this.#entries.set(key, { kind: 'file', inode });
    return inode;
  }

  // ---- AppendFs (lineWriter.ts) ----

  async open(path: string, flags: string): Promise<MemoryFileHandle> {
    const key = this.#key(path);
    this.#fault('open', path);
    const entry = this.#entry(key);
    if (flags === 'a+') {
      const inode = this.#openForWrite(path);
      return this.#handle(key, path, inode, { append: true });
    }
    if (flags === 'wx') {
      if (entry !== undefined) throw fsError('EEXIST', 'open', path);
      this.#checkParent(key, 'open', path);
      const inode = this.#newInode();
      this.#entries.set(key, { kind: 'file', inode });
      this.#notify(key);
      return this.#handle(key, path, inode, { append: false });
    }
    if (flags === 'r') {
      if (entry === undefined) throw fsError('ENOENT', 'open', path);
      return this.#handle(key, path, entry.kind === 'file' ? entry.inode : undefined, { append: false });
    }
    throw fsError('EINVAL', 'open', path);
  }

  #handle(key: string, path: string, inode: MemoryInode | undefined, mode: { append: boolean }): MemoryFileHandle {
    let closed = false;
    const live = (syscall: string): MemoryInode => {
      if (closed) throw fsError('EBADF', syscall, path);
      if (inode === undefined) throw fsError('EISDIR', syscall, path);
      return inode;
    };
    return {
      stat: async () => {
        const file = live('fstat');
        return { size: file.size, ino: file.ino, dev: 0 };
      },
      read: async (buffer, offset, length, position) => {
        const file = live('read');
        const end = Math.min(file.size, position + length);
        const n = Math.max(0, end - position);
        buffer.set(file.bytes.subarray(position, position + n), offset);
        return { bytesRead: n };
      },
      write: async (buffer, offset, length) => {
        const file = live('write');
        if (!mode.append) throw fsError('EBADF', 'write', path);
        const bytes = buffer.subarray(offset, offset + length);
        const fault = this.fault?.('append', path);
        if (fault !== undefined) {
          if (!(fault instanceof Error)) {
            const partial = fault.partial === 'half' ? Math.max(1, Math.floor(length / 2)) : fault.partial;
            appendTo(file, bytes.subarray(0, Math.min(partial, length)));
            this.#notify(key);
            throw fault.error;
          }
          throw fault;
        }
        appendTo(file, bytes);
        this.#notify(key);
        return { bytesWritten: length };
      },
      truncate: async (length) => {
        const file = live('ftruncate');
        this.#fault('truncate', path);
        file.size = Math.min(file.size, length);
        this.#notify(key);
      },
      datasync: async () => {
        live('fdatasync');
        this.#fault('sync', path);
      },
      writeFile: async (data) => {
        const file = live('write');
        this.#fault('writeFile', path);
        file.size = 0;
        appendTo(file, toBytes(data));
        this.#notify(key);
      },
      sync: async () => {
        if (closed) throw fsError('EBADF', 'fsync', path);
        this.#fault('sync', path);
      },
      close: async () => {
        closed = true;
      },
    };
  }

  // ---- AtomicFs (atomicFile.ts) ----

  async rename(from: string, to: string): Promise<void> {
    this.#fault('rename', to);
    const fromKey = this.#key(from);
    const toKey = this.#key(to);
    const entry = this.#entries.get(fromKey);
    if (entry === undefined) throw fsError('ENOENT', 'rename', from);
    const target = this.#entries.get(toKey);
    if (target?.kind === 'dir') throw fsError('EISDIR', 'rename', to);
    this.#checkParent(toKey, 'rename', to);
    this.#entries.delete(fromKey);
    this.#entries.set(toKey, entry);
    this.#notify(fromKey);
    this.#notify(toKey);
  }

  async unlink(path: string): Promise<void> {
    this.#fault('unlink', path);
    const key = this.#key(path);
    const entry = this.#entries.get(key);
    if (entry === undefined) throw fsError('ENOENT', 'unlink', path);
    if (entry.kind === 'dir') throw fsError('EISDIR', 'unlink', path);
    this.#entries.delete(key);
    this.#notify(key);
  }

  async readdir(path: string): Promise<string[]> {
    this.#fault('readdir', path);
    return this.list(path);
  }
}

function appendTo(inode: MemoryInode, bytes: Uint8Array): void {
  const need = inode.size + bytes.length;
  if (need > inode.bytes.length) {
    const grown = new Uint8Array(Math.max(need, inode.bytes.length * 2));
    grown.set(inode.bytes.subarray(0, inode.size));
    inode.bytes = grown;
  }
  inode.bytes.set(bytes, inode.size);
  inode.size = need;
}
