// The mod's files in an in-memory session folder (adapters/fileLink/memoryFs.ts): the LuaFileBackend of luaFs.ts
// over a MemoryFs, so the simulated game and its launcher share one folder with no files on disk (the simulator,
// test/sim). A handle keeps the inode it opened (reads follow it through a rename, as on disk); appends go
// through MemoryFs.appendFile (one write at the end, watchers woken), as an O_APPEND write.
import { fsError, type MemoryFs, type MemoryInode } from '../fileLink/memoryFs.ts';
import type { LuaFileBackend, LuaOpenFile } from './luaFs.ts';

/**
 * One open file: the inode it opened. A class, not closures: the mod opens to_game.log and its state file every
 * frame, and five closures an open were a tenth of the simulator's file time.
 */
class MemoryLuaFile implements LuaOpenFile {
  #closed = false;
  private readonly fs: MemoryFs;
  private readonly path: string;
  private readonly inode: MemoryInode;

  constructor(fs: MemoryFs, path: string, inode: MemoryInode) {
    this.fs = fs;
    this.path = path;
    this.inode = inode;
  }

  #live(syscall: string): void {
    if (this.#closed) throw fsError('EBADF', syscall, this.path);
  }

  size(): number {
    this.#live('fstat');
    return this.inode.size;
  }

  read(buffer: Buffer, position: number): number {
    this.#live('read');
    const n = Math.max(0, Math.min(buffer.length, this.inode.size - position));
    if (n > 0) buffer.set(this.inode.bytes.subarray(position, position + n), 0);
    return n;
  }

  write(data: Buffer, position: number | null): number {
    this.#live('write');
    const { fs, path } = this;
    if (position === null) {
      // O_APPEND: at the end of this handle's file, as one write; only when the name still holds it
      if (fs.inode(path) === this.inode) fs.appendFile(path, data);
      else throw fsError('ENOENT', 'write', path);
      return data.length;
    }
    // a write at a position: the mod never does one in the session folder; through writeFile to wake readers
    const bytes = fs.readFile(path);
    const end = Math.max(bytes.length, position + data.length);
    const out = new Uint8Array(end);
    out.set(bytes, 0);
    out.set(data, position);
    fs.writeFile(path, out);
    return data.length;
  }

  close(): void {
    this.#closed = true;
  }
}

/** The LuaFileBackend of a MemoryFs. */
export function luaMemoryFiles(fs: MemoryFs): LuaFileBackend {
  return {
    open(path, flags): LuaOpenFile {
      const named = fs.stat(path);
      if (named?.kind === 'dir') throw fsError('EISDIR', 'open', path);
      const creates = flags.startsWith('w') || flags.startsWith('a');
      if (named === undefined && !creates) throw fsError('ENOENT', 'open', path);
      if (flags.startsWith('w')) fs.writeFile(path, '');
      else if (named === undefined) fs.appendFile(path, '');
      const inode = fs.inode(path);
      if (inode === undefined) throw fsError('ENOENT', 'open', path);
      return new MemoryLuaFile(fs, path, inode);
    },
    rename: (from, to) => {
      const entry = fs.readFile(from);
      fs.replaceFile(to, entry);
      fs.remove(from);
    },
    remove: (path) => {
      if (fs.stat(path) === undefined) throw fsError('ENOENT', 'unlink', path);
      fs.remove(path);
    },
  };
}
