// The file and process functions the simulated game gives the mod's Lua state. The files live behind a seam,
// LuaFileBackend: node:fs by default (nodeLuaFiles below), or an in-memory session folder (luaMemoryFiles.ts) so a
// whole session runs with no files at all (the simulator). Bytes cross between JS and Lua as hex, because wasmoon
// converts strings as UTF-8 and a read by position may cut a character.
// Spec: docs/ENGINE.md §4 (the io/os subset), filelink-contract (O_APPEND, one write per batch).
import {
  closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { LuaMultiReturn } from 'wasmoon';

/** One open file of a backend: its size now, reads by position, writes (at a position, or at the end: append). */
export interface LuaOpenFile {
  size(): number;
  /** Reads up to buffer.length bytes at `position` into buffer; returns how many. */
  read(buffer: Buffer, position: number): number;
  /** Writes `data` at `position`, or at the end when `position` is null (O_APPEND); returns the bytes written. */
  write(data: Buffer, position: number | null): number;
  close(): void;
}

/** The files the mod sees. Failures throw errors with a `code` (ENOENT, EISDIR, …) as node:fs does. */
export interface LuaFileBackend {
  /** flags: r, w, a, r+, w+, a+ (node's meaning). */
  open(path: string, flags: string): LuaOpenFile;
  rename(from: string, to: string): void;
  remove(path: string): void;
}

/** The real files (node:fs). */
export const nodeLuaFiles: LuaFileBackend = {
  open(path, flags) {
    const fd = openSync(path, flags);
    return {
      size: () => fstatSync(fd).size,
      read: (buffer, position) => readSync(fd, buffer, 0, buffer.length, position),
      write: (data, position) => (position === null ? writeSync(fd, data) : writeSync(fd, data, 0, data.length, position)),
      close: () => closeSync(fd),
    };
  },
  rename: (from, to) => renameSync(from, to),
  remove: (path) => unlinkSync(path),
};

interface Handle {
  file: LuaOpenFile;
  pos: number;
  readable: boolean;
  writable: boolean;
  append: boolean;
  /** Writes not yet handed to the system: C stdio buffers them too; flushed as ONE write(). */
  pending: Buffer[];
}

const FLAGS: Readonly<Record<string, { flags: string; readable: boolean; writable: boolean; append: boolean }>> = {
  r: { flags: 'r', readable: true, writable: false, append: false },
  w: { flags: 'w', readable: false, writable: true, append: false },
  a: { flags: 'a', readable: false, writable: true, append: true },
  'r+': { flags: 'r+', readable: true, writable: true, append: false },
  'w+': { flags: 'w+', readable: true, writable: true, append: false },
  'a+': { flags: 'a+', readable: true, writable: true, append: true },
};

/**
 * Bytes for Lua as a string: 'A' and the bytes themselves when every one is 1..127 (UTF-8 is then the identity,
 * and the link's lines almost always are), else 'H' and hex. The prelude's `tobytes` undoes it.
 */
function toLua(bytes: Buffer): string {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0 || b > 127) return 'H' + bytes.toString('hex');
  }
  return 'A' + bytes.toString('latin1');
}

const fail = (message: string, code = 0): LuaMultiReturn => LuaMultiReturn.from([undefined, message, code]);

function errorText(path: string, e: unknown): LuaMultiReturn {
  const err = e as NodeJS.ErrnoException;
  const text: Record<string, string> = {
    ENOENT: 'No such file or directory', EACCES: 'Permission denied', EISDIR: 'Is a directory',
    EEXIST: 'File exists', ENOTDIR: 'Not a directory', EBADF: 'Bad file descriptor',
  };
  return fail(`${path}: ${text[err.code ?? ''] ?? err.message}`, typeof err.errno === 'number' ? -err.errno : 0);
}

export interface LuaFsOptions {
  /** The environment os.getenv reads (the session environment given to the game). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Wall milliseconds, monotonic, for os.clock (seconds since the game started). */
  readonly wallMs: () => number;
  /** The files (default node:fs). */
  readonly files?: LuaFileBackend;
  /** Seconds since 1970 for os.time() (default the real clock). */
  readonly epochSeconds?: () => number;
}

/**
 * The JS half of the io/os shim: functions on small integer handles. The Lua half (LUA_IO_PRELUDE)
 * wraps them into file objects with read/write/seek/close methods.
 */
export function createLuaFs(options: LuaFsOptions): { api: Record<string, unknown>; closeAll(): void } {
  const files = options.files ?? nodeLuaFiles;
  const handles = new Map<number, Handle>();
  let nextHandle = 3;
  const start = options.wallMs();

  const get = (h: number): Handle => {
    const handle = handles.get(h);
    if (handle === undefined) throw new Error('attempt to use a closed file');
    return handle;
  };

  const flush = (h: Handle): void => {
    if (h.pending.length === 0) return;
    const data = h.pending.length === 1 ? h.pending[0]! : Buffer.concat(h.pending);
    h.pending = [];
    // One write() per batch; O_APPEND puts it at the end whatever the position says.
    let done = 0;
    while (done < data.length) {
      const rest = done === 0 ? data : data.subarray(done);
      done += h.file.write(rest, h.append ? null : h.pos + done);
    }
    if (!h.append) h.pos += data.length;
    else h.pos = h.file.size();
  };

  const readBytes = (h: Handle, n: number): Buffer => {
    flush(h);
    const buf = Buffer.alloc(n);
    const got = h.file.read(buf, h.pos);
    h.pos += got;
    return buf.subarray(0, got);
  };

  /** A read that fails in the system (a folder, a vanished file) answers nil, as C's fread does, never a Lua error. */
  const guarded = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A): R | undefined => {
    try {
      return fn(...args);
    } catch (e) {
      if ((e as Error).message === 'attempt to use a closed file') throw e;
      return undefined;
    }
  };

  const api = {
    open(path: unknown, mode: unknown): number | LuaMultiReturn {
      if (typeof path !== 'string') return fail('bad argument #1 to \'open\' (string expected)');
      const m = typeof mode === 'string' ? mode : 'r';
      // Lua 5.4's rule (liolib l_checkmode): one of r/w/a, an optional '+', then only 'b's.
      const spec = /^[rwa]\+?b*$/.test(m) ? FLAGS[m.replace(/b/g, '')] : undefined;
      if (spec === undefined) return fail(`bad argument #2 to 'open' (invalid mode '${m}')`);
      try {
        const file = files.open(path, spec.flags);
        const { readable, writable, append } = spec;
        const h: Handle = { file, pos: 0, readable, writable, append, pending: [] };
        if (spec.append) h.pos = file.size();
        const id = nextHandle++;
        handles.set(id, h);
        return id;
      } catch (e) {
        return errorText(path, e);
      }
    },
    /** Up to n bytes (toLua); undefined (nil) at the end of the file. read(0) gives '' unless at the end. */
    read: guarded((id: number, n: number): string | undefined => {
      const h = get(id);
      if (!h.readable) return undefined;
      if (n <= 0) return h.pos < h.file.size() ? '' : undefined;
      const bytes = readBytes(h, Math.min(Math.floor(n), 1 << 30));
      return bytes.length === 0 ? undefined : toLua(bytes);
    }),
    readAll: guarded((id: number): string => {
      const h = get(id);
      if (!h.readable) return '';
      flush(h);
      const size = h.file.size();
      return size > h.pos ? toLua(readBytes(h, size - h.pos)) : 'A';
    }),
    readLine: guarded((id: number, keepNewline: boolean): string | undefined => {
      const h = get(id);
      if (!h.readable) return undefined;
      const parts: Buffer[] = [];
      for (;;) {
        const start = h.pos;
        const chunk = readBytes(h, 4096);
        if (chunk.length === 0) break;
        const nl = chunk.indexOf(0x0a);
        if (nl >= 0) {
          parts.push(chunk.subarray(0, keepNewline ? nl + 1 : nl));
          h.pos = start + nl + 1;
          return toLua(Buffer.concat(parts));
        }
        parts.push(chunk);
      }
      return parts.length === 0 ? undefined : toLua(Buffer.concat(parts));
    }),
    readNumber: guarded((id: number): number | undefined => {
      const h = get(id);
      if (!h.readable) return undefined;
      const start = h.pos;
      const text = readBytes(h, 200).toString('latin1');
      const m = /^\s*([-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))/.exec(text);
      if (m === null) {
        h.pos = start;
        return undefined;
      }
      h.pos = start + m[0].length;
      return Number(m[1]);
    }),
    write(id: number, hex: string): boolean | LuaMultiReturn {
      const h = get(id);
      if (!h.writable) return fail('Bad file descriptor', 9);
      h.pending.push(Buffer.from(hex, 'hex'));
      return true;
    },
    /** write() of text whose bytes are all 1..127 (it arrives as itself). */
    writeText(id: number, text: string): boolean | LuaMultiReturn {
      const h = get(id);
      if (!h.writable) return fail('Bad file descriptor', 9);
      h.pending.push(Buffer.from(text, 'latin1'));
      return true;
    },
    flush(id: number): boolean | LuaMultiReturn {
      try {
        flush(get(id));
        return true;
      } catch (e) {
        return errorText('flush', e);
      }
    },
    seek(id: number, whence: unknown, offset: unknown): number | LuaMultiReturn {
      const h = get(id);
      const off = typeof offset === 'number' ? Math.floor(offset) : 0;
      try {
        flush(h);
        const base = whence === 'set' ? 0 : whence === 'end' ? h.file.size() : whence === 'cur' ? h.pos : NaN;
        if (Number.isNaN(base)) return fail(`bad argument #1 to 'seek' (invalid option '${String(whence)}')`);
        if (base + off < 0) return fail('Invalid argument', 22);
        h.pos = base + off;
        return h.pos;
      } catch (e) {
        return errorText('seek', e);
      }
    },
    close(id: number): boolean | LuaMultiReturn {
      const h = handles.get(id);
      if (h === undefined) return fail('attempt to use a closed file');
      handles.delete(id);
      try {
        flush(h);
        return true;
      } catch (e) {
        return errorText('close', e);
      } finally {
        h.file.close();
      }
    },
    rename(from: unknown, to: unknown): boolean | LuaMultiReturn {
      try {
        files.rename(String(from), String(to));
        return true;
      } catch (e) {
        return errorText(String(from), e);
      }
    },
    remove(path: unknown): boolean | LuaMultiReturn {
      try {
        files.remove(String(path));
        return true;
      } catch (e) {
        return errorText(String(path), e);
      }
    },
    getenv(name: unknown): string | undefined {
      return typeof name === 'string' && Object.hasOwn(options.env, name) ? options.env[name] : undefined;
    },
    clock(): number {
      return (options.wallMs() - start) / 1000;
    },
    time(): number {
      return Math.floor(options.epochSeconds ? options.epochSeconds() : Date.now() / 1000);
    },
  };
  return {
    api,
    closeAll(): void {
      for (const [id, h] of handles) {
        handles.delete(id);
        try {
          flush(h);
        } finally {
          h.file.close();
        }
      }
    },
  };
}
