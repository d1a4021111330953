-- FeverLink3: checksum rounds on the game's side (wire-protocol.txt ChecksumRequest 15, Authority 16, ChecksumReport
-- 33; "Light rounds", "Spread full rounds"). A ChecksumRequest {n, at, paused, full?, spread?, chunk?, detail?} waits
-- until the world reaches `at`: a running round is hashed in beforeStep(at), after every item stamped <= at, so every
-- game hashes the same world; a paused round once the world stands still at the pause. A round read after its step
-- (a batch that missed its mark) reports time = the step it was read at, and the host skips it as time_skew. A light
-- round (full = false) leaves the heavy lanes out. The parts are engine.checksum(); the Authority values
-- engine.authority() (optional). An Authority {n, values} moves each value by the host's value minus this game's
-- value at round n, through engine.correct() (optional), so every game ends at the host's figure.
-- This game reads a spread round whole at `at` (engine.checksum() has no chunked read): spread and chunk are logged
-- and otherwise ignored, and no cost is reported.
local log = require('feverlink3_log')

local M = {}
local n = log.n

--- Rounds waiting for their step, at most; rounds whose Authority values are kept, at most.
M.MAX_PENDING = 16
M.KEEP_REPORTED = 8

local HEAVY = { constructions = true, edges = true, nodeConfigs = true, townBuildings = true, ids = true }
local function isHeavy(name)
  return HEAVY[name] == true or name:sub(1, 14) == 'townBuildings:'
end

local function int(v)
  if type(v) ~= 'number' or v ~= v or v % 1 ~= 0 or v < 0 or v > 9007199254740992 then return nil end
  return math.floor(v)
end

local function state(S)
  if not S.checksum then S.checksum = { pending = {}, reported = {}, reportedOrder = {} } end
  return S.checksum
end

-- An optional engine function (reading a missing field of a host object may itself fail, hence the pcall).
local function engineFn(S, name)
  local ok, fn = pcall(function() return S.engine[name] end)
  if ok and fn then return fn end
  return nil
end

--- ChecksumRequest 15: kept until the world reaches `at`.
function M.request(S, p)
  local round, at = int(p.n), int(p.at)
  if not round or round < 1 or not at then return 'ChecksumRequest without a valid n and at' end
  local st = state(S)
  if #st.pending >= M.MAX_PENDING then return 'ChecksumRequest ' .. n(round) .. ': ' .. n(M.MAX_PENDING) .. ' rounds already wait' end
  st.pending[#st.pending + 1] = { n = round, at = at, paused = p.paused == true, full = p.full ~= false }
  log.info('checksum round ' .. n(round) .. ' at ' .. n(at) .. (p.paused == true and ' (paused)' or '')
    .. (p.full == false and ' (light)' or '') .. (p.spread and (' spread ' .. n(p.spread)) or '')
    .. (p.chunk and (' chunk ' .. n(p.chunk)) or '') .. (p.detail == true and ' detail' or ''))
end

local function remember(st, round, values)
  st.reported[round] = values
  st.reportedOrder[#st.reportedOrder + 1] = round
  while #st.reportedOrder > M.KEEP_REPORTED do
    st.reported[table.remove(st.reportedOrder, 1)] = nil
  end
end

-- Hashes the world as it stands at t for `round` and queues the report.
local function hash(S, round, t)
  local ok, parts = pcall(S.engine.checksum)
  if not ok or type(parts) ~= 'table' then
    log.error('checksum round ' .. n(round.n) .. ': engine.checksum failed: ' .. tostring(parts))
    return
  end
  local out, count = {}, 0
  for name, h in pairs(parts) do
    if type(name) == 'string' and (round.full or not isHeavy(name)) then
      out[name] = h
      count = count + 1
    end
  end
  local report = { n = round.n, time = t, parts = out }
  local authority = engineFn(S, 'authority')
  if authority then
    local okA, values = pcall(authority)
    if okA and type(values) == 'table' then
      report.authority = { money = values.money, loan = values.loan }
      remember(state(S), round.n, report.authority)
    end
  end
  if count == 0 then
    log.warn('checksum round ' .. n(round.n) .. ': no part to report')
    return
  end
  S.outbox:add('ChecksumReport', report)
  log.info('checksum round ' .. n(round.n) .. ' read at ' .. n(t) .. (t ~= round.at and (' (late by ' .. n(t - round.at) .. ')') or ''))
end

-- Hashes, in n order, the pending rounds that `take` says are due at t.
local function hashDue(S, t, take)
  local st = state(S)
  local due, rest = {}, {}
  for _, round in ipairs(st.pending) do
    if take(round) then due[#due + 1] = round else rest[#rest + 1] = round end
  end
  if #due == 0 then return end
  st.pending = rest
  table.sort(due, function(a, b) return a.n < b.n end)
  for _, round in ipairs(due) do hash(S, round, t) end
end

--- In beforeStep(t), after the items stamped <= t: the running rounds at or before t.
function M.beforeStep(S, t)
  if not S.checksum then return end
  hashDue(S, t, function(round) return not round.paused and round.at <= t end)
end

--- In a frame, once the world stands still: the paused rounds at or before t.
function M.standing(S, t)
  if not S.checksum or not S.pace.stop then return end
  hashDue(S, t, function(round) return round.paused and round.at <= t end)
end

--- Authority 16 {n, values}: each value moves by the host's value minus this game's value at round n.
function M.authority(S, p)
  local round = int(p.n)
  if not round or type(p.values) ~= 'table' then return 'Authority without a valid n and values' end
  local mine = state(S).reported[round]
  if not mine then return 'Authority for round ' .. n(round) .. ' that this game has no values of: ignored' end
  local authority, correct = engineFn(S, 'authority'), engineFn(S, 'correct')
  if not authority or not correct then return 'Authority: this game cannot correct values' end
  local ok, current = pcall(authority)
  if not ok or type(current) ~= 'table' then return 'Authority: engine.authority failed' end
  local target, text = {}, {}
  for _, name in ipairs({ 'money', 'loan' }) do
    local host, was, now = p.values[name], mine[name], current[name]
    if type(host) == 'number' and type(was) == 'number' and type(now) == 'number' and host ~= was then
      target[name] = now + (host - was)
      text[#text + 1] = name .. ' ' .. n(now) .. ' -> ' .. n(target[name])
    end
  end
  if #text == 0 then return end
  local okC, err = pcall(correct, target)
  if not okC then return 'Authority: engine.correct failed: ' .. tostring(err) end
  log.info('authority of round ' .. n(round) .. ': ' .. table.concat(text, ', '))
end

return M
