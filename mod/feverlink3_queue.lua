-- FeverLink3: the queue of stamped items a game applies at their stamps (spec/lockstep.md "Units": flush items by
-- pauseSeq, then BuildCommits, then actions by (from, seq)). Kept sorted by feverlink3_lockstep.before;
-- due(t) takes out the items stamped <= t in that order. Duplicates (the same from:seq) are refused.
-- Bounded (docs/ENGINE.md §7): at most MAX_PER_ORIGIN items of one origin and MAX_ITEMS in all wait for their
-- stamps (push refuses more: false, 'full'); the from:seq seen are remembered per origin as a floor (every seq up
-- to it seen) plus at most MAX_SEEN seqs above it.
local rules = require('feverlink3_lockstep')

local M = {}
local Queue = {}
Queue.__index = Queue

--- The most items of one origin (from) waiting for their stamps.
M.MAX_PER_ORIGIN = 1024
--- The most items waiting in all.
M.MAX_ITEMS = 8192
--- The most sequence numbers remembered above an origin's floor (seqs seen past a gap). Past it the floor rises
-- to the lowest of them: the gap below counts as seen (an item of it arriving later is a duplicate).
M.MAX_SEEN = 4096

--- The key that identifies an item for duplicates: its origin and sequence number.
function M.key(from, seq)
  return string.format('%.0f:%.0f', from, seq)
end

--- A new empty queue.
function M.new()
  return setmetatable({ items = {}, perOrigin = {}, floor = {}, above = {}, aboveCount = {} }, Queue)
end

--- Has the queue ever held an item with this origin and sequence number (queued now or taken out before)?
function Queue:seen(from, seq)
  if seq <= (self.floor[from] or 0) then return true end
  local above = self.above[from]
  return above ~= nil and above[seq] == true
end

-- Remembers from:seq as seen; the floor rises over the seqs seen without a gap; bounded by MAX_SEEN.
local function remember(self, from, seq)
  local floor = self.floor[from] or 0
  if seq <= floor then return end
  local above = self.above[from]
  if not above then
    above = {}
    self.above[from] = above
    self.aboveCount[from] = 0
  end
  if above[seq] then return end
  above[seq] = true
  local count = self.aboveCount[from] + 1
  while above[floor + 1] do
    above[floor + 1] = nil
    floor = floor + 1
    count = count - 1
  end
  while count > M.MAX_SEEN do
    local low
    for s in pairs(above) do
      if low == nil or s < low then low = s end
    end
    above[low] = nil
    count = count - 1
    floor = low
    while above[floor + 1] do
      above[floor + 1] = nil
      floor = floor + 1
      count = count - 1
    end
  end
  self.floor[from] = floor
  if count == 0 then
    self.above[from], self.aboveCount[from] = nil, nil
  else
    self.aboveCount[from] = count
  end
end

-- Inserts an item in order: a binary search for the first position whose item comes after it (equal keys keep
-- arrival order).
local function insertSorted(items, item)
  local lo, hi = 1, #items + 1
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if rules.before(item, items[mid]) then hi = mid else lo = mid + 1 end
  end
  table.insert(items, lo, item)
end

--- True when one more item of origin `from` would be taken (below MAX_PER_ORIGIN and MAX_ITEMS).
function Queue:hasRoom(from)
  return (self.perOrigin[from] or 0) < M.MAX_PER_ORIGIN and #self.items < M.MAX_ITEMS
end

--- Adds an item {kind, stamp, from, seq, pauseSeq?, pauseUpto?, ...}. Returns true; or false and 'duplicate' (this
-- from:seq was seen before), or false and 'full' (too many items wait: the from:seq counts as seen all the same).
function Queue:push(item)
  local from = item.from
  if self:seen(from, item.seq) then return false, 'duplicate' end
  remember(self, from, item.seq)
  if not self:hasRoom(from) then return false, 'full' end
  self.perOrigin[from] = (self.perOrigin[from] or 0) + 1
  insertSorted(self.items, item)
  return true
end

local function taken(self, item)
  local left = (self.perOrigin[item.from] or 1) - 1
  if left <= 0 then left = nil end
  self.perOrigin[item.from] = left
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
  for _, item in ipairs(out) do taken(self, item) end
  return out
end

--- The queued item with this origin and sequence number, left in place, or nil.
function Queue:find(from, seq)
  for _, item in ipairs(self.items) do
    if item.from == from and item.seq == seq then return item end
  end
  return nil
end

--- The first queued item (lowest in order, so of the lowest stamp) for which match(item) is true, or nil.
function Queue:firstWhere(match)
  for _, item in ipairs(self.items) do
    if match(item) then return item end
  end
  return nil
end

--- Moves a queued item to another stamp (its place in the order follows). Returns true when it was queued.
function Queue:restamp(item, stamp)
  for i, queued in ipairs(self.items) do
    if queued == item then
      table.remove(self.items, i)
      item.stamp = stamp
      insertSorted(self.items, item)
      return true
    end
  end
  return false
end

--- Takes out the item with this origin and sequence number, if queued. Returns it or nil.
function Queue:remove(from, seq)
  for i, item in ipairs(self.items) do
    if item.from == from and item.seq == seq then
      table.remove(self.items, i)
      taken(self, item)
      return item
    end
  end
  return nil
end

--- Takes out, without applying them, the items for which drop(item) is true (they stay seen). Returns how many.
function Queue:dropWhere(drop)
  local keep, dropped = {}, 0
  for _, item in ipairs(self.items) do
    if drop(item) then
      taken(self, item)
      dropped = dropped + 1
    else
      keep[#keep + 1] = item
    end
  end
  self.items = keep
  return dropped
end

--- The queued items of one kind, in order (a copy of the list; the items themselves are shared).
function Queue:ofKind(kind)
  local out = {}
  for _, item in ipairs(self.items) do
    if item.kind == kind then out[#out + 1] = item end
  end
  return out
end

--- Number of queued items (of origin `from` when given).
function Queue:size(from)
  if from ~= nil then return self.perOrigin[from] or 0 end
  return #self.items
end

--- The first item (lowest in order), or nil.
function Queue:first()
  return self.items[1]
end

return M
