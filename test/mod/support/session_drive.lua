-- Drives the whole mod (session controller, link, queue) with the TEST DOUBLE engine the same way in plain lua5.2
-- and in wasmoon, so test/mod/lua52.test.ts can compare the two: one own action (with the host's copy), two peer
-- actions, 12 steps.
-- Returns the double's snapshot as JSON. Expects `engine_double` and the mod requireable, and a session folder.
local D = require('engine_double')
D.t = 3000000000
local fl3 = require('feverlink3')
assert(fl3.init(), 'the mod did not become active')
fl3.frame()
fl3.command({ tag = 'own', big = 3000000001, f = 0.5, list = { 1, 2.5, 'x' }, empty = {} }, 'build')
fl3.frame() -- writes the Action
-- the launcher's part: the host relays every Action to its origin too, and the game applies its own with that copy
local link, json = require('feverlink3_link'), require('feverlink3_json')
local copy = json.decode(assert(link.readFile('from_game.log'):match('Action\t([^\n]+)')))
copy.from, copy.allowed = 0, true
assert(link.append('to_game.log', 'Action\t' .. json.encode(copy) .. '\n'))
for _ = 1, 12 do
  fl3.frame()
  D.step(1)
end
fl3.frame()
return D.snapshot()
