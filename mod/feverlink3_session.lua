-- FeverLink3: the session controller, the callbacks of docs/ENGINE.md §3 (init, frame, beforeStep, command,
-- requestSpeed, status). Implements spec/lockstep.md on the game's side: Hello, Clock lines and the promise
-- `safe`, the input barrier through engine.setLimit, pause and speed from Session, stamps, apply order, verdicts.
-- It holds the session's state S and reads the link each frame; the pace and the Clock line are
-- feverlink3_pace.lua, the held build made in a pause feverlink3_hold.lua, the local commands feverlink3_command.lua.
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local rules = require('feverlink3_lockstep')
local Queue = require('feverlink3_queue')
local random = require('feverlink3_random')
local Outbox = require('feverlink3_outbox')
local inbox = require('feverlink3_inbox')
local apply = require('feverlink3_apply')
local resume = require('feverlink3_resume')
local checksum = require('feverlink3_checksum')
local resync = require('feverlink3_resync')
local pace = require('feverlink3_pace')
local hold = require('feverlink3_hold')
local command = require('feverlink3_command')

local M = {}
local n = log.n

--- How often identity.txt is looked at again: a new `start=` means a new launcher session in this folder.
M.IDENTITY_CHECK_MS = 1000

local S -- the state of this Lua state's session

local function fresh()
  return {
    active = false, engine = nil, id = nil, name = nil, role = nil,
    started = false, sessionSpeed = 0, pauseAt = nil, stalledIds = {},
    ahead = rules.DEFAULT_AHEAD, safe = 0, need = nil, holding = nil, flushStamp = nil,
    seq = 0, late = 0, pauseRead = 0, margins = {}, vetoedOwn = {},
    peers = {}, left = {}, parked = {}, parkedCount = {}, parkedTotal = 0, permissions = nil,
    queue = Queue.new(), outbox = Outbox.new(), held = false, dropped = 0,
    lastClock = nil, lastClockWall = nil,
    pace = { limit = nil, speed = 0, stop = false }, barrier = nil, loadedAt = nil, loadedFrom = nil, skippingToLoad = nil,
    start = nil, identityCheckedAt = nil, resume = nil,
  }
end
S = fresh()

--- identity.txt: `key=value` lines; a value is everything after the first '=' (docs/FILE_LINK.md).
local function parseIdentity(text)
  local id = {}
  for line in (text .. '\n'):gmatch('([^\n]*)\n') do
    local k, v = line:gsub('\r$', ''):match('^([^=]+)=(.*)$')
    if k then id[k] = v end
  end
  return id
end

local function parsePosition(text)
  local g, o = tostring(text or ''):match('^%s*(%d+):(%d+)%s*$')
  if not g then return nil end
  return tonumber(g), tonumber(o)
end

--- Reads the environment and identity; stays inactive without a session. Returns true when active.
function M.init()
  S = fresh()
  log.reset()
  inbox.reset()
  log.setGameTime(nil)
  local ok, why = link.init()
  if not ok then
    log.info('inactive: ' .. why)
    return false
  end
  local text, err = link.readFile('identity.txt')
  if not text then
    log.warn('inactive: no identity.txt in ' .. link.dir() .. ' (' .. tostring(err) .. ')')
    log.flush()
    return false
  end
  local identity = parseIdentity(text)
  local id = inbox.playerId(tonumber(identity.id or ''))
  if not id then
    log.error('inactive: identity.txt has no valid id')
    log.flush()
    return false
  end
  local engine = rawget(_G, 'engine')
  if type(engine) ~= 'table' and type(engine) ~= 'userdata' then
    log.error('inactive: the game provides no engine table')
    log.flush()
    return false
  end
  S.engine, S.id, S.name, S.role = engine, id, identity.name or '', identity.role or (id == 0 and 'host' or 'player')
  S.start = identity.start
  S.identityCheckedAt = link.wallMs()
  local gen, offset = parsePosition(identity.start)
  gen, offset = gen or 1, offset or 0
  -- After a resync load (feverlink3_resync.lua) reading goes on at the launcher's cursor, just after the load line; a
  -- fresh start reads from the session's start (a game started after its load line was written loads it then).
  local loadedSave, carried = resync.loaded()
  local cursorGen, cursorOffset = parsePosition(link.readFile('resync_cursor.txt'))
  local loadedFrom
  if loadedSave and cursorGen and cursorGen >= gen then
    gen, offset = cursorGen, cursorOffset
    loadedFrom = { gen = gen, offset = offset }
    log.info('resuming to_game.log at the resync cursor ' .. n(gen) .. ':' .. n(offset))
  end
  link.setPosition(gen, offset)
  log.setGameTime(function() return S.engine.time() end)
  if link.endTornTail('from_game.log') then log.warn('from_game.log ended in a torn line: ended it with a newline') end
  local probe = link.probe()
  local hasDebugPrint = type(rawget(_G, 'debugPrint')) == 'function'
  log.info('official api probe: io=' .. tostring(probe.io) .. ' os.getenv=' .. tostring(probe.getenv)
    .. ' os.clock=' .. tostring(probe.clock) .. ' debugPrint=' .. tostring(hasDebugPrint))
  S.active = true
  -- Deterministic math.random (architecture §7 item 2): reseeded from the game time in every beforeStep.
  local t = engine.time()
  -- Stand until this state's first frame sets the limit from the session (it does in every frame): the engine still
  -- holds the last limit of the old Lua state, after a resync load the OLD world's, which a loaded world whose time
  -- lies before it would run up to in this frame's steps, past what this state has read.
  pcall(function() engine.setLimit(t) end)
  S.loadedAt = t -- G5: a pauseAt before the time this world was loaded at counts as that time
  random.seed(t)
  math.random = random.random
  math.randomseed = function()
    log.once('randomseed', 'warn', 'math.randomseed ignored: the generator is seeded from the game time')
  end
  local saved = resume.load(S.start, t)
  if saved then
    -- loaded again in the same session and world: continue (feverlink3_resume.lua), no new Hello
    S.seq, S.safe, S.loadedSave, S.loadedFrom = saved.seq, saved.safe, saved.loaded, saved.loadedFrom
    S.resyncLoadedAt = saved.resyncLoadedAt
    S.resume = { t0 = t, savedT = saved.t, gen = saved.gen, offset = saved.offset }
    for _, own in ipairs(saved.own) do
      -- an own action whose copy had come stays confirmed (the host's fields were saved with it); one still waiting
      -- for its copy waits on: the copy comes after the saved read position, or in the backlog read again
      -- an own BuildCommit (its parked build committed, applied when the games leave the stop) waits the same way
      local stamp, seq = inbox.int(own.stamp), inbox.int(own.seq, 1)
      if stamp and seq and stamp >= t then
        S.queue:push({ kind = own.kind == 'commit' and 'commit' or 'action', stamp = stamp, from = id, seq = seq, body = own.body,
          category = rules.category(own.category), allowed = own.allowed,
          unconfirmed = own.unconfirmed == true or nil })
      end
    end
    log.warn('loaded again in the same session and world (t ' .. n(t) .. ', saved at ' .. n(saved.t)
      .. '): continuing after action ' .. n(S.seq) .. ' with the promise ' .. n(S.safe) .. ', '
      .. n(S.queue:size(id)) .. ' own actions waiting; reading the backlog to ' .. n(saved.gen) .. ':'
      .. n(saved.offset) .. ' again without applying it')
  else
    S.loadedSave, S.loadedFrom = loadedSave, loadedFrom
    if carried then
      -- after a resync load (feverlink3_resync.lua): own action numbers go on, the items waiting for a later stamp wait on
      S.seq, S.pauseRead = carried.seq, carried.pauseRead
      local requeued = resync.requeue(S, carried, t)
      log.info('resync load: ' .. n(requeued) .. ' waiting items carried over, own actions go on after ' .. n(S.seq))
    end
    S.outbox:add('Hello', { time = t, save = loadedSave })
  end
  log.info('active: ' .. S.role .. ' ' .. S.name .. ' (id ' .. n(id) .. '), session ' .. link.dir()
    .. ', reading to_game.log from ' .. n(gen) .. ':' .. n(offset) .. ', Hello at ' .. n(t))
  pcall(function() S.engine.notify('info', 'FeverLink3: session active as ' .. S.name) end)
  S.outbox:flush()
  -- The state file now, not at the end of the first frame: a resync load emptied it and resync.loaded cleared the
  -- marker, so a Lua state loaded again before that frame started fresh (a Hello without the save, which the host takes
  -- for a fresh start, the round's save loaded a second time, own action numbers from 1 again).
  if not S.resume then resume.save(S, t, link.position()) end
  log.flush()
  return true
end

-- The hop of an Action this mod writes (feverlink3_command.lua).
M.hop = function() return command.hop(S) end

-- After a reload that continues (feverlink3_resume.lua): once reading reaches what the previous Lua state had read
-- (the line at `pos` or the read position), what it applied is taken out of the queue, unapplied.
local function endBacklog(pos)
  local r = S.resume
  if not r then return end
  local gen, offset = link.position()
  if pos ~= nil then offset = pos end
  if gen < r.gen or (gen == r.gen and offset < r.offset) then return end
  S.resume = nil
  local dropped = resume.prune(S, r.t0, r.savedT)
  log.info('backlog read again: ' .. n(dropped) .. ' items the previous Lua state had applied taken out unapplied')
end

local function frameBody()
  local t = S.engine.time()
  local lines, replaced, skipped = link.readLines('to_game.log')
  if replaced then log.warn('to_game.log is shorter than what was read: replaced, reading it again from byte 0') end
  for _, line in ipairs(skipped or {}) do
    inbox.skipped('too long', 'to_game.log@' .. n(line.pos) .. ': ' .. line.reason .. ', skipped')
  end
  for _, line in ipairs(lines) do
    endBacklog(line.pos)
    inbox.handle(S, line.text, line.pos, t)
    if S.reload then break end -- a resync load: the lines after it are the loaded world's (feverlink3_resync.lua)
  end
  if S.reload or S.skippingToLoad then
    S.engine.setLimit(t) -- stand until the load (or until the later load a superseded one leads to)
    return
  end
  endBacklog(nil)
  if S.resume then
    -- the backlog of a reload is not read completely yet: stand
    S.engine.setLimit(t)
    return
  end
  inbox.judge(S) -- the peers' held builds read so far: dry run, veto (feverlink3_inbox.lua)
  pace.applyStanding(S, t)
  resync.saveDue(S) -- a ResyncSave read in this frame: the world as it stands after the standing items
  pace.updatePace(S, t)
  checksum.standing(S, t) -- a paused round, once the world stands still
  hold.commitHeld(S, t)
  pace.maybeClock(S, t)
end

-- The launcher (re)opening the folder replaces to_game.log and writes identity.txt with a new start=<gen>:0: a new
-- session for this game. Returns true when the mod started again.
local function newLauncherSession()
  local now = link.wallMs()
  if now - S.identityCheckedAt < M.IDENTITY_CHECK_MS then return false end
  S.identityCheckedAt = now
  local text = link.readFile('identity.txt')
  if not text then return false end
  local start = parseIdentity(text).start
  if start == nil or start == S.start then return false end
  log.warn('identity.txt names a new start ' .. tostring(start) .. ' (was ' .. tostring(S.start)
    .. '): a new launcher session, starting again')
  S.outbox:flush()
  log.flush()
  M.init()
  return true
end

--- Every frame: read the link, apply what is due standing, set limit and speed, write queued lines and the Clock.
function M.frame()
  if not S.active then return end
  if newLauncherSession() and not S.active then return end
  if S.reload then
    -- a resync load waits for the launcher's resync cursor; once loaded the mod starts again, as a fresh Lua state
    local okLoad, result = pcall(resync.pending, S)
    if okLoad and result == 'loaded' then
      log.flush() -- the old state's last lines (init's log.reset drops what is not written)
      M.init()
      return
    end
    if not okLoad then log.error('resync load failed: ' .. tostring(result)) S.reload = nil end
    if S.reload then
      pcall(function() S.engine.setLimit(S.engine.time()) end)
      S.outbox:flush()
      log.flush()
      return
    end
  end
  local ok, err = xpcall(frameBody, debug and debug.traceback or tostring)
  if not ok then
    -- fail safe: a fault in the controller must not let the world run past what it holds
    log.error('frame failed: ' .. tostring(err))
    pcall(function() S.engine.setLimit(S.engine.time()) end)
  end
  S.outbox:flush()
  if not S.resume then
    local gen, offset = link.position()
    resume.save(S, S.engine.time(), gen, offset)
  end
  -- fail safe: while the outbox is full (from_game.log takes no lines) the world stands: a step would make
  -- verdicts and promises the launcher cannot be told
  if S.outbox:full() then
    pcall(function() S.engine.setLimit(S.engine.time()) end)
    if not S.held then
      S.held = true
      log.error('standing still: ' .. n(S.outbox:size()) .. ' lines wait for from_game.log (outbox full)')
    end
  elseif S.held then
    S.held = false
    log.warn('the outbox has room again: running on')
  end
  log.flush()
end

--- The world stands at t and is about to execute t → t+STEP: reseed the generator, apply everything stamped <= t.
function M.beforeStep(t)
  if not S.active then return end
  random.seed(t)
  if not rules.mayLeave(t, S.pace.limit) then
    log.once('limit:' .. n(t), 'error', 'BARRIER: the engine steps at ' .. n(t) .. ' although the limit is '
      .. n(S.pace.limit))
  end
  local due = S.queue:due(t, function(item) return pace.complete(S, item) end)
  for _, item in ipairs(due) do apply.apply(S, item, t) end
  checksum.beforeStep(S, t) -- a round at t reads the world after the items stamped <= t
  -- What this step decided (verdicts, a report) goes out now, not with the next frame: a Lua state loaded again
  -- before that frame continues past these items and cannot tell them again; a lost `partial` verdict left the host's
  -- partly built world unmarked and it became the repair's source (spec "Repair source"; simulator seed 478).
  if S.outbox:size() > 0 then
    S.outbox:flush()
    log.flush()
  end
end

--- A local command before the game applies it: true = the mod carries it (feverlink3_command.lua).
function M.command(cmd, category, strict)
  return command.command(S, cmd, category, strict)
end

--- The local player asks for a speed (0 = pause): a SpeedRequest to the host. True when sent.
function M.requestSpeed(s)
  return command.requestSpeed(S, s)
end

--- A read-only snapshot for the game's status and for tests.
function M.status()
  local t
  if S.active then t = S.engine.time() end
  local unconfirmedItems, awaitingVeto = pace.unconfirmedCount(S)
  return {
    active = S.active, id = S.id, name = S.name, t = t, safe = S.safe, ahead = S.ahead, barrier = S.barrier,
    limit = S.pace.limit, speed = S.pace.speed, started = S.started, pauseAt = S.pauseAt, stop = S.pace.stop,
    late = S.late, queued = S.queue:size(), seq = S.seq, pause = S.pauseRead, margin = rules.smallestMargin(S.margins),
    outbox = S.outbox:size(), outboxDropped = S.outbox:stats().dropped, appendFailures = S.outbox:stats().failures,
    held = S.held, parked = S.parkedTotal, dropped = S.dropped, unconfirmed = unconfirmedItems, awaitingVeto = awaitingVeto,
    need = S.need, holding = S.holding and S.holding.seq or nil,
  }
end

return M
