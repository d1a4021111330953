-- FeverLink3: runs the mod's plain-Lua unit tests: `lua5.2 mod/tests/run.lua` (exit status 1 on a failure).
-- Also run under wasmoon (Lua 5.4) by test/mod/wasmoon.test.ts, with the modules preloaded.
local here = (arg and arg[0] and arg[0]:match('^(.*)[/\\][^/\\]*$')) or 'mod/tests'
package.path = here .. '/?.lua;' .. here .. '/../?.lua;' .. package.path

local T = require('testlib')
for _, name in ipairs({ 'test_json', 'test_lockstep', 'test_queue', 'test_random', 'test_bounds', 'test_resume' }) do
  T.describe(name)
  local ok, err = pcall(require, name)
  if not ok then T.test('load ' .. name, function() error(err, 0) end) end
end
T.report()
