-- FeverLink3: this game's held build made in a pause (spec architecture §6, lockstep.md; S.holding, set when the
-- command is carried, feverlink3_command.lua): its need follows the furthest stop known, and after a grace without a
-- veto its BuildCommit 53 makes every game apply it; given up after HOLD_GIVE_UP_MS. The session controller
-- (feverlink3_session.lua) calls commitHeld with its state S once per frame, before the Clock line.
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local rules = require('feverlink3_lockstep')

local M = {}
local n = log.n

--- A held build made in a pause that could not be committed in this long (wall ms) is given up here: no BuildCommit,
-- its need dropped; the host refuses it on every game 10 s after its record (machines/rules/heldBuilds.ts).
M.HOLD_GIVE_UP_MS = 9000

--- True while the started world stands at (or past) the host's pauseAt.
function M.pausedStanding(S, t)
  return S.started and S.pauseAt ~= nil and t >= S.pauseAt
end
local pausedStanding = M.pausedStanding

-- Queues this game's own BuildCommit item: applied at its stamp only with the host's copy (feverlink3_inbox.lua).
local function sendCommit(S, h, stamp, t)
  if not S.outbox:add('BuildCommit', { seq = h.seq, owner = S.id, stamp = stamp }) then
    log.error('BuildCommit ' .. n(S.id) .. ':' .. n(h.seq) .. ' could not be written: given up (the host refuses it)')
    return
  end
  local ok, why = S.queue:push({ kind = 'commit', stamp = stamp, from = S.id, seq = h.seq, body = h.body,
    category = h.category, unconfirmed = true })
  if not ok then log.error('own BuildCommit ' .. n(S.id) .. ':' .. n(h.seq) .. ' not queued: ' .. tostring(why)) end
  log.info('BuildCommit ' .. n(S.id) .. ':' .. n(h.seq) .. ' sent at ' .. n(stamp) .. ' (t ' .. n(t) .. ')')
end

--- The held build made in a pause (S.holding), once per frame before the Clock line: its need follows the furthest
-- stop known; after the grace, once every pacing peer stands at its stop and the Clock carrying the need went out,
-- the BuildCommit at that stamp (unpaused meanwhile: at an ordinary stamp); given up after HOLD_GIVE_UP_MS. A veto
-- (feverlink3_builds.lua) ends it first. The BuildCommit is written before the Clock that drops the need.
function M.commitHeld(S, t)
  local h = S.holding
  if h == nil then return end
  local now = link.wallMs()
  if now - h.since >= M.HOLD_GIVE_UP_MS then
    log.warn('held build ' .. n(S.id) .. ':' .. n(h.seq) .. ' not committed in ' .. n(now - h.since)
      .. ' ms: given up (the host refuses it on every game)')
    S.holding, S.need = nil, nil
    return
  end
  if not pausedStanding(S, t) then
    sendCommit(S, h, rules.stamp(t, S.safe, S.ahead), t)
    S.holding, S.need = nil, nil
    return
  end
  local stamp = rules.commitStamp(t, S.peers, S.flushStamp)
  if S.need == nil or stamp > S.need then
    S.need = stamp -- announced first; the commit waits for a frame after the Clock that carries it
    return
  end
  if now - h.since < h.grace or not rules.peersStopped(S.peers, S.pauseAt) then return end
  if S.lastClock == nil or S.lastClock.need ~= S.need then return end
  sendCommit(S, h, S.need, t)
  S.holding, S.need = nil, nil
end

return M
