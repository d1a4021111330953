-- FeverLink3: applying one queued item through engine.apply at its stamp, and its verdict (wire kind 36
-- ActionRefused: {seq, from, applied: true} or {seq, from, detail, class, partial?}; spec "Action verdicts").
-- A late item (stamp < t) is applied at once, counted, logged LATE and reported in the verdict's detail.
local rules = require('feverlink3_lockstep')
local log = require('feverlink3_log')

local M = {}
local n = log.n
local CLASSES = { decode = true, engine = true, company = true, module = true, inject_refused = true }

--- The key of an item in log texts: from:seq.
function M.key(item)
  return n(item.from) .. ':' .. n(item.seq)
end

--- How many applied items (from:seq) are remembered, the oldest forgotten first: a veto that comes after this game
-- applied the build is told apart from a veto of a build it never had (feverlink3_replay.lua). Vetoes come within
-- seconds, so a few hundred builds are plenty.
M.APPLIED_KEPT = 512

local function rememberApplied(S, key)
  local r = S.appliedKeys
  if r == nil then
    r = { set = {}, ring = {}, next = 1 }
    S.appliedKeys = r
  end
  local oldest = r.ring[r.next]
  if oldest ~= nil then r.set[oldest] = nil end
  r.ring[r.next], r.set[key] = key, true
  r.next = r.next % M.APPLIED_KEPT + 1
end

--- True when this game applied the item from:seq (among the newest APPLIED_KEPT it applied since its state began).
function M.wasApplied(S, key)
  return S.appliedKeys ~= nil and S.appliedKeys.set[key] == true
end

-- Calls engine.apply. Accepts `ok, class, detail` (Lua) and one object {ok, class, detail} (a JS host under
-- wasmoon cannot return several values). A throw is a refusal of class engine, partial.
local function callEngine(engine, body)
  local ok, r1, r2, r3 = pcall(engine.apply, body)
  if not ok then return false, 'engine', tostring(r1), true end
  if type(r1) == 'table' or type(r1) == 'userdata' then
    local readable, a, c, d = pcall(function() return r1.ok, r1.class, r1.detail end)
    if not readable then return false, 'engine', 'engine.apply returned an object without ok' end
    r1, r2, r3 = a, c, d
  end
  if r1 then return true end
  if r2 ~= nil and not CLASSES[r2] then
    log.once('class:' .. tostring(r2), 'warn',
      'engine.apply gave the unknown class ' .. tostring(r2) .. ': reported as engine')
  end
  return false, CLASSES[r2] and r2 or 'engine', r3 ~= nil and tostring(r3) or ''
end

-- engine.notify is optional; reading a missing field of a host object may itself fail, hence both pcalls.
local function notify(S, level, text)
  local ok, fn = pcall(function() return S.engine.notify end)
  if ok and fn then pcall(fn, level, text) end
end
M.notify = notify

--- Queues the verdict "refused" for an item that is not applied (a veto, a decode failure).
function M.refuse(S, item, class, detail)
  S.outbox:add('ActionRefused', { seq = item.seq, from = item.from, class = class, detail = detail })
  log.info('refused ' .. M.key(item) .. ' (' .. class .. '): ' .. detail)
  if item.from == S.id then notify(S, 'warn', 'FeverLink3: your action was refused: ' .. detail) end
end

--- Applies one item while the world stands at t, and queues its verdict. Returns true when the engine applied it.
function M.apply(S, item, t)
  local lateText
  if rules.isLate(item.stamp, t) then
    S.late = S.late + 1
    lateText = 'late by ' .. n(t - item.stamp) .. ' game-ms (stamp ' .. n(item.stamp) .. ', applied at ' .. n(t) .. ')'
    log.warn('LATE ' .. M.key(item) .. ' ' .. lateText .. '; late items so far: ' .. n(S.late))
    notify(S, 'warn', 'FeverLink3: an action of player ' .. n(item.from) .. ' was applied ' .. lateText)
  end
  local ok, class, detail, partial
  if type(item.body) ~= 'table' then
    ok, class, detail = false, 'decode', 'the action has no body object'
  elseif item.allowed == false then
    ok, class, detail = false, 'module', 'not allowed: ' .. rules.category(item.category)
  else
    ok, class, detail, partial = callEngine(S.engine, item.body)
  end
  local verdict = { seq = item.seq, from = item.from }
  if ok then
    verdict.applied = true
    rememberApplied(S, M.key(item))
    if lateText then verdict.detail = lateText end
    log.debug('applied ' .. M.key(item) .. ' stamp ' .. n(item.stamp) .. ' at ' .. n(t))
  else
    verdict.class = class
    verdict.detail = lateText and (detail .. '; ' .. lateText) or detail
    if partial then verdict.partial = true end
    log.info('refused ' .. M.key(item) .. ' at ' .. n(t) .. ' (' .. class .. '): ' .. verdict.detail)
    if item.from == S.id then notify(S, 'warn', 'FeverLink3: your action was refused: ' .. verdict.detail) end
  end
  S.outbox:add('ActionRefused', verdict)
  return ok
end

return M
