// The mod compiled once per process (adapters/simgame/luaChunks.ts) and wasmoon's number-only C API calls bound to
// the wasm exports (adapters/simgame/wasmoonDirectCalls.ts): states made from the shared bytecode run the mod as
// states made from its sources did, name the same files and lines in their errors, and a file that does not compile
// still fails at its require with Lua's own message.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { directBindings } from '../../../adapters/simgame/wasmoonDirectCalls.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.cleanup();
});

const game = (): SimGame => new SimGame({ world: createWorld(1), now: manualClock().now });

function modDir(files: Record<string, string>): string {
  const dir = join(tmp.dir, `mod${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, `${name}.lua`), text);
  return dir;
}

const MOD = {
  feverlink3: `local helper = require('feverlink3_helper')
local M = {}
function M.init() end
function M.twice(x) return helper.double(x) end
function M.fail() error('deliberate') end
feverlink3 = M
return M`,
  feverlink3_helper: `local M = {}
function M.double(x) return 2 * x end
return M`,
};

describe('the mod compiled once per process', () => {
  it('a second, third state loads the same files from the shared bytecode and runs them the same', async () => {
    const dir = modDir(MOD);
    for (let i = 0; i < 3; i++) {
      const host = await LuaHost.create({ modDir: dir, env: {}, engine: game() });
      expect(host.run(`return feverlink3.twice(${i + 20})`)).toBe(2 * (i + 20));
      // each state has its own globals: what one sets, the next does not see
      expect(host.run('local seen = __mark; __mark = true; return seen == nil')).toBe(true);
      // errors still name the file and line (the bytecode keeps its debug information)
      expect(() => host.run('feverlink3.fail()')).toThrow(/mod\/feverlink3\.lua:5: deliberate/);
      host.close();
    }
  });

  it('the same from sources given as strings (the single binary), and a changed source is compiled anew', async () => {
    const first = await LuaHost.create({ modSources: MOD, env: {}, engine: game() });
    expect(first.run('return feverlink3.twice(4)')).toBe(8);
    first.close();
    const changed = { ...MOD, feverlink3_helper: 'local M = {} function M.double(x) return 3 * x end return M' };
    const second = await LuaHost.create({ modSources: changed, env: {}, engine: game() });
    expect(second.run('return feverlink3.twice(4)')).toBe(12);
    second.close();
  });

  it('a file that does not compile fails at its require, with Lua\'s message naming the file', async () => {
    const dir = modDir({ ...MOD, feverlink3_helper: 'local M = {\nreturn M' });
    await expect(LuaHost.create({ modDir: dir, env: {}, engine: game() })).rejects.toThrow(/mod\/feverlink3_helper\.lua:2:/);
    await expect(LuaHost.create({ modSources: { ...MOD, feverlink3_helper: 'local M = {\nreturn M' }, env: {}, engine: game() }))
      .rejects.toThrow(/mod\/feverlink3_helper\.lua:2:/);
  });

  it("wasmoon's number-only C API functions and those taking a name are bound to the exports; the rest keep the wrapper", async () => {
    const host = await LuaHost.create({ modSources: MOD, env: {}, engine: game() });
    host.close();
    for (const name of ['lua_gettop', 'lua_settop', 'lua_type', 'lua_pcallk', 'lua_rawgeti', 'lua_getglobal', 'luaL_checkudata']) expect(directBindings).toContain(name);
    for (const name of ['lua_pushstring', 'lua_tolstring', 'luaL_loadbufferx', 'lua_pushlstring', 'luaL_loadstring']) {
      expect(directBindings).not.toContain(name);
    }
  });
});
