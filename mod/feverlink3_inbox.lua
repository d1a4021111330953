-- FeverLink3: the link lines the launcher sends to the game (to_game.log), checked and turned into session state:
-- Session 11, PeerClock 12, PlayerJoined 13, PlayerLeft 14, Permissions 20, Action 50, Chat 51, BuildVeto 52,
-- BuildCommit 53 (wire-protocol.txt payloads; spec/lockstep.md). Nothing from the link is trusted unchecked:
-- a line that does not fit is logged and skipped, never fatal.
local json = require('feverlink3_json')
local rules = require('feverlink3_lockstep')
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

local function oneLine(s, max)
  s = tostring(s or ''):gsub('[%c]+', ' ')
  if #s > max then s = s:sub(1, max) .. '...' end
  return s
end

local H = {}

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
    local ok = S.queue:push(item)
    if not ok then return 'duplicate Action ' .. key end
    log.info('pause order: ' .. key .. ' pauseSeq ' .. n(pauseSeq) .. ' of ' .. n(upto) .. ' at ' .. n(stamp)
      .. ' (t=' .. n(t) .. ')')
    return
  end
  if p.pause == true then return 'pause Action ' .. key .. ' without pauseSeq (not stamped by the host)' end
  if from == S.id then return 'own Action ' .. key .. ' came back: ignored' end
  local stamp = int(p.stamp)
  if not stamp then return 'Action ' .. key .. ' without a valid stamp' end
  item.stamp = stamp
  if body and body.commit == true then
    if S.parked[key] or S.queue:seen(from, seq) then return 'duplicate Action ' .. key end
    S.parked[key] = item
    log.info('parked ' .. key .. ' until its BuildCommit')
    return
  end
  local ok = S.queue:push(item)
  if not ok then return 'duplicate Action ' .. key end
  log.info('MARGIN ' .. key .. ' stamp ' .. n(stamp) .. ' t ' .. n(t) .. ' margin ' .. n(stamp - t) .. ' game-ms')
  rules.noteMargin(S.margins, stamp - t)
end

-- BuildCommit 53 {seq, owner, stamp, from}: the parked build owner:seq is applied at stamp.
function H.BuildCommit(S, p)
  local owner, seq, stamp = playerId(p.owner), int(p.seq, 1), int(p.stamp)
  if not owner or not seq or not stamp then return 'BuildCommit without a valid owner, seq and stamp' end
  local key = n(owner) .. ':' .. n(seq)
  local item = S.parked[key]
  if not item then return 'BuildCommit for ' .. key .. ' that is not parked here' end
  S.parked[key] = nil
  item.kind, item.stamp = 'commit', stamp
  S.queue:push(item)
  log.info('BuildCommit ' .. key .. ' at ' .. n(stamp))
end

-- BuildVeto 52 {seq, owner, why, from, name, host?}: the action owner:seq is built nowhere.
function H.BuildVeto(S, p)
  local owner, seq = playerId(p.owner), int(p.seq, 1)
  if not owner or not seq then return 'BuildVeto without a valid owner and seq' end
  local key = n(owner) .. ':' .. n(seq)
  local by = p.host == true and 'the host' or oneLine(p.name or ('player ' .. n(p.from or -1)), 64)
  local detail = 'vetoed by ' .. by .. ': ' .. oneLine(p.why, 300)
  local item = S.parked[key] or S.queue:remove(owner, seq)
  S.parked[key] = nil
  if not item then
    log.warn('BuildVeto for ' .. key .. ' that is not queued here (already applied or unknown): ' .. detail)
    return
  end
  apply.refuse(S, item, 'module', detail)
end

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
  for key, item in pairs(S.parked) do
    if item.from == id then
      S.parked[key] = nil
      log.info('dropped parked ' .. key .. ': its originator left')
    end
  end
  log.info('player left: ' .. n(id) .. ' ' .. oneLine(p.name, 64) .. (p.away == true and ' (away)' or ''))
end

-- Chat 51 {text, from, name, level?}
function H.Chat(S, p)
  log.info('CHAT ' .. oneLine(p.name, 64) .. ' (' .. n(playerId(p.from) or -1) .. ')'
    .. (type(p.level) == 'string' and (' [' .. oneLine(p.level, 8) .. ']') or '') .. ': ' .. oneLine(p.text, 500))
end

--- Handles one line of to_game.log (text without '\n', pos = its byte offset) while the world stands at t.
function M.handle(S, text, pos, t)
  local tab = text:find('\t', 1, true)
  local where = 'to_game.log@' .. n(pos)
  if not tab then
    log.warn(where .. ': no tab, line skipped')
    return
  end
  local kind = text:sub(1, tab - 1)
  local payload, err = json.decode(text:sub(tab + 1))
  if type(payload) ~= 'table' or getmetatable(payload) == json.ARRAY then
    log.warn(where .. ': ' .. oneLine(kind, 40) .. ' payload is not a JSON object (' .. tostring(err or 'array')
      .. '), skipped')
    return
  end
  local handler = H[kind]
  if not handler then
    log.once('kind:' .. kind, 'info', where .. ': lines of kind ' .. oneLine(kind, 40) .. ' are not handled yet')
    return
  end
  local ok, problem = pcall(handler, S, payload, t)
  if not ok then
    log.error(where .. ': ' .. kind .. ' failed: ' .. tostring(problem))
  elseif problem then
    log.warn(where .. ': ' .. problem .. ', skipped')
  end
end

return M
