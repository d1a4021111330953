-- FeverLink3: the local player's commands and speed requests (docs/ENGINE.md §3 command, requestSpeed;
-- spec/lockstep.md "Stamps"): a command the mod carries is stamped and written as an Action (a pause action for the
-- host to stamp while the game stands at a pause; a held strict build made in a pause parked by the peers,
-- feverlink3_hold.lua), queued unconfirmed until the host's copy, or dropped on every game alike when it cannot be
-- carried. The session controller (feverlink3_session.lua) calls these with its state S.
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local rules = require('feverlink3_lockstep')
local hold = require('feverlink3_hold')
local replay = require('feverlink3_replay')

local M = {}
local n = log.n
local pausedStanding = hold.pausedStanding

-- The hop of an Action this mod writes (spec "Latency stamps", logs only): g = the game's wall clock, ms since 1970,
-- from the optional engine.wallClock(); nothing without it (the mod has no wall clock of its own: os.clock counts
-- from the process start).
local function hop(S)
  local ok, w = pcall(function() return S.engine.wallClock() end)
  if ok and type(w) == 'number' and w == w and w > 0 and w < 1e14 then return { g = math.floor(w) } end
  return nil
end
M.hop = hop

--- A local command before the game applies it: true = the mod carries it (stamped, sent, applied at the stamp).
-- strict = true: a held strict build (spec architecture §6, lockstep.md): running, its record carries held = true and
-- a stamp max(1, ahead/2) steps further (peers dry-run it and may veto); standing in a pause, its record carries
-- commit = true (peers park it), its stamp is this game's `need` on every Clock, and after a grace the BuildCommit
-- makes every game apply it (feverlink3_hold.commitHeld). One held build in a pause at a time: another strict
-- command meanwhile is carried as an ordinary one.
function M.command(S, cmd, category, strict)
  if not S.active then return false end
  local text, err = json.encode(cmd)
  if type(cmd) ~= 'table' or not text then
    local why = tostring(err or 'not a table')
    log.warn('command not carried (applied natively on this game only): ' .. why)
    -- in a started session this game's world now holds a change no other game makes: the host repairs it (once per
    -- state: the repair's load starts a fresh one, and the host's request stands until then)
    if S.started then
      replay.failed(S, 'uncarried', 'a command of this game could not be carried (' .. why .. '): applied on this '
        .. 'game only')
    end
    return false
  end
  local body = json.decode(text) -- the originator applies exactly what the peers decode
  category = rules.category(category)
  if S.outbox:full() or not S.queue:hasRoom(S.id) then
    -- the mod cannot carry it now (the launcher takes no lines, or too many own actions wait): it is dropped on
    -- every game alike (true: the game must not apply it natively), logged and shown
    S.dropped = S.dropped + 1
    log.error('command dropped: ' .. (S.outbox:full() and 'the outbox is full (from_game.log takes no lines)'
      or 'too many own actions wait for their stamps') .. '; commands dropped so far: ' .. n(S.dropped))
    pcall(function() S.engine.notify('warn', 'FeverLink3: your command was dropped: the link to the launcher is stalled') end)
    return true
  end
  local t = S.engine.time()
  local seq = S.seq + 1
  strict = strict == true and type(body) == 'table' and getmetatable(body) ~= json.ARRAY
  if strict and S.started and pausedStanding(S, t) and S.holding == nil then
    body.commit = true
    local stamp = rules.stamp(t, S.safe, S.ahead)
    if not S.outbox:add('Action', { stamp = stamp, seq = seq, body = body, category = category, hop = hop(S) }) then
      S.dropped = S.dropped + 1
      return true
    end
    S.seq = seq
    S.holding = { seq = seq, body = body, category = category, since = link.wallMs(),
      grace = rules.commitGrace(S.ahead, S.runSpeed) }
    S.need = rules.commitStamp(t, S.peers, S.flushStamp)
    log.info('held build ' .. n(S.id) .. ':' .. n(seq) .. ' made in the pause at t ' .. n(t) .. ': parked by the peers, '
      .. 'committed at ' .. n(S.need) .. ' after ' .. n(S.holding.grace) .. ' ms without a veto')
    return true
  end
  if pausedStanding(S, t) then
    if not S.outbox:add('Action', { seq = seq, body = body, category = category, pause = true, hop = hop(S) }) then
      S.dropped = S.dropped + 1
      return true -- refused by the outbox (logged there): dropped on every game alike
    end
    S.seq = seq
    log.info('pause action ' .. n(S.id) .. ':' .. n(S.seq) .. ' sent at t ' .. n(t) .. ' (the host stamps it)')
    return true
  end
  local stamp = rules.stamp(t, S.safe, S.ahead)
  if strict and S.started then
    body.held = true
    stamp = rules.heldStamp(t, S.safe, S.ahead)
  end
  if not S.outbox:add('Action', { stamp = stamp, seq = seq, body = body, category = category, hop = hop(S) }) then
    S.dropped = S.dropped + 1
    return true -- refused by the outbox (logged there): not queued here either, so dropped on every game alike
  end
  S.seq = seq
  -- queued unconfirmed: applied only with the host's copy (its `allowed`); a host BuildVeto before it drops it
  S.queue:push({ kind = 'action', stamp = stamp, from = S.id, seq = S.seq, body = body, category = category,
    unconfirmed = true })
  -- it holds the barrier at its stamp from now on, not only from the next frame: the engine may run several steps
  -- before it (a reload's backlog or a resync load already holds the world where it stands)
  if not S.resume and not S.reload then
    S.barrier = rules.minOpt(S.barrier, stamp)
    S.pace.limit = rules.minOpt(S.pace.limit, stamp)
    S.engine.setLimit(S.pace.limit)
  end
  log.info('action ' .. n(S.id) .. ':' .. n(S.seq) .. ' stamped ' .. n(stamp) .. ' at t ' .. n(t)
    .. ' (applied once the host sends it back)')
  return true
end

--- The local player asks for a speed (0 = pause): a SpeedRequest to the host. True when sent.
function M.requestSpeed(S, s)
  if not S.active then return false end
  if not rules.isSpeed(s) then
    log.warn('requestSpeed(' .. tostring(s) .. '): not a speed (0, 1, 2, 4)')
    return false
  end
  S.outbox:add('SpeedRequest', { speed = s })
  log.info('SpeedRequest ' .. n(s))
  return true
end

return M
