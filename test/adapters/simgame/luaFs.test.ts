// The io/os shim of the simulated game's Lua state, against real temp files: read by position with
// exact bytes, append in one write at close, seek, lines, errors; os.getenv / clock / rename / remove.
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { FIXTURE_MOD, gameWithMod, manualClock, tempDir } from './support.ts';

/** Lua helper put in the state: a string as hex, so the test sees the exact bytes. */
const HEX = "function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end";

const hex = (s: string): string => Buffer.from(s).toString('hex');

let tmp: ReturnType<typeof tempDir>;
let host: LuaHost;
let clock: ReturnType<typeof manualClock>;

beforeEach(async () => {
  tmp = tempDir();
  clock = manualClock(1_000);
  ({ host } = await gameWithMod({ modDir: FIXTURE_MOD, sessionDir: tmp.dir, now: clock.now }));
  host.run(HEX);
  host.run(`dir = ${JSON.stringify(tmp.dir)}`);
});
afterEach(() => {
  host.close();
  tmp.cleanup();
});

describe('Lua io shim', () => {
  it('reads by position, byte for byte, across characters of several bytes', () => {
    const bytes = Buffer.concat([Buffer.from('héllo\n', 'utf8'), Buffer.from([0x00, 0xff, 0xc3]), Buffer.from('end')]);
    writeFileSync(join(tmp.dir, 'f.bin'), bytes);
    expect(host.run(`
      local f = assert(io.open(dir .. '/f.bin', 'rb'))
      local size = f:seek('end')
      assert(f:seek('set', 2) == 2)
      local a = f:read(3)          -- cuts 'é' in the middle: the second byte of it, then 'll'
      local b = f:read(100)
      local c = f:read(1)          -- at the end: nil
      f:close()
      return size .. ' ' .. hex(a) .. ' ' .. hex(b) .. ' ' .. tostring(c)
    `)).toBe(`${bytes.length} ${bytes.subarray(2, 5).toString('hex')} ${bytes.subarray(5).toString('hex')} nil`);
  });

  it('appends with ab: buffered until close, then one write at the end, even after another writer', () => {
    const path = join(tmp.dir, 'out.log');
    writeFileSync(path, 'first\n');
    host.run(`f = assert(io.open(dir .. '/out.log', 'ab')); assert(f:write('a\\t{"x":1}\\n', 'b\\n') == f)`);
    // Nothing reached the file yet: the batch goes out in one piece.
    expect(readFileSync(path, 'utf8')).toBe('first\n');
    appendFileSync(path, 'other\n');
    host.run('f:close()');
    expect(readFileSync(path, 'utf8')).toBe('first\nother\na\t{"x":1}\nb\n');
    host.run(`local g = assert(io.open(dir .. '/out.log', 'a')); g:write(42, '\\n'); g:close()`);
    expect(readFileSync(path, 'utf8')).toBe('first\nother\na\t{"x":1}\nb\n42\n');
  });

  it('creates with ab, truncates with w/wb, and moves exact bytes on write', () => {
    host.run(`local f = assert(io.open(dir .. '/new.log', 'ab')); f:write('x'); f:close()`);
    expect(readFileSync(join(tmp.dir, 'new.log'), 'utf8')).toBe('x');
    host.run(`local f = assert(io.open(dir .. '/new.log', 'wb')); f:write('\\0\\255é'); f:close()`);
    expect(readFileSync(join(tmp.dir, 'new.log'))).toEqual(Buffer.from([0x00, 0xff, 0xc3, 0xa9]));
    host.run(`local f = assert(io.open(dir .. '/new.log', 'w')); f:close()`);
    expect(statSync(join(tmp.dir, 'new.log')).size).toBe(0);
  });

  it('reads *a, *l, *L, n and lines like Lua', () => {
    writeFileSync(join(tmp.dir, 't.txt'), 'one\ntwo\r\n 42.5 rest\nlast');
    expect(host.run(`
      local f = assert(io.open(dir .. '/t.txt', 'r'))
      local l1, l2 = f:read('*l', 'L')
      local n = f:read('n')
      local rest = f:read('*a')
      local again = f:read('a')
      f:close()
      local lines = {}
      for line in io.lines(dir .. '/t.txt') do lines[#lines + 1] = line end
      return table.concat({ l1, hex(l2), tostring(n), hex(rest), '[' .. again .. ']', #lines, lines[4] }, '|')
    `)).toBe(['one', hex('two\r\n'), '42.5', hex(' rest\nlast'), '[]', '4', 'last'].join('|'));
  });

  it('answers nil and a message for a missing file, and refuses a bad mode', () => {
    expect(host.run(`local f, err = io.open(dir .. '/none.txt', 'rb') return tostring(f) .. '|' .. err`))
      .toMatch(/^nil\|.*none\.txt: No such file or directory$/);
    expect(host.run(`local ok, err = pcall(io.open, dir .. '/x', 'q') return tostring(ok) .. ' ' .. err`))
      .toMatch(/^false .*invalid mode/);
    expect(host.run(`local f = io.open(dir .. '/x2', 'w'); f:close(); local ok = pcall(f.read, f) return ok`))
      .toBe(false);
    expect(host.run(`return io.type(io.open(dir .. '/x2', 'r')) .. ' ' .. tostring(io.type(42))`)).toBe('file nil');
    // A folder opens for reading (as with fopen on Linux) but reads give nil, never a Lua error.
    expect(host.run(`local f = io.open(dir, 'rb') local a, b = f:read('a'), f:read(10) f:close()
      return tostring(a) .. ' ' .. tostring(b)`)).toBe('nil nil');
  });

  it('gives os.getenv the session environment, os.clock wall seconds, and real rename/remove', () => {
    expect(host.run(`return os.getenv('FEVERLINK3_SESSION_DIR')`)).toBe(tmp.dir);
    expect(host.run(`return tostring(os.getenv('HOME_OF_NOBODY'))`)).toBe('nil');
    const c0 = host.run('return os.clock()') as number;
    clock.advance(1_500);
    expect((host.run('return os.clock()') as number) - c0).toBeCloseTo(1.5, 6);
    expect(Math.abs((host.run('return os.time()') as number) - Date.now() / 1000)).toBeLessThan(5);
    writeFileSync(join(tmp.dir, 'a.tmp'), 'cursor');
    expect(host.run(`return os.rename(dir .. '/a.tmp', dir .. '/b.txt')`)).toBe(true);
    expect(readFileSync(join(tmp.dir, 'b.txt'), 'utf8')).toBe('cursor');
    expect(host.run(`return os.remove(dir .. '/b.txt')`)).toBe(true);
    expect(existsSync(join(tmp.dir, 'b.txt'))).toBe(false);
    expect(host.run(`local ok, err = os.remove(dir .. '/b.txt') return tostring(ok) .. ' ' .. err`))
      .toMatch(/^nil .*No such file/);
    expect(host.run(`return pcall(os.exit)`)).toBe(false);
  });
});
