-- TEST DOUBLE of the game engine (docs/ENGINE.md §2) for the mod's vitest suites; NOT the simulated game.
-- Steps only when told (step(k)), never at or past the limit, and calls feverlink3.beforeStep for every step.
-- apply() records each command with the time it was applied; {refuse = true} / {throw = true} refuse / throw.
local json = require('feverlink3_json')

local D = { t = 0, wanted = 0, limit = nil, applied = {}, draws = {}, notes = {}, limits = {}, beyond = 0 }

function D.speedNow()
  if D.wanted == 0 or (D.limit ~= nil and D.t >= D.limit) then return 0 end
  return D.wanted
end

engine = {
  time = function() return D.t end,
  speed = function() return D.speedNow() end,
  setSpeed = function(s) D.wanted = s end,
  setLimit = function(l) D.limit = l end,
  apply = function(cmd)
    D.applied[#D.applied + 1] = { t = D.t, cmd = cmd }
    if cmd.throw then error('the double threw') end
    if cmd.refuse then return false, 'engine', 'refused by the double' end
    if cmd.object then return { ok = true } end
    return true
  end,
  notify = function(level, text) D.notes[#D.notes + 1] = level .. ' ' .. text end,
  checksum = function() return {} end,
}

--- Runs up to k steps as a game would: only at a speed > 0 and only while t < limit. Returns the steps run.
-- After each beforeStep a game script draws math.random() once (recorded with its t).
function D.step(k)
  local n = 0
  for _ = 1, k do
    if D.speedNow() == 0 then break end
    feverlink3.beforeStep(D.t)
    D.draws[#D.draws + 1] = { t = D.t, r = math.random(), k = math.random(1000) }
    D.t = D.t + 200
    n = n + 1
  end
  return n
end

--- The double's state as JSON for the test.
function D.snapshot()
  return json.encode({ t = D.t, wanted = D.wanted, limit = D.limit, applied = json.array(D.applied),
    draws = json.array(D.draws), notes = json.array(D.notes) })
end

return D
