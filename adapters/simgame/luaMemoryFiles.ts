// The mod's files in an in-memory session folder (adapters/fileLink/memoryFs.ts): the LuaFileBackend of luaFs.ts
// over a MemoryFs, so the simulated game and its launcher share one folder with no files on disk (the simulator,
// test/sim). A handle keeps the inode it opened (reads follow it through a rename, as on disk); appends go
// through MemoryFs.appendFile (one write at the end, watchers woken), as an O_APPEND write.
import { fsError, type MemoryFs } from '../fileLink/memoryFs.ts';
import type { LuaFileBackend, LuaOpenFile } from './luaFs.ts';

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
      let closed = false;
      const live = (syscall: string): void => {
        if (closed) throw fsError('EBADF', syscall, path);
      };
      return {
        size: () => {
          live('fstat');
          return inode.size;
        },
        read: (buffer, position) => {
          live('read');
          const n = Math.max(0, Math.min(buffer.length, inode.size - position));
          if (n > 0) buffer.set(inode.bytes.subarray(position, position + n), 0);
          return n;
        },
        write: (data, position) => {
          live('write');
          if (position === null) {
            // O_APPEND: at the end of this handle's file, as one write; only when the name still holds it
            if (fs.inode(path) === inode) fs.appendFile(path, data);
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
        },
        close: () => {
          closed = true;
        },
      };
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
