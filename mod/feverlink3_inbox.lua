-- FeverLink3: the link lines the launcher sends to the game (to_game.log), checked and turned into session state:
-- Session 11, PeerClock 12, PlayerJoined 13, PlayerLeft 14, Permissions 20, Action 50, Chat 51, BuildVeto 52,
-- BuildCommit 53 (wire-protocol.txt payloads; spec/lockstep.md). Nothing from the link is trusted unchecked:
-- a line that does not fit is logged and skipped, never fatal. The held and parked builds, their vetoes and
-- BuildCommit and BuildVeto are feverlink3_builds.lua; the value checks it shares with it, feverlink3_lines.lua.
local json = require('feverlink3_json')
local rules = require('feverlink3_lockstep')
local log = require('feverlink3_log')
local apply = require('feverlink3_apply')
local checksum = require('feverlink3_checksum')
local authority = require('feverlink3_authority')
local resync = require('feverlink3_resync')
local lines = require('feverlink3_lines')
local builds = require('feverlink3_builds')

local M = {}
local n = log.n
local int, playerId, oneLine, enqueue = lines.int, lines.playerId, lines.oneLine, lines.enqueue

--- The most builds of one player parked here until their BuildCommit (a held strict build waits seconds, not
-- minutes: a player has a few at once). One more is refused: verdict class `module`, logged.
M.MAX_PARKED_PER_PLAYER = 64
--- The most parked builds in all (a safety net only a misbehaving launcher reaches).
M.MAX_PARKED = 1024
--- A skipped line of one reason is logged in full this many times, then counted (logged at 10, 100, 1000, ...).
M.LOG_FIRST = 5

--- An integer >= min (default 0) below 2^53, or nil (feverlink3_lines.lua).
M.int = int
--- A player id (0 = host .. 65534), or nil (feverlink3_lines.lua).
M.playerId = playerId

-- Skipped lines, counted per reason: the first LOG_FIRST logged in full, then a counter at each power of ten, so a
-- launcher writing bad lines in a loop cannot flood mod.log. The reasons are a fixed set (the kinds handled here).
local skippedCounts = {}

local function isPowerOfTen(c)
  local p = 10
  while p < c do p = p * 10 end
  return p == c
end

local function skipped(reasonKey, text)
  local c = (skippedCounts[reasonKey] or 0) + 1
  skippedCounts[reasonKey] = c
  if c <= M.LOG_FIRST then
    log.warn(text .. (c == M.LOG_FIRST and ' (further ones counted, logged at 10, 100, 1000, ...)' or ''))
  elseif isPowerOfTen(c) then
    log.warn('to_game.log: ' .. n(c) .. ' lines skipped so far for: ' .. reasonKey)
  end
end
M.skipped = skipped

--- Lines skipped per reason since the last reset (for status and tests).
function M.skippedCounts()
  local out = {}
  for k, v in pairs(skippedCounts) do out[k] = v end
  return out
end

--- Forgets the counts (a new session state).
function M.reset()
  skippedCounts = {}
end

--- Takes a parked build out (feverlink3_builds.lua).
M.unpark = builds.unpark

local H = {}

-- ChecksumRequest 15 and Authority 16: the checksum rounds (feverlink3_checksum.lua, feverlink3_authority.lua).
H.ChecksumRequest = checksum.request
H.Authority = authority.authority

-- BuildCommit 53 and BuildVeto 52: the parked and held builds (feverlink3_builds.lua).
H.BuildCommit = builds.BuildCommit
H.BuildVeto = builds.BuildVeto

-- Session 11 {started, speed, pauseAt?, lead, stalled?, ...}
function H.Session(S, p)
  local started = p.started == true
  local speed = p.speed
  if not rules.isSpeed(speed) then
    if speed ~= nil then log.warn('Session with speed ' .. tostring(speed) .. ': kept ' .. n(S.sessionSpeed)) end
    speed = S.sessionSpeed
  end
  local pauseAt = int(p.pauseAt)
  if pauseAt and S.loadedAt and pauseAt < S.loadedAt then
    -- G5 (L.loadedAt): a Session from before this world was loaded names a time this world never had
    log.once('loadedAt:' .. n(pauseAt), 'info', 'pauseAt ' .. n(pauseAt) .. ' lies before this world was loaded at '
      .. n(S.loadedAt) .. ': treated as ' .. n(S.loadedAt))
    pauseAt = S.loadedAt
  end
  local lead = int(p.lead)
  local stalled = {}
  if type(p.stalled) == 'table' then
    for _, id in ipairs(p.stalled) do
      local v = playerId(id)
      if v then stalled[v] = true end
    end
  end
  if started ~= S.started or speed ~= S.sessionSpeed or pauseAt ~= S.pauseAt then
    log.info('session: started=' .. tostring(started) .. ' speed=' .. n(speed) .. ' pauseAt='
      .. (pauseAt and n(pauseAt) or '-') .. ' lead=' .. (lead and n(lead) or '-'))
  end
  S.started, S.sessionSpeed, S.pauseAt, S.stalledIds = started, speed, pauseAt, stalled
  -- The host's Session says speed 0 as soon as it pauses; the game still runs to pauseAt at the speed it ran.
  if speed > 0 then S.runSpeed = speed end
  if lead then
    local ahead = math.max(rules.MIN_AHEAD, math.min(rules.MAX_AHEAD, lead))
    if ahead ~= S.ahead then log.info('ahead ' .. n(S.ahead) .. ' -> ' .. n(ahead) .. ' steps (Session.lead)') end
    S.ahead = ahead
  end
end

-- PeerClock 12 {from, t, ahead, need?, safe?, pause?, stalled?}
function H.PeerClock(S, p)
  local from = playerId(p.from)
  local t = int(p.t)
  if not from or not t then return 'PeerClock without a valid from and t' end
  if from == S.id then return 'PeerClock about this game itself' end
  if S.left[from] then
    log.once('leftclock:' .. n(from), 'info', 'PeerClock of ' .. n(from) .. ' after it left: ignored')
    return
  end
  local prev = S.peers[from]
  local peer = { t = t, safe = int(p.safe), need = int(p.need), ahead = int(p.ahead), pause = int(p.pause),
    stalled = p.stalled == true }
  if not prev then
    log.info('peer ' .. n(from) .. ' clock t=' .. n(t) .. ' safe=' .. (peer.safe and n(peer.safe) or '-'))
  end
  if prev and prev.stalled ~= peer.stalled then
    log.info('peer ' .. n(from) .. (peer.stalled and ' is stalled (not pacing)' or ' paces again'))
  end
  S.peers[from] = peer
end

-- The host's copy of this game's own action (the host relays every Action to its origin too): the own action waits in
-- the queue unconfirmed, holding the barrier at its stamp (feverlink3_session.lua), until this copy comes; from then
-- on it is the copy that is applied, as on every other game: the host's body, category, `allowed` and stamp. A host
-- BuildVeto before the copy drops it unapplied (H.BuildVeto). A copy of an own action confirmed already (its copy
-- read again: the backlog after a reload), or applied, refused or dropped here before, is ignored, and is no
-- duplicate; a copy of an action this game never made (a number above its last) is skipped.
local function ownCopy(S, copy, key, t)
  local mine = S.queue:find(copy.from, copy.seq)
  -- The first Lua state after a resync load drops its own actions the host had not confirmed (feverlink3_resync.lua
  -- `requeue`): the host's copies of those it relayed follow the load line (with whatever else the save lacks), and
  -- this game applies them with the others; those it never got are gone with the old world.
  -- Not the record of a held build made in a pause (`commit`): the peers park it and this game holds it (S.holding)
  -- until its BuildCommit; queued as an action it was applied in an ordinary action's place (the sim's seed 170, CI
  -- sizes with `heldBuilds`: `sameOrder: ... commit 4:1 stamp=20600 vs action 2:39`).
  local parkedRecord = copy.body ~= nil and copy.body.commit == true
  if mine == nil and not parkedRecord and S.resyncLoadedAt ~= nil and copy.stamp >= S.resyncLoadedAt
    and not S.queue:seen(copy.from, copy.seq) then
    local queued, problem = enqueue(S, copy, 'own Action ' .. key)
    if not queued then return problem end
    log.info('own Action ' .. key .. ' made before the resync load: the host\'s copy, stamp ' .. n(copy.stamp))
    return
  end
  if mine == nil or mine.kind ~= 'action' then
    if copy.seq <= S.seq then
      log.debug('own Action ' .. key .. ' came back after it was applied, refused or dropped here: ignored')
      return
    end
    return 'own Action ' .. key .. ' came back although this game made none above ' .. n(S.seq)
  end
  if not mine.unconfirmed then
    log.debug('own Action ' .. key .. ' came back again (confirmed already): ignored')
    return
  end
  mine.unconfirmed = nil
  mine.body, mine.category, mine.allowed = copy.body, copy.category, copy.allowed
  if copy.stamp ~= mine.stamp then
    log.warn('own Action ' .. key .. ' came back stamped ' .. n(copy.stamp) .. ' (sent stamped ' .. n(mine.stamp)
      .. '): applied at the stamp the others apply it at')
    S.queue:restamp(mine, copy.stamp)
  end
  log.info('own Action ' .. key .. ' confirmed by the host (' .. (mine.allowed == false and 'not allowed' or 'allowed')
    .. ') stamp ' .. n(mine.stamp) .. ' t ' .. n(t) .. ' margin ' .. n(mine.stamp - t) .. ' game-ms')
end

-- Action 50 {stamp, seq, body, category?, from, allowed, pause?, pauseSeq?, pauseUpto?}
function H.Action(S, p, t)
  local from, seq = playerId(p.from), int(p.seq, 1)
  if not from or not seq then return 'Action without a valid from and seq' end
  local body = p.body
  if type(body) ~= 'table' then body = nil end -- refused as decode at its stamp
  local item = { kind = 'action', from = from, seq = seq, body = body, category = rules.category(p.category),
    allowed = p.allowed }
  local key = apply.key(item)
  if p.pauseSeq ~= nil then
    local pauseSeq, upto, stamp = int(p.pauseSeq, 1), int(p.pauseUpto, 1), int(p.stamp)
    if not pauseSeq or not upto or not stamp or upto < pauseSeq then
      return 'pause-order Action ' .. key .. ' without a valid pauseSeq, pauseUpto and stamp'
    end
    item.kind, item.stamp, item.pauseSeq, item.pauseUpto = 'flush', stamp, pauseSeq, upto
    if pauseSeq > S.pauseRead then S.pauseRead = pauseSeq end
    if S.flushStamp == nil or stamp > S.flushStamp then S.flushStamp = stamp end
    local queued, problem = enqueue(S, item, 'Action ' .. key)
    if not queued then return problem end
    log.info('pause order: ' .. key .. ' pauseSeq ' .. n(pauseSeq) .. ' of ' .. n(upto) .. ' at ' .. n(stamp)
      .. ' (t=' .. n(t) .. ')')
    return
  end
  if p.pause == true then return 'pause Action ' .. key .. ' without pauseSeq (not stamped by the host)' end
  local stamp = int(p.stamp)
  if not stamp then return 'Action ' .. key .. ' without a valid stamp' end
  item.stamp = stamp
  if from == S.id then return ownCopy(S, item, key, t) end
  if body and body.commit == true then
    if S.parked[key] or S.queue:seen(from, seq) then return 'duplicate Action ' .. key end
    if (S.parkedCount[from] or 0) >= M.MAX_PARKED_PER_PLAYER or S.parkedTotal >= M.MAX_PARKED then
      apply.refuse(S, item, 'module', 'too many parked builds (' .. n(S.parkedCount[from] or 0) .. ' of player '
        .. n(from) .. ', ' .. n(S.parkedTotal) .. ' in all; at most ' .. n(M.MAX_PARKED_PER_PLAYER) .. ' per player): '
        .. key .. ' refused')
      return
    end
    builds.park(S, key, item)
    log.info('parked ' .. key .. ' until its BuildCommit')
    builds.judgeParked(S, item)
    return
  end
  local queued, problem = enqueue(S, item, 'Action ' .. key)
  if not queued then return problem end
  log.info('MARGIN ' .. key .. ' stamp ' .. n(stamp) .. ' t ' .. n(t) .. ' margin ' .. n(stamp - t) .. ' game-ms')
  rules.noteMargin(S.margins, stamp - t)
  if body and body.held == true then
    S.toJudge = S.toJudge or {}
    S.toJudge[#S.toJudge + 1] = item
  end
end

--- The peers' held builds read in this frame, judged once every line of the frame is read (feverlink3_builds.lua).
M.judge = builds.judge

-- Permissions 20 {build, bulldoze, spend, speed, other?}
function H.Permissions(S, p)
  S.permissions = p
  log.info('permissions: ' .. (json.encode(p) or '?'))
end

-- PlayerJoined 13 {player: {id, name, ready}}
function H.PlayerJoined(S, p)
  local player = type(p.player) == 'table' and p.player or {}
  local id = playerId(player.id)
  if not id then return 'PlayerJoined without a valid id' end
  S.left[id] = nil
  log.info('player joined: ' .. n(id) .. ' ' .. oneLine(player.name, 64))
end

-- PlayerLeft 14 {id, name, away?}: no longer a pacing peer; its parked builds are dropped.
function H.PlayerLeft(S, p)
  local id = playerId(p.id)
  if not id then return 'PlayerLeft without a valid id' end
  S.left[id] = true
  S.peers[id] = nil
  local gone = {}
  for key, item in pairs(S.parked) do
    if item.from == id then gone[#gone + 1] = key end
  end
  table.sort(gone) -- one order in the log on every game
  for _, key in ipairs(gone) do
    builds.unpark(S, key)
    log.info('dropped parked ' .. key .. ': its originator left')
  end
  log.info('player left: ' .. n(id) .. ' ' .. oneLine(p.name, 64) .. (p.away == true and ' (away)' or ''))
end

-- Chat 51 {text, from, name, level?}
-- ResyncSave 17 / ResyncLoad 19 (feverlink3_resync.lua); lineEnd: the byte after this line in to_game.log
function H.ResyncSave(S, p)
  return resync.save(S, p)
end

function H.ResyncLoad(S, p, _, lineEnd)
  return resync.load(S, p, lineEnd)
end

function H.Chat(S, p)
  log.info('CHAT ' .. oneLine(p.name, 64) .. ' (' .. n(playerId(p.from) or -1) .. ')'
    .. (type(p.level) == 'string' and (' [' .. oneLine(p.level, 8) .. ']') or '') .. ': ' .. oneLine(p.text, 500))
end

--- Handles one line of to_game.log (text without '\n', pos = its byte offset) while the world stands at t.
function M.handle(S, text, pos, t)
  local tab = text:find('\t', 1, true)
  local where = 'to_game.log@' .. n(pos)
  if not tab then
    skipped('no tab', where .. ': no tab, line skipped')
    return
  end
  local kind = text:sub(1, tab - 1)
  local handler = H[kind]
  if not handler then
    -- a kind this mod does not handle (a newer launcher, or a kind for the launcher only): not decoded at all
    if #kind > 64 or kind:find('[^%w_]') then
      skipped('bad kind', where .. ': not a kind name (' .. oneLine(kind, 40) .. '), line skipped')
    else
      log.once('kind:' .. kind, 'info', where .. ': lines of kind ' .. kind .. ' are not handled yet')
    end
    return
  end
  local payload, err = json.decode(text:sub(tab + 1))
  if type(payload) ~= 'table' or getmetatable(payload) == json.ARRAY then
    skipped('payload ' .. kind, where .. ': ' .. kind .. ' payload is not a JSON object (' .. tostring(err or 'array')
      .. '), skipped')
    return
  end
  local ok, problem = pcall(handler, S, payload, t, pos + #text + 1)
  if not ok then
    skipped('failed ' .. kind, where .. ': ' .. kind .. ' failed: ' .. tostring(problem))
  elseif problem then
    skipped('refused ' .. kind, where .. ': ' .. problem .. ', skipped')
  end
end

return M
