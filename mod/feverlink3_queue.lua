-- FeverLink3: the queue of stamped items a game applies at their stamps (spec/lockstep.md "Units": flush items by
-- pauseSeq, then BuildCommits, then actions by (from, seq)). Kept sorted by feverlink3_lockstep.before;
-- due(t) takes out the items stamped <= t in that order. Duplicates (the same from:seq) are refused.
local rules = require('feverlink3_lockstep')

local M = {}
local Queue = {}
Queue.__index = Queue

--- The key that identifies an item for duplicates: its origin and sequence number.
function M.key(from, seq)
  return string.format('%.0f:%.0f', from, seq)
end

--- A new empty queue.
function M.new()
  return setmetatable({ items = {}, keys = {} }, Queue)
end

--- Adds an item {kind, stamp, from, seq, pauseSeq?, pauseUpto?, ...}. Returns true, or false and 'duplicate'.
function Queue:push(item)
  local k = M.key(item.from, item.seq)
  if self.keys[k] then return false, 'duplicate' end
  self.keys[k] = true
  local items = self.items
  -- binary search for the first position whose item comes after the new one: equal keys keep arrival order
  local lo, hi = 1, #items + 1
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if rules.before(item, items[mid]) then hi = mid else lo = mid + 1 end
  end
  table.insert(items, lo, item)
  return true
end

--- Has the queue ever held an item with this origin and sequence number (queued now or taken out before)?
function Queue:seen(from, seq)
  return self.keys[M.key(from, seq)] == true
end

--- Takes out, in order, the items stamped <= t for which accept(item) is true (all of them without accept).
-- Items that are not accepted stay where they are.
function Queue:due(t, accept)
  local out, keep = {}, {}
  local items = self.items
  local n = #items
  local i = 1
  while i <= n and items[i].stamp <= t do
    local item = items[i]
    if accept == nil or accept(item) then out[#out + 1] = item else keep[#keep + 1] = item end
    i = i + 1
  end
  if #out == 0 then return out end
  for j = i, n do keep[#keep + 1] = items[j] end
  self.items = keep
  return out
end

--- Takes out the item with this origin and sequence number, if queued. Returns it or nil.
function Queue:remove(from, seq)
  for i, item in ipairs(self.items) do
    if item.from == from and item.seq == seq then
      table.remove(self.items, i)
      return item
    end
  end
  return nil
end

--- The queued items of one kind, in order (a copy of the list; the items themselves are shared).
function Queue:ofKind(kind)
  local out = {}
  for _, item in ipairs(self.items) do
    if item.kind == kind then out[#out + 1] = item end
  end
  return out
end

--- Number of queued items.
function Queue:size()
  return #self.items
end

--- The first item (lowest in order), or nil.
function Queue:first()
  return self.items[1]
end

return M
