-- FeverLink3: the builds that wait for a decision (spec architecture §6 "Veto-only validation"; lockstep.md): a peer's
-- held build queued here (judged once the frame's lines are read: dry run, a veto), a peer's parked build (made in a
-- pause: parked until its BuildCommit 53), this game's vetoes and the host's answers, and the handlers of
-- BuildCommit 53 and BuildVeto 52 (feverlink3_inbox.lua routes the lines here). The parking limits are
-- feverlink3_inbox's (MAX_PARKED_PER_PLAYER, MAX_PARKED), checked where an Action is read.
local log = require('feverlink3_log')
local apply = require('feverlink3_apply')
local lines = require('feverlink3_lines')
local replay = require('feverlink3_replay')

local M = {}
local n = log.n
local int, playerId, oneLine, enqueue = lines.int, lines.playerId, lines.oneLine, lines.enqueue

--- Parks a peer's build (body.commit) until its BuildCommit.
function M.park(S, key, item)
  S.parked[key] = item
  S.parkedCount[item.from] = (S.parkedCount[item.from] or 0) + 1
  S.parkedTotal = S.parkedTotal + 1
end

local function unpark(S, key)
  local item = S.parked[key]
  if not item then return nil end
  S.parked[key] = nil
  local left = (S.parkedCount[item.from] or 1) - 1
  S.parkedCount[item.from] = left > 0 and left or nil
  S.parkedTotal = S.parkedTotal - 1
  return item
end
M.unpark = unpark

-- The dry run of a held strict build (spec architecture §6 "Veto-only validation"): engine.dryRun(body), optional,
-- answers like engine.apply (ok, class, detail, or one table) without changing the world. nil = it could be built (or
-- the engine cannot tell: silence means yes); otherwise the first cause.
local function dryRunProblem(S, body)
  if type(body) ~= 'table' then return nil end
  local has, fn = pcall(function() return S.engine.dryRun end)
  if not has or type(fn) ~= 'function' then return nil end
  local ok, r1, r2, r3 = pcall(fn, body)
  if not ok then return nil end
  if type(r1) == 'table' or type(r1) == 'userdata' then
    local readable, a, _, d = pcall(function() return r1.ok, r1.class, r1.detail end)
    if not readable then return nil end
    r1, r3 = a, d
  end
  if r1 then return nil end
  return oneLine(r3 ~= nil and r3 or r2 or 'cannot be built here', 300)
end

-- True when the veto was written (a full outbox refuses it: then it was never sent, and no answer will come).
local function sendVeto(S, item, why)
  return S.outbox:add('BuildVeto', { seq = item.seq, owner = item.from, why = why }) ~= false
end

-- A peer's held build (body.held) queued here: dry-run once the frame's lines are read (M.judge); a veto only while
-- this game's promise has not passed its stamp (S.safe <= stamp: no game may apply the stamp before it reads this
-- game's later Clock, which follows the veto). A vetoed build stays queued, `awaiting` the host's answer, and holds
-- this game's barrier at its stamp until then (feverlink3_session.lua): the host relays the veto to every game, this
-- one included (then it is dropped here as everywhere, M.BuildVeto), or answers this game alone that it came too late
-- (`late`: the host's promise for this game, or its own, had passed the stamp, or the build is no longer open; then it
-- is applied at its stamp as on every game). The host decides, in the one order it reads the games' messages in: a
-- game cannot know whether the host marked it stalled before its veto arrives (docs/DECISIONS.md "Every game veto is
-- answered"). A veto later than its own promise could reach a game after it applied the build: not sent, logged.
local function judgeHeld(S, item)
  local why = dryRunProblem(S, item.body)
  if why == nil then return end
  local key = apply.key(item)
  if S.safe > item.stamp then
    log.warn('held build ' .. key .. ' cannot be built here (' .. why .. ') but this game promised ' .. n(S.safe)
      .. ', past its stamp ' .. n(item.stamp) .. ': too late to veto, applied at its stamp as on every game')
    return
  end
  if not sendVeto(S, item, why) then
    log.warn('held build ' .. key .. ' cannot be built here (' .. why .. ') but the veto could not be written (outbox '
      .. 'full): applied at its stamp as on every game')
    return
  end
  item.awaiting = true
  item.vetoWhy = why
  log.info('vetoed held ' .. key .. ': ' .. why .. ' (standing at its stamp ' .. n(item.stamp)
    .. ' at the latest until the host relays the veto or answers it came too late)')
end

-- A peer's parked build (body.commit): dry-run at once; a veto keeps it parked here until the veto comes back from the
-- host (then it is dropped as on every game) or its BuildCommit comes first (the host relayed that first: the veto
-- lost, it is applied as on every game).
function M.judgeParked(S, item)
  local why = dryRunProblem(S, item.body)
  if why == nil then return end
  item.vetoed = true
  sendVeto(S, item, why)
  log.info('vetoed parked ' .. apply.key(item) .. ': ' .. why .. ' (parked until the host relays the veto or the commit)')
end

--- The peers' held builds read in this frame, judged once every line of the frame is read (the Session and clocks
-- after a record count: a game reading a backlog learns there that it is stalled). Called by the session before it
-- applies anything standing.
function M.judge(S)
  local items = S.toJudge
  if items == nil then return end
  S.toJudge = nil
  for _, item in ipairs(items) do
    if S.queue:find(item.from, item.seq) == item then judgeHeld(S, item) end
  end
end

-- BuildCommit 53 {seq, owner, stamp, from}: the parked build owner:seq is applied at stamp.
function M.BuildCommit(S, p)
  local owner, seq, stamp = playerId(p.owner), int(p.seq, 1), int(p.stamp)
  if not owner or not seq or not stamp then return 'BuildCommit without a valid owner, seq and stamp' end
  local key = n(owner) .. ':' .. n(seq)
  if owner == S.id then
    -- the host's copy of this game's own BuildCommit: its queued item is applied from now on (as an own Action's)
    local mine = S.queue:find(owner, seq)
    if mine == nil or mine.kind ~= 'commit' or not mine.unconfirmed then
      log.debug('own BuildCommit ' .. key .. ' came back (not waiting here): ignored')
      return
    end
    mine.unconfirmed = nil
    if mine.stamp ~= stamp then S.queue:restamp(mine, stamp) end
    log.info('own BuildCommit ' .. key .. ' confirmed by the host at ' .. n(stamp))
    return
  end
  local item = unpark(S, key)
  if not item then return 'BuildCommit for ' .. key .. ' that is not parked here' end
  if item.vetoed then log.info('BuildCommit ' .. key .. ' came before this game\'s veto: the veto lost, applied') end
  item.kind, item.stamp = 'commit', stamp
  local queued, problem = enqueue(S, item, 'BuildCommit ' .. key)
  if not queued then return problem end
  log.info('BuildCommit ' .. key .. ' at ' .. n(stamp))
end

-- The host's answer to this game's own veto that it did not relay (BuildVeto `late: true`, to the vetoer alone): too
-- late (some game may have applied the build) or nothing of that number was open any more. A held build waiting for
-- the answer is applied at its stamp as on every game; a parked one stays parked until its BuildCommit or the host's
-- veto. Whatever else ended the build (another game's veto relayed, the host's veto, the commit) came before this
-- answer on the host's one ordered path: nothing is queued then, and the answer is ignored.
local function lateAnswer(S, owner, seq, key, p)
  if playerId(p.from) ~= S.id then return 'BuildVeto late about a veto of another game (' .. key .. ')' end
  local why = oneLine(p.why, 300)
  local item = S.queue:find(owner, seq)
  if item ~= nil and item.awaiting then
    item.awaiting, item.vetoWhy = nil, nil
    log.warn('veto of held build ' .. key .. ' came too late at the host (' .. why .. '): applied at its stamp '
      .. n(item.stamp) .. ' as on every game')
    return
  end
  local parked = S.parked[key]
  if parked ~= nil and parked.vetoed then
    parked.vetoed = nil
    log.warn('veto of parked build ' .. key .. ' not relayed by the host (' .. why .. '): parked until its BuildCommit '
      .. 'or the host\'s veto')
    return
  end
  log.debug('late answer to the veto of ' .. key .. ': nothing waits for it here (' .. why .. ')')
end

-- BuildVeto 52 {seq, owner, why, from, name, host?, late?}: the action owner:seq is built nowhere; with `late` (the
-- host's answer to this game's own veto, to it alone): the veto was not relayed (lateAnswer). The originator announces
-- a veto of its own build once in the chat; a veto of a build this game had already applied leaves its world holding
-- what the others dropped: ReplayFailed (feverlink3_replay.lua; spec architecture §6 "vetoes in words" (3)).
function M.BuildVeto(S, p)
  local owner, seq = playerId(p.owner), int(p.seq, 1)
  if not owner or not seq then return 'BuildVeto without a valid owner and seq' end
  local key = n(owner) .. ':' .. n(seq)
  if p.late == true and p.host ~= true then return lateAnswer(S, owner, seq, key, p) end
  local by = p.host == true and 'the host' or (playerId(p.from) == S.id and 'this game')
    or oneLine(p.name or ('player ' .. n(p.from or -1)), 64)
  local why = oneLine(p.why, 300)
  local detail = 'vetoed by ' .. by .. ': ' .. why
  local h = S.holding
  S.vetoedOwn = S.vetoedOwn or {}
  if owner == S.id and h ~= nil and h.seq == seq then
    -- this game's held build of the pause, not committed yet: cancelled here as on every game
    S.holding, S.need = nil, nil
    S.vetoedOwn[seq] = true
    replay.ownVetoCancelled(S, key, by, why)
    apply.refuse(S, { from = owner, seq = seq }, 'module', detail)
    return
  end
  local item = unpark(S, key) or S.queue:remove(owner, seq)
  if not item and apply.wasApplied(S, key) then
    -- applied here before the veto came: this world holds a build the others dropped (its verdict said applied)
    log.warn('BuildVeto for ' .. key .. ' after this game had applied it: ' .. detail)
    replay.vetoAfterApplied(S, key, owner, by, why)
    return
  end
  if not item and p.host ~= true and playerId(p.from) == S.id then
    log.debug('own BuildVeto of ' .. key .. ' came back (dropped here when vetoed)')
    return
  end
  if not item and owner == S.id and seq <= S.seq and not S.vetoedOwn[seq] then
    -- an own build this game no longer holds, vetoed: it was applied nowhere (an own action or commit is applied only
    -- with the host's copy, which a veto replaces), so this game refuses it. It forgot it in a load: a resync round's
    -- load starts a fresh state, which keeps no held build of the pause nor parked record (the host refuses those on
    -- every game when the round saves, and a record made meanwhile; the veto reaches this game after its load).
    S.vetoedOwn[seq] = true
    log.info('own build ' .. key .. ' vetoed after this game forgot it (a load): refused here too')
    replay.ownVetoCancelled(S, key, by, why)
    apply.refuse(S, { from = owner, seq = seq }, 'module', detail)
    return
  end
  if not item and S.left[owner] then
    -- its originator left or dropped: its parked record was dropped here at its PlayerLeft, and the host then refuses
    -- it on every game, for the originator's sake (machines/rules/lockstepSteps/builds.ts closeParkedOf)
    log.info('BuildVeto for ' .. key .. ': dropped here when its originator left (' .. detail .. ')')
    return
  end
  if not item then
    log.warn('BuildVeto for ' .. key .. ' that is not queued here (unknown, or applied before this state began): '
      .. detail)
    return
  end
  if owner == S.id then
    S.vetoedOwn[seq] = true
    replay.ownVetoCancelled(S, key, by, why)
  end
  apply.refuse(S, item, 'module', detail)
end

return M
