-- FeverLink3: the game's pace between steps (spec/lockstep.md; docs/ENGINE.md §6): what is applied while the world
-- stands (late items and the pause order's complete flushes), the input barrier and the limit and speed set through
-- the engine, the Clock line with the promise `safe` at its cadence, and the own actions and vetoed builds that hold
-- the barrier at their stamp until the host answers. The session controller (feverlink3_session.lua) calls these
-- with its state S once per frame.
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local rules = require('feverlink3_lockstep')
local apply = require('feverlink3_apply')
local checksum = require('feverlink3_checksum')

local M = {}
local n = log.n

--- Clock cadence (docs/ENGINE.md §6): a changed t is reported at most every CLOCK_INTERVAL_MS, a heartbeat every
-- HEARTBEAT_MS, a change of stop/speed/pause/need/ahead/started at once.
M.CLOCK_INTERVAL_MS = 100
M.HEARTBEAT_MS = 1000
--- A game standing this long (wall ms) at the stamp of an own action whose copy the host has not sent back says so
-- once in mod.log (the copy comes within the round trip the lead covers; one that never comes holds the game there).
M.UNCONFIRMED_LOG_MS = 2000

local function flushItems(S)
  return S.queue:ofKind('flush')
end

-- An own action waits for the host's copy (feverlink3_inbox.lua ownCopy) before it is applied; a peer's held build
-- this game vetoed waits for the host's answer (relayed: dropped; late: applied). Either holds the barrier at its stamp.
local function unconfirmed(item)
  return item.unconfirmed == true or item.awaiting == true
end

--- Whether a queued item may be applied at its stamp: answered by the host, and a flush once its pause order is read.
function M.complete(S, item)
  if item.unconfirmed or item.awaiting then return false end
  return item.kind ~= 'flush' or item.pauseUpto <= S.pauseRead
end
local complete = M.complete

--- Applies what is due while the world stands at t between steps: late items (stamp < t) and the pause order's
-- complete flushes stamped <= t (they come first at their stamp; ordinary actions at t wait for beforeStep(t)).
function M.applyStanding(S, t)
  local items = S.queue:due(t, function(item)
    if item.kind == 'flush' or item.unconfirmed or item.awaiting then return complete(S, item) end
    return item.stamp < t
  end)
  for _, item in ipairs(items) do
    if item.kind == 'flush' then checksum.beforeFlush(S, t, item.pauseUpto) end
    apply.apply(S, item, t)
  end
end

-- The game stands at the stamp of an own action the host has not confirmed, or of a vetoed build the host has not
-- answered: said once per item after a while.
local function noteUnconfirmed(S, t, mine)
  if mine == nil or mine.stamp > t then
    S.heldBy = nil
    return
  end
  local key, now = apply.key(mine), link.wallMs()
  if S.heldBy == nil or S.heldBy.key ~= key then
    S.heldBy = { key = key, since = now }
  elseif not S.heldBy.logged and now - S.heldBy.since >= M.UNCONFIRMED_LOG_MS then
    S.heldBy.logged = true
    log.warn('standing at ' .. n(t) .. ' for ' .. n(now - S.heldBy.since) .. ' ms: '
      .. (mine.awaiting and ('held build ' .. key .. ' vetoed here waits for the host\'s answer')
        or ('own action ' .. key .. ' waits for the host\'s copy')))
  end
end

--- The barrier, the pace and the engine's limit and speed at t.
function M.updatePace(S, t)
  local flushes = flushItems(S)
  -- the lowest stamp of an own action without the host's copy yet, or of a veto not answered (the queue is in stamp order)
  local mine = S.queue:firstWhere(unconfirmed)
  noteUnconfirmed(S, t, mine)
  S.barrier = rules.barrier(S.peers, S.stalledIds, flushes, S.pauseRead, mine and mine.stamp)
  S.pace = rules.pace({ t = t, started = S.started, speed = S.sessionSpeed, runSpeed = S.runSpeed,
    pauseAt = S.pauseAt, barrier = S.barrier, flushTarget = rules.flushTarget(t, flushes, S.pauseRead) })
  S.engine.setLimit(S.pace.limit)
  S.engine.setSpeed(S.pace.speed)
end

--- The Clock line with the promise `safe`, when its cadence says it is due.
function M.maybeClock(S, t)
  local now = link.wallMs()
  local speed = S.engine.speed()
  local stop = S.pace.stop and speed == 0
  local pause = S.pauseRead > 0 and S.pauseRead or nil
  local last = S.lastClock
  local due = last == nil or last.stop ~= stop or last.speed ~= speed or last.pause ~= pause or last.need ~= S.need
    or last.ahead ~= S.ahead or last.started ~= S.started
    or (t ~= last.t and now - S.lastClockWall >= M.CLOCK_INTERVAL_MS) or now - S.lastClockWall >= M.HEARTBEAT_MS
  if not due then return end
  local safe = rules.promise(S.safe, t, S.ahead)
  local line = { t = t, speed = speed, ahead = S.ahead, safe = safe, need = S.need, pause = pause }
  if stop then line.stop = true end
  -- a Clock the outbox refused (full) promised nothing: tried again next frame
  if not S.outbox:add('Clock', line) then return end
  S.safe = safe
  S.lastClock = { t = t, stop = stop, speed = speed, pause = pause, need = S.need, ahead = S.ahead,
    started = S.started }
  S.lastClockWall = now
end

--- Own actions waiting for the host's copy; peers' held builds vetoed here waiting for the host's answer.
function M.unconfirmedCount(S)
  local count, awaiting = 0, 0
  for _, item in ipairs(S.queue.items) do
    if item.unconfirmed then count = count + 1 end
    if item.awaiting then awaiting = awaiting + 1 end
  end
  return count, awaiting
end

return M
