-- FeverLink3: what the to_game.log line handlers share (feverlink3_inbox.lua, feverlink3_builds.lua): the checks
-- of the values a line carries (an integer, a player id, one line of text) and queueing an item read from a line,
-- which a full queue refuses with a verdict (class module).
local log = require('feverlink3_log')
local apply = require('feverlink3_apply')

local M = {}
local n = log.n
local floor = math.floor
local TWO53 = 9007199254740992

--- An integer >= min (default 0) below 2^53, or nil.
local function int(v, min)
  if type(v) == 'number' and v == floor(v) and v >= (min or 0) and v < TWO53 then return v end
  return nil
end
M.int = int

--- A player id (0 = host .. 65534), or nil.
local function playerId(v)
  local id = int(v, 0)
  if id and id <= 65534 then return id end
  return nil
end
M.playerId = playerId

--- A text cut to one line of at most max bytes (control characters become a space).
function M.oneLine(s, max)
  s = tostring(s or ''):gsub('[%c]+', ' ')
  if #s > max then s = s:sub(1, max) .. '...' end
  return s
end

-- Pushes an item on the queue; a full queue refuses it with a verdict (class module). Returns true when queued;
-- false and nil when refused for a full queue (the verdict says so); false and a problem for a duplicate.
function M.enqueue(S, item, what)
  local ok, why = S.queue:push(item)
  if ok then return true end
  if why == 'full' then
    apply.refuse(S, item, 'module', 'too many items wait for their stamps here (' .. n(S.queue:size(item.from))
      .. ' of player ' .. n(item.from) .. ', ' .. n(S.queue:size()) .. ' in all): ' .. what .. ' refused')
    return false
  end
  return false, 'duplicate ' .. what
end

return M
