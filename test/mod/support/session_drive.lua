-- Drives the whole mod (session controller, link, queue) with the TEST DOUBLE engine the same way in plain lua5.2
-- and in wasmoon, so test/mod/lua52.test.ts can compare the two: one own action, two peer actions, 12 steps.
-- Returns the double's snapshot as JSON. Expects `engine_double` and the mod requireable, and a session folder.
local D = require('engine_double')
D.t = 3000000000
local fl3 = require('feverlink3')
assert(fl3.init(), 'the mod did not become active')
fl3.frame()
fl3.command({ tag = 'own', big = 3000000001, f = 0.5, list = { 1, 2.5, 'x' }, empty = {} }, 'build')
for _ = 1, 12 do
  fl3.frame()
  D.step(1)
end
fl3.frame()
return D.snapshot()
