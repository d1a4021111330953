// The file and process functions the simulated game gives the mod's Lua state, backed by node:fs and
// the real clock (wasmoon's own io/os work on an in-memory file system). Bytes cross between JS and
// Lua as hex, because wasmoon converts strings as UTF-8 and a read by position may cut a character.
// Spec: docs/ENGINE.md §4 (the io/os subset), filelink-contract (O_APPEND, one write per batch).
import {
  closeSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { LuaMultiReturn } from 'wasmoon';

interface Handle {
  fd: number;
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
}

/**
 * The JS half of the io/os shim: functions on small integer handles. The Lua half (LUA_IO_PRELUDE)
 * wraps them into file objects with read/write/seek/close methods.
 */
export function createLuaFs(options: LuaFsOptions): { api: Record<string, unknown>; closeAll(): void } {
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
      done += h.append ? writeSync(h.fd, data, done) : writeSync(h.fd, data, done, data.length - done, h.pos + done);
    }
    if (!h.append) h.pos += data.length;
    else h.pos = fstatSync(h.fd).size;
  };

  const readBytes = (h: Handle, n: number): Buffer => {
    flush(h);
    const buf = Buffer.alloc(n);
    const got = readSync(h.fd, buf, 0, n, h.pos);
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
        const fd = openSync(path, spec.flags);
        const { readable, writable, append } = spec;
        const h: Handle = { fd, pos: 0, readable, writable, append, pending: [] };
        if (spec.append) h.pos = fstatSync(fd).size;
        const id = nextHandle++;
        handles.set(id, h);
        return id;
      } catch (e) {
        return errorText(path, e);
      }
    },
    /** Up to n bytes as hex; undefined (nil) at the end of the file. read(0) gives '' unless at the end. */
    read: guarded((id: number, n: number): string | undefined => {
      const h = get(id);
      if (!h.readable) return undefined;
      if (n <= 0) return h.pos < fstatSync(h.fd).size ? '' : undefined;
      const bytes = readBytes(h, Math.min(Math.floor(n), 1 << 30));
      return bytes.length === 0 ? undefined : bytes.toString('hex');
    }),
    readAll: guarded((id: number): string => {
      const h = get(id);
      if (!h.readable) return '';
      flush(h);
      const size = fstatSync(h.fd).size;
      return size > h.pos ? readBytes(h, size - h.pos).toString('hex') : '';
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
          return Buffer.concat(parts).toString('hex');
        }
        parts.push(chunk);
      }
      return parts.length === 0 ? undefined : Buffer.concat(parts).toString('hex');
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
        const base = whence === 'set' ? 0 : whence === 'end' ? fstatSync(h.fd).size : whence === 'cur' ? h.pos : NaN;
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
        closeSync(h.fd);
      }
    },
    rename(from: unknown, to: unknown): boolean | LuaMultiReturn {
      try {
        renameSync(String(from), String(to));
        return true;
      } catch (e) {
        return errorText(String(from), e);
      }
    },
    remove(path: unknown): boolean | LuaMultiReturn {
      try {
        unlinkSync(String(path));
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
      return Math.floor(Date.now() / 1000);
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
          closeSync(h.fd);
        }
      }
    },
  };
}
