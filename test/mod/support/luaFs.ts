// The io/os subset of docs/ENGINE.md §4 for a wasmoon Lua state, backed by node:fs (wasmoon's own io works on an
// in-memory file system). Bytes cross the JS/Lua border as hex, because wasmoon converts strings as UTF-8.
// Test support for the mod's suites; the simulated game keeps its own shim with the same subset.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type { LuaEngine } from 'wasmoon';

/** Wall time the mod sees through os.clock(), in ms; tests move it by hand. */
export interface WallClock {
  ms: number;
}

interface OpenFile {
  fd: number;
  pos: number;
}

/** The Lua half of the shim: `io.open` and `os.getenv`/`os.clock` over the JS functions in `__fl3host`. */
export const SHIM_LUA = `
local host = __fl3host
__fl3host = nil
local function fromHex(h) return (h:gsub('..', function(x) return string.char(tonumber(x, 16)) end)) end
local function toHex(s) return (s:gsub('.', function(c) return string.format('%02x', string.byte(c)) end)) end
local File = {}
File.__index = File
function File:seek(whence, off) return host.seek(self.h, whence or 'cur', off or 0) end
function File:read(n)
  if type(n) ~= 'number' then error('the test io shim reads a number of bytes only (docs/ENGINE.md section 4)') end
  local h = host.read(self.h, n)
  if h == nil then return nil end
  return fromHex(h)
end
function File:write(s)
  local r = host.write(self.h, toHex(s))
  if r ~= true then return nil, r end
  return self
end
function File:close() host.close(self.h) return true end
io = { open = function(path, mode)
  local r = host.open(path, mode or 'r')
  if type(r) ~= 'number' then return nil, r end
  return setmetatable({ h = r }, File)
end }
os = { getenv = function(name) return host.getenv(name) end, clock = function() return host.clock() end }
`;

/** Installs `io` and `os` (the ENGINE.md subset) into a wasmoon state; `env` is what os.getenv sees. */
export function installLuaFs(lua: LuaEngine, env: Record<string, string | undefined>, wall: WallClock): () => void {
  const files = new Map<number, OpenFile>();
  let next = 1;
  const host = {
    open: (path: string, mode: string): number | string => {
      const flags = mode.startsWith('a') ? 'a' : mode.startsWith('w') ? 'w' : 'r';
      try {
        const fd = openSync(path, flags);
        const h = next++;
        files.set(h, { fd, pos: 0 });
        return h;
      } catch (err) {
        return `${path}: ${(err as Error).message}`;
      }
    },
    seek: (h: number, whence: string, off: number): number => {
      const f = files.get(h);
      if (!f) throw new Error('seek on a closed file');
      if (whence === 'end') f.pos = fstatSync(f.fd).size + off;
      else if (whence === 'set') f.pos = off;
      else f.pos += off;
      return f.pos;
    },
    read: (h: number, n: number): string | undefined => {
      const f = files.get(h);
      if (!f) throw new Error('read on a closed file');
      const buf = Buffer.alloc(n);
      const got = readSync(f.fd, buf, 0, n, f.pos);
      if (got === 0) return undefined; // wasmoon chokes on a returned null
      f.pos += got;
      return buf.subarray(0, got).toString('hex');
    },
    write: (h: number, hex: string): true | string => {
      const f = files.get(h);
      if (!f) return 'write on a closed file';
      writeSync(f.fd, Buffer.from(hex, 'hex'));
      return true;
    },
    close: (h: number): void => {
      const f = files.get(h);
      if (f) closeSync(f.fd);
      files.delete(h);
    },
    getenv: (name: string): string | undefined => env[name],
    clock: (): number => wall.ms / 1000,
  };
  lua.global.set('__fl3host', host);
  lua.doStringSync(SHIM_LUA);
  return () => {
    for (const f of files.values()) closeSync(f.fd);
    files.clear();
  };
}
