-- FeverLink3: unit tests of feverlink3_resume.lua's prune (a mod loaded again mid-session takes out, unapplied,
-- what the previous Lua state applied) and of the queue's dropWhere it uses.
local T = require('testlib')
local Queue = require('feverlink3_queue')
local resume = require('feverlink3_resume')

local function stateWith(items, pauseRead)
  local S = { queue = Queue.new(), pauseRead = pauseRead }
  for _, item in ipairs(items) do assert(S.queue:push(item)) end
  return S
end

local function atThousand()
  return stateWith({
    { kind = 'action', stamp = 800, from = 1, seq = 1 },
    { kind = 'flush', stamp = 1000, from = 2, seq = 5, pauseSeq = 3, pauseUpto = 3 },
    { kind = 'flush', stamp = 1000, from = 2, seq = 6, pauseSeq = 4, pauseUpto = 5 },
    { kind = 'action', stamp = 1000, from = 1, seq = 2 },
    { kind = 'action', stamp = 1200, from = 3, seq = 1 },
  }, 3)
end

T.test('prune: below t0 is done; a frame at t0 applied the complete flush there; actions at t0 and later wait', function()
  local S = atThousand()
  T.eq(resume.prune(S, 1000, 1000), 2)
  T.eq(S.queue:size(), 3)
  T.eq(S.queue:size(1), 1)
  T.eq(S.queue:size(2), 1)
  -- what was taken out stays seen: the backlog line read once more is a duplicate, never applied again
  local ok, why = S.queue:push({ kind = 'action', stamp = 800, from = 1, seq = 1 })
  T.eq(ok, false)
  T.eq(why, 'duplicate')
end)

T.test('prune: the world stepped onto t0 after the last frame: nothing at t0 was applied, the flush waits', function()
  -- the simulator, seed 5908: saved at 6000, loaded again at 6200, the flush at 6200 had not been applied
  local S = atThousand()
  T.eq(resume.prune(S, 1000, 800), 1)
  T.eq(S.queue:size(2), 2)
  T.eq(S.queue:first().stamp, 1000)
  T.eq(S.queue:first().kind, 'flush')
end)

T.test('dropWhere keeps the order and the per-origin counts of what stays', function()
  local q = Queue.new()
  for seq = 1, 6 do q:push({ kind = 'action', stamp = seq * 200, from = seq % 2, seq = seq }) end
  T.eq(q:dropWhere(function(item) return item.from == 1 end), 3)
  T.eq(q:size(1), 0)
  T.eq(q:size(0), 3)
  T.eq(q:first().seq, 2)
  T.eq(#q:due(10000), 3)
end)
