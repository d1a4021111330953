-- FeverLink3: unit tests of feverlink3_queue.lua (items in the order of spec/lockstep.md "Units").
local T = require('testlib')
local Queue = require('feverlink3_queue')

local function keys(items)
  local out = {}
  for i, item in ipairs(items) do
    out[i] = item.kind .. '@' .. string.format('%.0f', item.stamp) .. ':' .. item.from .. ':' .. item.seq
  end
  return out
end

T.test('due(t) gives the items stamped <= t in (stamp, flush/commit/action, pauseSeq | from, seq) order', function()
  local q = Queue.new()
  q:push({ kind = 'action', stamp = 600, from = 2, seq = 1 })
  q:push({ kind = 'action', stamp = 400, from = 3, seq = 1 })
  q:push({ kind = 'action', stamp = 400, from = 1, seq = 7 })
  q:push({ kind = 'action', stamp = 400, from = 1, seq = 2 })
  q:push({ kind = 'commit', stamp = 400, from = 5, seq = 1 })
  q:push({ kind = 'flush', stamp = 400, from = 9, seq = 4, pauseSeq = 2, pauseUpto = 2 })
  q:push({ kind = 'flush', stamp = 400, from = 0, seq = 9, pauseSeq = 1, pauseUpto = 2 })
  T.eq(keys(q:due(200)), {})
  T.eq(keys(q:due(400)), { 'flush@400:0:9', 'flush@400:9:4', 'commit@400:5:1', 'action@400:1:2', 'action@400:1:7',
    'action@400:3:1' })
  T.eq(q:size(), 1)
  T.eq(keys(q:due(3000000000)), { 'action@600:2:1' })
  T.eq(q:size(), 0)
end)

T.test('a second item with the same from:seq is refused', function()
  local q = Queue.new()
  T.eq(q:push({ kind = 'action', stamp = 400, from = 1, seq = 1 }), true)
  local ok, why = q:push({ kind = 'action', stamp = 800, from = 1, seq = 1 })
  T.eq({ ok, why }, { false, 'duplicate' })
  q:due(1000)
  T.eq(q:push({ kind = 'action', stamp = 400, from = 1, seq = 1 }), false, 'also after it was applied')
  T.ok(q:seen(1, 1))
end)

T.test('due(t, accept) leaves the items it does not accept, in order', function()
  local q = Queue.new()
  q:push({ kind = 'flush', stamp = 200, from = 1, seq = 1, pauseSeq = 1, pauseUpto = 3 })
  q:push({ kind = 'action', stamp = 200, from = 1, seq = 2 })
  q:push({ kind = 'action', stamp = 400, from = 1, seq = 3 })
  local got = q:due(400, function(item) return item.kind == 'action' end)
  T.eq(keys(got), { 'action@200:1:2', 'action@400:1:3' })
  T.eq(keys(q:due(400)), { 'flush@200:1:1' })
end)

T.test('remove takes one item out by from and seq', function()
  local q = Queue.new()
  q:push({ kind = 'action', stamp = 200, from = 1, seq = 1 })
  q:push({ kind = 'action', stamp = 200, from = 2, seq = 1 })
  T.eq(q:remove(2, 1).from, 2)
  T.eq(q:remove(2, 1), nil)
  T.eq(keys(q:due(200)), { 'action@200:1:1' })
end)

T.test('random insertion order always gives the same sorted order', function()
  local random = require('feverlink3_random')
  random.seed(42)
  local ref
  for _ = 1, 30 do
    local items = {}
    for i = 1, 40 do
      items[i] = { kind = ({ 'flush', 'commit', 'action' })[(i % 3) + 1], stamp = 200 * (i % 4), from = i % 5, seq = i,
        pauseSeq = i, pauseUpto = 40 }
    end
    for i = #items, 2, -1 do
      local j = random.random(i)
      items[i], items[j] = items[j], items[i]
    end
    local q = Queue.new()
    for _, item in ipairs(items) do q:push(item) end
    local order = keys(q:due(1000))
    if ref then T.eq(order, ref) else ref = order end
    T.eq(#order, 40)
  end
end)

T.test('find and firstWhere leave the items in place; restamp moves one to its place at another stamp', function()
  local q = Queue.new()
  q:push({ kind = 'action', stamp = 400, from = 1, seq = 1 })
  q:push({ kind = 'action', stamp = 600, from = 2, seq = 1, unconfirmed = true })
  q:push({ kind = 'action', stamp = 800, from = 2, seq = 2, unconfirmed = true })
  T.eq(q:find(2, 2).stamp, 800)
  T.eq(q:find(3, 1), nil)
  T.eq(q:firstWhere(function(item) return item.unconfirmed end).seq, 1, 'the lowest stamp first')
  T.eq(q:restamp(q:find(2, 1), 1000), true)
  T.eq(keys(q.items), { 'action@400:1:1', 'action@800:2:2', 'action@1000:2:1' })
  T.eq(q:restamp({ kind = 'action', stamp = 1, from = 9, seq = 9 }, 200), false, 'not queued')
  T.eq(q:size(), 3)
  T.eq(q:size(2), 2)
end)
