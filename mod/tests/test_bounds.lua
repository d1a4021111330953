-- FeverLink3: unit tests of the mod's bounds (docs/ENGINE.md §7): duplicate JSON keys refused, the outbox bounded
-- while appends fail (order kept, overflow reported), the stamp queue and its memory of seen from:seq bounded,
-- parked builds bounded per player, skipped lines logged a bounded number of times, log.once bounded.
-- Pure Lua: the link's append is replaced for the outbox tests, logs are caught through the global debugPrint.
local T = require('testlib')
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local Outbox = require('feverlink3_outbox')
local Queue = require('feverlink3_queue')
local inbox = require('feverlink3_inbox')

-- Runs fn with the module fields given set, then puts the old values back (even when fn fails).
local function with(module, values, fn)
  local old = {}
  for k, v in pairs(values) do
    old[k] = module[k]
    module[k] = v
  end
  local ok, err = pcall(fn)
  for k, v in pairs(old) do module[k] = v end
  if not ok then error(err, 0) end
end

-- Catches the mod's log lines (debugPrint is where the game's log copy goes).
local function catchLog(fn)
  local lines = {}
  local saved = rawget(_G, 'debugPrint')
  rawset(_G, 'debugPrint', function(text) lines[#lines + 1] = text end)
  local ok, err = pcall(fn, lines)
  rawset(_G, 'debugPrint', saved)
  if not ok then error(err, 0) end
  return lines
end

local function count(lines, pattern)
  local c = 0
  for _, l in ipairs(lines) do
    if l:find(pattern, 1, true) then c = c + 1 end
  end
  return c
end

T.test('json: an object that names a key twice is refused whole, at any depth (also when one is null)', function()
  local v, why = json.decode('{"a":1,"a":2}')
  T.eq(v, nil)
  T.eq(why, 'duplicate key "a" at 8')
  T.eq((json.decode('{"a":null,"a":1}')), nil, 'a null names the key too')
  T.eq((json.decode('{"a":1,"a":null}')), nil)
  T.eq((json.decode('{"x":{"k":1,"b":2,"k":3}}')), nil, 'nested')
  T.eq((json.decode('[{"k":1},{"k":1}]'))[2].k, 1, 'the same key in two objects is fine')
  T.eq((json.decode('{"a":{"a":1}}')).a.a, 1, 'the same key at two depths is fine')
  T.eq((json.decode('{"\\u0061":1,"a":2}')), nil, 'the same key written two ways')
  local _, long = json.decode('{"' .. string.rep('k', 5000) .. '":1,"' .. string.rep('k', 5000) .. '":2}')
  T.ok(#long < 80, 'the reason quotes at most 40 bytes of the key: ' .. long)
end)

T.test('json: encode refuses a table whose keys write the same text (1 and "1")', function()
  local v, why = json.encode({ [1] = 'n', ['1'] = 's' })
  T.eq(v, nil)
  T.ok(why:find('duplicate key "1"', 1, true), why)
end)

T.test('outbox: kept in order while appends fail, bounded, overflow refused and reported, then written whole', function()
  local appends, failing = {}, true
  local realAppend, wasActive = link.append, link.active
  link.append = function(name, text)
    if failing then return false, 'disk full' end
    appends[#appends + 1] = { name = name, text = text }
    return true
  end
  link.active = false -- no mod.log writes from the log module
  local ok, err = pcall(function()
    with(Outbox, { MAX_LINES = 5 }, function()
      local lines = catchLog(function()
        local box = Outbox.new()
        for i = 1, 3 do T.eq(box:add('Clock', { t = i }), true) end
        T.eq(box:flush(), false)
        T.eq(box:flush(), false)
        T.eq(box:size(), 3)
        T.eq(box:add('Clock', { t = 4 }), true)
        T.eq(box:add('Clock', { t = 5 }), true)
        T.ok(box:full(), 'full at MAX_LINES')
        local added, why = box:add('ActionRefused', { seq = 1, from = 2, class = 'engine', detail = 'x' })
        T.eq({ added, why }, { false, 'overflow' })
        T.eq(box:add('ActionRefused', { seq = 2, from = 2, class = 'engine', detail = 'x' }), false)
        T.eq(box:add('Clock', { t = 6 }), false)
        T.eq(box:stats(), { lines = 5, bytes = box.bytes, dropped = 3, failures = 2 })
        failing = false
        T.eq(box:flush(), true)
        T.eq(#appends, 1, 'one append')
        T.eq(appends[1].text, 'Clock\t{"t":1}\nClock\t{"t":2}\nClock\t{"t":3}\nClock\t{"t":4}\nClock\t{"t":5}\n')
        T.eq(box:stats(), { lines = 0, bytes = 0, dropped = 3, failures = 0 })
        T.eq(box:add('Clock', { t = 7 }), true, 'room again')
      end)
      T.eq(count(lines, 'cannot append to from_game.log: disk full'), 1, 'the failure logged once per stall')
      T.eq(count(lines, 'OUTBOX FULL'), 2, 'overflow logged once per kind and stall')
      T.eq(count(lines, 'takes lines again after 2 failed appends: 5 kept lines'), 1)
    end)
  end)
  link.append, link.active = realAppend, wasActive
  if not ok then error(err, 0) end
end)

T.test('outbox: bounded by bytes too', function()
  with(Outbox, { MAX_BYTES = 100 }, function()
    catchLog(function()
      local box = Outbox.new()
      T.eq(box:add('Chat', { text = string.rep('a', 60) }), true)
      T.eq(box:add('Chat', { text = string.rep('b', 60) }), false, 'over 100 bytes')
      T.eq(box:size(), 1)
    end)
  end)
end)

T.test('queue: at most MAX_PER_ORIGIN items of one origin and MAX_ITEMS in all; room again once applied', function()
  with(Queue, { MAX_PER_ORIGIN = 3, MAX_ITEMS = 5 }, function()
    local q = Queue.new()
    for seq = 1, 3 do T.eq(q:push({ kind = 'action', stamp = 400, from = 1, seq = seq }), true) end
    local ok, why = q:push({ kind = 'action', stamp = 400, from = 1, seq = 4 })
    T.eq({ ok, why }, { false, 'full' })
    T.eq(q:push({ kind = 'action', stamp = 400, from = 1, seq = 4 }), false, 'a refused one counts as seen')
    T.ok(q:seen(1, 4))
    T.eq(q:hasRoom(1), false)
    T.eq(q:push({ kind = 'action', stamp = 400, from = 2, seq = 1 }), true, 'another origin has room')
    T.eq(q:push({ kind = 'action', stamp = 600, from = 2, seq = 2 }), true)
    T.eq({ q:push({ kind = 'action', stamp = 400, from = 3, seq = 1 }) }, { false, 'full' }, 'MAX_ITEMS in all')
    T.eq(q:size(1), 3)
    T.eq(#q:due(400), 4)
    T.eq(q:size(1), 0)
    T.eq(q:size(2), 1)
    T.eq(q:push({ kind = 'action', stamp = 800, from = 1, seq = 5 }), true)
    T.eq(q:remove(1, 5).seq, 5)
    T.eq(q:size(1), 0)
  end)
end)

T.test('queue: the seqs seen are a floor plus a bounded set above it; duplicates refused either way', function()
  local q = Queue.new()
  for seq = 1, 50 do q:push({ kind = 'action', stamp = 200, from = 7, seq = seq }) end
  T.eq(q.floor[7], 50)
  T.eq(q.above[7], nil, 'nothing kept above a floor without gaps')
  q:due(200)
  T.eq(q:push({ kind = 'action', stamp = 400, from = 7, seq = 17 }), false, 'seen long ago')
  q:push({ kind = 'action', stamp = 400, from = 7, seq = 53 })
  q:push({ kind = 'action', stamp = 400, from = 7, seq = 52 })
  T.eq(q.floor[7], 50)
  T.eq(q.aboveCount[7], 2)
  q:push({ kind = 'action', stamp = 400, from = 7, seq = 51 })
  T.eq(q.floor[7], 53, 'the gap closed')
  with(Queue, { MAX_SEEN = 3 }, function()
    local g = Queue.new()
    for _, seq in ipairs({ 3, 4, 6, 7 }) do g:push({ kind = 'action', stamp = 400, from = 1, seq = seq }) end
    -- 1, 2 and 5 missing: 4 seqs above the floor 0 > 3: the floor rises to 4 (3 and 4), then 6 and 7 stay above
    T.eq(g.floor[1], 4)
    T.eq(g.aboveCount[1], 2)
    T.eq(g:push({ kind = 'action', stamp = 400, from = 1, seq = 1 }), false, 'the gap below the floor counts as seen')
    T.eq(g:push({ kind = 'action', stamp = 400, from = 1, seq = 5 }), true, 'a gap above the floor is still open')
    T.eq(g.floor[1], 7)
  end)
end)

-- A session state with what inbox.handle touches.
local function state(id)
  return { id = id, parked = {}, parkedCount = {}, parkedTotal = 0, queue = Queue.new(), outbox = Outbox.new(),
    margins = {}, left = {}, peers = {}, pauseRead = 0, late = 0, started = true, sessionSpeed = 1,
    ahead = 2, stalledIds = {}, engine = { time = function() return 0 end } }
end

local function line(kind, payload)
  return kind .. '\t' .. json.encode(payload)
end

local function verdicts(S)
  local out = {}
  for _, l in ipairs(S.outbox.lines) do
    if l:sub(1, 14) == 'ActionRefused\t' then out[#out + 1] = json.decode(l:sub(15)) end
  end
  return out
end

T.test('parked builds: at most MAX_PARKED_PER_PLAYER per player; one more is refused with a verdict', function()
  with(inbox, { MAX_PARKED_PER_PLAYER = 3, MAX_PARKED = 5 }, function()
    catchLog(function()
      local S = state(9)
      for seq = 1, 4 do
        inbox.handle(S, line('Action', { stamp = 400, seq = seq, from = 1, allowed = true, body = { commit = true } }), 0, 0)
      end
      T.eq(S.parkedCount[1], 3)
      local v = verdicts(S)
      T.eq(#v, 1)
      T.eq({ v[1].from, v[1].seq, v[1].class }, { 1, 4, 'module' })
      T.ok(v[1].detail:find('too many parked builds', 1, true), v[1].detail)
      for seq = 1, 3 do
        inbox.handle(S, line('Action', { stamp = 400, seq = seq, from = 2, allowed = true, body = { commit = true } }), 0, 0)
      end
      T.eq(S.parkedTotal, 5)
      T.eq(#verdicts(S), 2, 'MAX_PARKED in all')
      inbox.handle(S, line('BuildCommit', { seq = 1, owner = 1, stamp = 600, from = 1 }), 0, 0)
      T.eq(S.parkedCount[1], 2)
      T.eq(S.queue:size(), 1, 'the committed build waits for its stamp')
      inbox.handle(S, line('BuildVeto', { seq = 2, owner = 1, why = 'no', from = 3, name = 'c' }), 0, 0)
      T.eq(S.parkedCount[1], 1)
      inbox.handle(S, line('PlayerLeft', { id = 1, name = 'a' }), 0, 0)
      T.eq(S.parkedCount[1], nil)
      T.eq(S.parkedTotal, 2)
      inbox.handle(S, line('Action', { stamp = 400, seq = 5, from = 2, allowed = true, body = { commit = true } }), 0, 0)
      T.eq(S.parkedCount[2], 3, 'room again in all')
    end)
  end)
end)

T.test('queue full: an Action or BuildCommit that does not fit is refused with a verdict, not dropped silently', function()
  with(Queue, { MAX_PER_ORIGIN = 2 }, function()
    catchLog(function()
      local S = state(9)
      for seq = 1, 3 do
        inbox.handle(S, line('Action', { stamp = 400, seq = seq, from = 1, allowed = true, body = { op = 'x' } }), 0, 0)
      end
      T.eq(S.queue:size(1), 2)
      local v = verdicts(S)
      T.eq(#v, 1)
      T.eq({ v[1].seq, v[1].class }, { 3, 'module' })
      T.ok(v[1].detail:find('too many items wait for their stamps', 1, true), v[1].detail)
      inbox.handle(S, line('Action', { stamp = 400, seq = 3, from = 1, allowed = true, body = { op = 'x' } }), 0, 0)
      T.eq(#verdicts(S), 1, 'the same from:seq again is a duplicate, no second verdict')
    end)
  end)
end)

T.test('own copies: the host\'s copy confirms the queued own action once; no duplicate, nothing twice', function()
  inbox.reset()
  local lines = catchLog(function()
    local S = state(1)
    S.seq = 3
    -- own 1:2 and 1:3 wait unconfirmed (1:1 was applied before); the copy of 1:2 confirms it with the host's fields
    S.queue:push({ kind = 'action', stamp = 400, from = 1, seq = 2, body = { op = 'mine' }, category = 'build',
      unconfirmed = true })
    S.queue:push({ kind = 'action', stamp = 600, from = 1, seq = 3, body = { op = 'vetoed' }, unconfirmed = true })
    local copy = { stamp = 400, seq = 2, from = 1, allowed = false, category = 'build', body = { op = 'mine' } }
    inbox.handle(S, line('Action', copy), 0, 0)
    local mine = S.queue:find(1, 2)
    T.eq({ mine.unconfirmed, mine.allowed }, { nil, false }, 'confirmed with the host\'s allowed')
    inbox.handle(S, line('Action', copy), 0, 0) -- the same copy again: ignored, not a duplicate
    T.eq(S.queue:size(1), 2)
    -- a host BuildVeto before the copy: dropped, refused, never applied; its copy afterwards is ignored
    inbox.handle(S, line('BuildVeto', { seq = 3, owner = 1, why = 'outsider', from = 0, name = 'h', host = true }), 0, 0)
    T.eq(S.queue:find(1, 3), nil)
    T.eq(#verdicts(S), 1)
    inbox.handle(S, line('Action', { stamp = 600, seq = 3, from = 1, allowed = true, body = { op = 'vetoed' } }), 0, 0)
    inbox.handle(S, line('Action', { stamp = 200, seq = 1, from = 1, allowed = true, body = {} }), 0, 0)
    T.eq(S.queue:size(1), 1)
    T.eq(inbox.skippedCounts(), {}, 'none of these is a skipped line')
    -- a copy of an action this game never made (above its last number) is skipped
    inbox.handle(S, line('Action', { stamp = 800, seq = 4, from = 1, allowed = true, body = {} }), 0, 0)
    T.eq(inbox.skippedCounts(), { ['refused Action'] = 1 })
    T.eq(S.queue:size(1), 1)
  end)
  T.eq(count(lines, 'own Action 1:2 confirmed by the host (not allowed)'), 1)
  T.eq(count(lines, 'duplicate'), 0)
  T.eq(count(lines, 'came back although this game made none above 3'), 1)
  inbox.reset()
end)

T.test('skipped lines are logged LOG_FIRST times per reason, then only at 10, 100, 1000', function()
  inbox.reset()
  local lines = catchLog(function()
    local S = state(9)
    for _ = 1, 150 do inbox.handle(S, 'no tab here', 0, 0) end
    for _ = 1, 20 do inbox.handle(S, 'Session\t{"speed":1,"speed":2}', 0, 0) end
    T.eq(inbox.skippedCounts(), { ['no tab'] = 150, ['payload Session'] = 20 })
  end)
  T.eq(count(lines, ': no tab, line skipped'), 5)
  T.eq(count(lines, 'lines skipped so far for: no tab'), 2, 'at 10 and 100')
  T.eq(count(lines, 'duplicate key "speed"'), 5)
  inbox.reset()
end)

T.test('log.once remembers at most MAX_ONCE keys, then counts', function()
  log.reset()
  local lines = catchLog(function()
    with(log, { MAX_ONCE = 4 }, function()
      for i = 1, 10 do log.once('k' .. i, 'info', 'notice ' .. i) end
      log.once('k1', 'info', 'notice 1 again')
      T.eq(log.onceSuppressed, 6)
    end)
  end)
  T.eq(count(lines, 'notice '), 4)
  T.eq(count(lines, 'distinct one-time notices'), 1)
  log.reset()
end)

T.test('a log text is cut at MAX_TEXT bytes', function()
  local lines = catchLog(function() log.warn(string.rep('x', 10000)) end)
  T.ok(#lines[1] < 2100, 'cut: ' .. #lines[1])
  T.ok(lines[1]:find('(10000 bytes)', 1, true), lines[1]:sub(-40))
end)
