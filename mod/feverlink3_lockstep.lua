-- FeverLink3: the lockstep rules as pure functions (spec/lockstep.md: units, the Clock's safe, the input barrier,
-- stamps, the order at one stamp, pause and the pause order; prior-projects.md §2.6 G1–G5).
-- No I/O, no engine, no globals: every function takes plain values and returns plain values.
local M = {}

local floor = math.floor

--- One simulation step in game-ms.
M.STEP = 200
--- The stamp distance (steps) a game uses before the host's first Session names a lead.
M.DEFAULT_AHEAD = 2
--- Bounds for Session.lead as the mod accepts it (the host clamps to 2..32).
M.MIN_AHEAD, M.MAX_AHEAD = 1, 64

local SPEEDS = { [0] = true, [1] = true, [2] = true, [4] = true }
local CATEGORIES = { build = true, bulldoze = true, spend = true, other = true }
local RANK = { flush = 0, commit = 1, action = 2 }

--- True for the speeds the engine knows (0, 1, 2, 4).
function M.isSpeed(s)
  return SPEEDS[s] == true
end

--- The normalised action category: build, bulldoze, spend, or other for anything else.
function M.category(c)
  if CATEGORIES[c] then return c end
  return 'other'
end

--- The smallest multiple of STEP that is >= t.
function M.roundUp(t)
  return floor((t + M.STEP - 1) / M.STEP) * M.STEP
end

--- The new promise of a Clock line: safe = max(previous safe, roundUpToStep(t + ahead * STEP)). Never goes down.
function M.promise(prevSafe, t, ahead)
  local s = M.roundUp(t + ahead * M.STEP)
  if prevSafe and prevSafe > s then return prevSafe end
  return s
end

--- The stamp of a new ordinary action (G1): max(roundUpToStep(t + ahead * STEP), safe). Always >= safe, so the
-- promise of every Clock line already written holds.
function M.stamp(t, safe, ahead)
  return M.promise(safe, t, ahead)
end

--- The stamp of a held strict build made while running (spec architecture §6, lockstep.md "The host's stamps"): an
-- ordinary stamp plus max(1, floor(ahead / 2)) steps, so that a peer's veto, which travels peer, host, everyone, is
-- back before it.
function M.heldStamp(t, safe, ahead)
  local extra = math.max(1, floor((ahead or M.DEFAULT_AHEAD) / 2))
  return M.stamp(t, safe, ahead) + extra * M.STEP
end

--- The stamp of a BuildCommit made in a pause (lockstep.md "Pause, speed and the pause order"): the furthest stop the
-- originator knows (its own t and its pacing peers' t), never below the last flush stamp it has read.
function M.commitStamp(t, peers, flushStamp)
  local s = t
  for _, peer in pairs(peers or {}) do
    if not peer.stalled and not peer.left and peer.t ~= nil and peer.t > s then s = peer.t end
  end
  if flushStamp ~= nil and flushStamp > s then s = flushStamp end
  return s
end

--- The real-time grace (wall ms) a held build made in a pause waits for vetoes before its BuildCommit (architecture
-- §6: max(250 ms, 2 x round trip + dry run + margin), at most 1500 ms, the round trip read from the lead): the lead
-- covers round trip + 2 clock intervals + 100 ms at the run speed, so round trip ~ ahead * STEP / speed - 300.
function M.commitGrace(ahead, speed)
  local rtt = math.max(0, (ahead or M.DEFAULT_AHEAD) * M.STEP / math.max(1, speed or 1) - 300)
  return math.max(250, math.min(1500, 2 * rtt + 100))
end

--- Every pacing peer stands at its pause stop: its t is at or past pauseAt (games stop exactly at pauseAt; one that
-- was past it when the pause came stands where it was).
function M.peersStopped(peers, pauseAt)
  if pauseAt == nil then return false end
  for _, peer in pairs(peers or {}) do
    if not peer.stalled and not peer.left and peer.t ~= nil and peer.t < pauseAt then return false end
  end
  return true
end

local function minOpt(a, b)
  if a == nil then return b end
  if b == nil then return a end
  if b < a then return b end
  return a
end
M.minOpt = minOpt

--- True when a peer paces this game: it has sent a clock, it is not stalled (by its PeerClock or the Session's
-- list) and has not left. peer = {t, safe?, need?, stalled?, left?}, stalledIds = set of ids or nil.
function M.isPacing(id, peer, stalledIds)
  if peer == nil or peer.t == nil then return false end
  if peer.stalled or peer.left then return false end
  if stalledIds and stalledIds[id] then return false end
  return true
end

--- True when a peer bounds this game's barrier (lockstep.md "The input barrier", "Stalls"): every peer with a
-- clock that has not left, except an outsider (relayed stalled with no safe). A stalled peer still bounds it:
-- through the host's promise, which its PeerClock carries as safe (dropping it instead let a game run past
-- actions the stalled game had promised not to stamp below: a fork the simulator found).
function M.bounds(id, peer)
  if peer == nil or peer.t == nil or peer.left then return false end
  if peer.stalled and peer.safe == nil then return false end
  return true
end

--- The time a pacing peer lets this game reach: min(safe, need). A peer without a promise (no safe) holds the
-- game at its own clock, rounded up to a step. A stalled peer: the host's promise (its relayed safe) alone.
function M.peerBound(peer)
  local b = peer.safe
  if b == nil then b = M.roundUp(peer.t) end
  if peer.stalled then return b end
  return minOpt(b, peer.need)
end

--- The input barrier: min over the peers that bound it (M.bounds) of min(safe, need) — the host's promise for a
-- stalled one — over the stamps of pause-order flushes not read completely (an item whose pauseUpto is above
-- pauseRead), and the stamp of this game's own action the host has not confirmed yet (`unconfirmed`: the lowest
-- such stamp, or nil; the game applies its own action only with the host's copy, so it may stand at that stamp but
-- not run the step that applies it). nil = nothing holds the game (alone). A peer only listed in Session.stalled
-- (its stalled PeerClock not read yet) still bounds it by its own last promise, the lower one.
-- peers: {[id] = peer}; stalledIds: kept for the callers (the list does not free a peer); flushItems: list of
-- {stamp, pauseUpto}; pauseRead: highest pauseSeq read.
function M.barrier(peers, stalledIds, flushItems, pauseRead, unconfirmed)
  local b = unconfirmed
  for id, peer in pairs(peers) do
    if M.bounds(id, peer) then b = minOpt(b, M.peerBound(peer)) end
  end
  if flushItems then
    for _, item in ipairs(flushItems) do
      if item.pauseUpto > (pauseRead or 0) then b = minOpt(b, item.stamp) end
    end
  end
  return b
end

--- The next pause-order stop while paused: the smallest stamp > t of a flush read completely and not applied.
function M.flushTarget(t, flushItems, pauseRead)
  local target
  if flushItems then
    for _, item in ipairs(flushItems) do
      if item.pauseUpto <= (pauseRead or 0) and item.stamp > t then target = minOpt(target, item.stamp) end
    end
  end
  return target
end

--- May the world leave t (execute the step t → t+STEP) under this limit? "May stand at the barrier, never step
-- past it": only if t < limit (nil = no limit).
function M.mayLeave(t, limit)
  return limit == nil or t < limit
end

--- What the engine is told this frame. s = {t, started, speed, runSpeed?, pauseAt?, barrier?, flushTarget?}.
-- Returns {limit, speed, stop}: limit for engine.setLimit (nil = none), speed for engine.setSpeed, and stop =
-- the game stands (or is about to stand) at its pause stop point, with nothing of the pause order to run to.
--  - not started: stand where it is (limit t, speed 0);
--  - paused: run to pauseAt at the session speed (or runSpeed, the last speed above 0: the host says 0 as soon
--    as it pauses); past it, stand at t, or run at speed 1 to the next flush read
--    completely (pause order) and stand there (G5, lockstep.md "Pause, speed and the pause order");
--  - the barrier always bounds the limit.
function M.pace(s)
  local t = s.t
  if not s.started then return { limit = t, speed = 0, stop = false } end
  local limit = s.barrier
  local speed = s.speed or 0
  local stop = false
  if s.pauseAt ~= nil then
    if t < s.pauseAt then
      limit = minOpt(limit, s.pauseAt)
      -- a pause in force still runs to pauseAt (Session.speed is 0 from the moment the host pauses)
      if speed == 0 then speed = s.runSpeed or 1 end
    elseif s.flushTarget ~= nil and s.flushTarget > t then
      limit = minOpt(limit, s.flushTarget)
      speed = 1
    else
      limit = minOpt(limit, t)
      speed = 0
      stop = true
    end
  end
  if speed == 0 then limit = minOpt(limit, t) end
  return { limit = limit, speed = speed, stop = stop }
end

--- The order of the items applied at one stamp (lockstep.md "Units"): by stamp; at one stamp the items of the
-- pause order by pauseSeq, then BuildCommits, then ordinary actions by (from, seq). Every game uses this order.
-- item = {kind = 'flush'|'commit'|'action', stamp, pauseSeq?, from, seq}.
function M.before(a, b)
  if a.stamp ~= b.stamp then return a.stamp < b.stamp end
  local ra, rb = RANK[a.kind] or 2, RANK[b.kind] or 2
  if ra ~= rb then return ra < rb end
  if a.kind == 'flush' and a.pauseSeq ~= b.pauseSeq then return a.pauseSeq < b.pauseSeq end
  if a.from ~= b.from then return a.from < b.from end
  return a.seq < b.seq
end

--- The margins of the last MARGINS actions that arrived (game-ms left before their stamp), newest last.
M.MARGINS = 20

function M.noteMargin(margins, margin)
  margins[#margins + 1] = margin
  if #margins > M.MARGINS then table.remove(margins, 1) end
end

--- The smallest of the recent margins, or nil before any action arrived: what the window shows as "margin".
function M.smallestMargin(margins)
  local low
  for _, m in ipairs(margins) do
    if low == nil or m < low then low = m end
  end
  return low
end

--- Is an item stamped `stamp` late when the world stands at t? (applied at once and reported, LATE)
function M.isLate(stamp, t)
  return stamp < t
end

--- Permissions (wire kind 20): is player `id` allowed to act in `category`? Each field is "everyone",
-- "hostOnly" or {only = [ids]}; a missing field means everyone; the host's own game (id 0) is always allowed.
-- Not what decides an action: every game, the originator included, applies the `allowed` of the host's relayed copy
-- (a permission may change between stamping and relay). Kept as the rule the host applies, for a hint before it.
function M.allowed(permissions, id, category)
  if id == 0 or permissions == nil then return true end
  local set = permissions[M.category(category)]
  if set == nil or set == 'everyone' then return true end
  if set == 'hostOnly' then return false end
  if type(set) == 'table' and type(set.only) == 'table' then
    for _, v in ipairs(set.only) do
      if v == id then return true end
    end
    return false
  end
  return true -- a shape we do not know restricts nothing (the host decides `allowed` on relay anyway)
end

return M
