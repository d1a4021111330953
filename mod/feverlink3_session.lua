-- FeverLink3: the session controller, the callbacks of docs/ENGINE.md §3 (init, frame, beforeStep, command,
-- requestSpeed, status). Implements spec/lockstep.md on the game's side: Hello, Clock lines and the promise
-- `safe`, the input barrier through engine.setLimit, pause and speed from Session, stamps, apply order, verdicts.
local json = require('feverlink3_json')
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

local M = {}
local n = log.n

--- Clock cadence (docs/ENGINE.md §6): a changed t is reported at most every CLOCK_INTERVAL_MS, a heartbeat every
-- HEARTBEAT_MS, a change of stop/speed/pause/need/ahead/started at once.
M.CLOCK_INTERVAL_MS = 100
M.HEARTBEAT_MS = 1000
--- How often identity.txt is looked at again: a new `start=` means a new launcher session in this folder.
M.IDENTITY_CHECK_MS = 1000
--- A held build made in a pause that could not be committed in this long (wall ms) is given up here: no BuildCommit,
-- its need dropped; the host refuses it on every game 10 s after its record (machines/rules/heldBuilds.ts).
M.HOLD_GIVE_UP_MS = 9000
--- A game standing this long (wall ms) at the stamp of an own action whose copy the host has not sent back says so
-- once in mod.log (the copy comes within the round trip the lead covers; one that never comes holds the game there).
M.UNCONFIRMED_LOG_MS = 2000

local S -- the state of this Lua state's session
local commitHeld -- defined below

local function fresh()
  return {
    active = false, engine = nil, id = nil, name = nil, role = nil,
    started = false, sessionSpeed = 0, pauseAt = nil, stalledIds = {},
    ahead = rules.DEFAULT_AHEAD, safe = 0, need = nil, holding = nil, flushStamp = nil,
    seq = 0, late = 0, pauseRead = 0, margins = {}, vetoedOwn = {},
    peers = {}, left = {}, parked = {}, parkedCount = {}, parkedTotal = 0, permissions = nil,
    queue = Queue.new(), outbox = Outbox.new(), held = false, dropped = 0,
    lastClock = nil, lastClockWall = nil,
    pace = { limit = nil, speed = 0, stop = false }, barrier = nil, loadedAt = nil,
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
  if loadedSave and cursorGen and cursorGen >= gen then
    gen, offset = cursorGen, cursorOffset
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
  S.loadedAt = t -- G5: a pauseAt before the time this world was loaded at counts as that time
  random.seed(t)
  math.random = random.random
  math.randomseed = function()
    log.once('randomseed', 'warn', 'math.randomseed ignored: the generator is seeded from the game time')
  end
  local saved = resume.load(S.start, t)
  if saved then
    -- loaded again in the same session and world: continue (feverlink3_resume.lua), no new Hello
    S.seq, S.safe, S.loadedSave = saved.seq, saved.safe, saved.loaded
    S.resume = { t0 = t, gen = saved.gen, offset = saved.offset }
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
    S.loadedSave = loadedSave
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
  log.flush()
  return true
end

-- The hop of an Action this mod writes (spec "Latency stamps", logs only): g = the game's wall clock, ms since 1970,
-- from the optional engine.wallClock(); nothing without it (the mod has no wall clock of its own: os.clock counts
-- from the process start).
local function hop()
  local ok, w = pcall(function() return S.engine.wallClock() end)
  if ok and type(w) == 'number' and w == w and w > 0 and w < 1e14 then return { g = math.floor(w) } end
  return nil
end
M.hop = function() return hop() end

local function flushItems()
  return S.queue:ofKind('flush')
end

-- An own action waits for the host's copy (feverlink3_inbox.lua ownCopy) before it is applied; a peer's held build
-- this game vetoed waits for the host's answer (relayed: dropped; late: applied). Either holds the barrier at its stamp.
local function unconfirmed(item)
  return item.unconfirmed == true or item.awaiting == true
end

local function complete(item)
  if item.unconfirmed or item.awaiting then return false end
  return item.kind ~= 'flush' or item.pauseUpto <= S.pauseRead
end

-- Applies what is due while the world stands at t between steps: late items (stamp < t) and the pause order's
-- complete flushes stamped <= t (they come first at their stamp; ordinary actions at t wait for beforeStep(t)).
local function applyStanding(t)
  local items = S.queue:due(t, function(item)
    if item.kind == 'flush' or item.unconfirmed or item.awaiting then return complete(item) end
    return item.stamp < t
  end)
  for _, item in ipairs(items) do
    if item.kind == 'flush' then checksum.beforeFlush(S, t, item.pauseUpto) end
    apply.apply(S, item, t)
  end
end

-- The game stands at the stamp of an own action the host has not confirmed, or of a vetoed build the host has not
-- answered: said once per item after a while.
local function noteUnconfirmed(t, mine)
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

local function updatePace(t)
  local flushes = flushItems()
  -- the lowest stamp of an own action without the host's copy yet, or of a veto not answered (the queue is in stamp order)
  local mine = S.queue:firstWhere(unconfirmed)
  noteUnconfirmed(t, mine)
  S.barrier = rules.barrier(S.peers, S.stalledIds, flushes, S.pauseRead, mine and mine.stamp)
  S.pace = rules.pace({ t = t, started = S.started, speed = S.sessionSpeed, runSpeed = S.runSpeed,
    pauseAt = S.pauseAt, barrier = S.barrier, flushTarget = rules.flushTarget(t, flushes, S.pauseRead) })
  S.engine.setLimit(S.pace.limit)
  S.engine.setSpeed(S.pace.speed)
end

local function maybeClock(t)
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

local function pausedStanding(t)
  return S.started and S.pauseAt ~= nil and t >= S.pauseAt
end

-- Queues this game's own BuildCommit item: applied at its stamp only with the host's copy (feverlink3_inbox.lua).
local function sendCommit(h, stamp, t)
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
-- (feverlink3_inbox.lua) ends it first. The BuildCommit is written before the Clock that drops the need.
commitHeld = function(t)
  local h = S.holding
  if h == nil then return end
  local now = link.wallMs()
  if now - h.since >= M.HOLD_GIVE_UP_MS then
    log.warn('held build ' .. n(S.id) .. ':' .. n(h.seq) .. ' not committed in ' .. n(now - h.since)
      .. ' ms: given up (the host refuses it on every game)')
    S.holding, S.need = nil, nil
    return
  end
  if not pausedStanding(t) then
    sendCommit(h, rules.stamp(t, S.safe, S.ahead), t)
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
  sendCommit(h, S.need, t)
  S.holding, S.need = nil, nil
end

-- After a reload that continues (feverlink3_resume.lua): once reading reaches what the previous Lua state had read
-- (the line at `pos` or the read position), what it applied is taken out of the queue, unapplied.
local function endBacklog(pos)
  local r = S.resume
  if not r then return end
  local gen, offset = link.position()
  if pos ~= nil then offset = pos end
  if gen < r.gen or (gen == r.gen and offset < r.offset) then return end
  S.resume = nil
  local dropped = resume.prune(S, r.t0)
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
  if S.reload then
    S.engine.setLimit(t) -- stand until the load
    return
  end
  endBacklog(nil)
  if S.resume then
    -- the backlog of a reload is not read completely yet: stand
    S.engine.setLimit(t)
    return
  end
  inbox.judge(S) -- the peers' held builds read so far: dry run, veto (feverlink3_inbox.lua)
  applyStanding(t)
  resync.saveDue(S) -- a ResyncSave read in this frame: the world as it stands after the standing items
  updatePace(t)
  checksum.standing(S, t) -- a paused round, once the world stands still
  commitHeld(t)
  maybeClock(t)
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
  for _, item in ipairs(S.queue:due(t, complete)) do apply.apply(S, item, t) end
  checksum.beforeStep(S, t) -- a round at t reads the world after the items stamped <= t
end

--- A local command before the game applies it: true = the mod carries it (stamped, sent, applied at the stamp).
-- strict = true: a held strict build (spec architecture §6, lockstep.md): running, its record carries held = true and
-- a stamp max(1, ahead/2) steps further (peers dry-run it and may veto); standing in a pause, its record carries
-- commit = true (peers park it), its stamp is this game's `need` on every Clock, and after a grace the BuildCommit
-- makes every game apply it (feverlink3_session.commitHeld). One held build in a pause at a time: another strict
-- command meanwhile is carried as an ordinary one.
function M.command(cmd, category, strict)
  if not S.active then return false end
  local text, err = json.encode(cmd)
  if type(cmd) ~= 'table' or not text then
    log.warn('command not carried (applied natively on this game only): ' .. tostring(err or 'not a table'))
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
  if strict and S.started and pausedStanding(t) and S.holding == nil then
    body.commit = true
    local stamp = rules.stamp(t, S.safe, S.ahead)
    if not S.outbox:add('Action', { stamp = stamp, seq = seq, body = body, category = category, hop = hop() }) then
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
  if pausedStanding(t) then
    if not S.outbox:add('Action', { seq = seq, body = body, category = category, pause = true, hop = hop() }) then
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
  if not S.outbox:add('Action', { stamp = stamp, seq = seq, body = body, category = category, hop = hop() }) then
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
function M.requestSpeed(s)
  if not S.active then return false end
  if not rules.isSpeed(s) then
    log.warn('requestSpeed(' .. tostring(s) .. '): not a speed (0, 1, 2, 4)')
    return false
  end
  S.outbox:add('SpeedRequest', { speed = s })
  log.info('SpeedRequest ' .. n(s))
  return true
end

-- Own actions waiting for the host's copy; peers' held builds vetoed here waiting for the host's answer.
local function unconfirmedCount()
  local count, awaiting = 0, 0
  for _, item in ipairs(S.queue.items) do
    if item.unconfirmed then count = count + 1 end
    if item.awaiting then awaiting = awaiting + 1 end
  end
  return count, awaiting
end

--- A read-only snapshot for the game's status and for tests.
function M.status()
  local t
  if S.active then t = S.engine.time() end
  local unconfirmedItems, awaitingVeto = unconfirmedCount()
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
