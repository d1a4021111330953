-- FeverLink3: Authority 16 on the game's side (wire-protocol.txt Authority 16): an Authority {n, values} moves each
-- value (money, loan) by the host's value minus this game's value at checksum round n, through engine.correct()
-- (optional), so every game ends at the host's figure. This game's values at round n are the ones its ChecksumReport
-- carried (engine.authority(), read by feverlink3_checksum.lua through `read` and kept here for the last
-- KEEP_REPORTED rounds), with the corrections applied since they were read added: a correction is never made twice.
local lines = require('feverlink3_lines')
local log = require('feverlink3_log')

local M = {}
local n = log.n
local int = lines.int

--- Rounds whose Authority values are kept, at most.
M.KEEP_REPORTED = 8

-- reported: round -> the values read for it; order: those rounds, oldest first; corrected: what every Authority
-- applied so far moved each value by, in all; correctedAt: round -> `corrected` as it stood when its values were read.
local function state(S)
  if not S.authority then
    S.authority = { reported = {}, order = {}, corrected = { money = 0, loan = 0 }, correctedAt = {} }
  end
  return S.authority
end

--- An optional engine function, or nil (reading a missing field of a host object may itself fail, hence the pcall).
function M.engineFn(S, name)
  local ok, fn = pcall(function() return S.engine[name] end)
  if ok and fn then return fn end
  return nil
end

--- The Authority values as they stand ({money, loan} from engine.authority()), kept for round `round`; nil when the
--- game has none. The checksum module sends them in the round's ChecksumReport.
function M.read(S, round)
  local authority = M.engineFn(S, 'authority')
  if not authority then return nil end
  local okA, values = pcall(authority)
  if not okA or type(values) ~= 'table' then return nil end
  local st = state(S)
  local out = { money = values.money, loan = values.loan }
  st.reported[round] = out
  -- the corrections applied by then: an Authority for this round takes off those applied since
  st.correctedAt[round] = { money = st.corrected.money, loan = st.corrected.loan }
  st.order[#st.order + 1] = round
  while #st.order > M.KEEP_REPORTED do
    local gone = table.remove(st.order, 1)
    st.reported[gone], st.correctedAt[gone] = nil, nil
  end
  return out
end

--- Authority 16 {n, values}: each value moves by the host's value minus this game's value at round n.
function M.authority(S, p)
  local round = int(p.n)
  if not round or type(p.values) ~= 'table' then return 'Authority without a valid n and values' end
  local st = state(S)
  local mine, before = st.reported[round], st.correctedAt[round] or {}
  if not mine then return 'Authority for round ' .. n(round) .. ' that this game has no values of: ignored' end
  local authority, correct = M.engineFn(S, 'authority'), M.engineFn(S, 'correct')
  if not authority or not correct then return 'Authority: this game cannot correct values' end
  local ok, current = pcall(authority)
  if not ok or type(current) ~= 'table' then return 'Authority: engine.authority failed' end
  -- A correction applied after this round's values were read (an earlier round's Authority, applied while this game
  -- stood at one pause: every paused round reads the same world) is in `now` already: it counts as part of `was`, or
  -- the difference would be corrected twice (the simulator, seed 5255).
  local corrected = st.corrected
  local target, text = {}, {}
  for _, name in ipairs({ 'money', 'loan' }) do
    local host, was, now = p.values[name], mine[name], current[name]
    if type(was) == 'number' then was = was + ((corrected[name] or 0) - (before[name] or 0)) end
    if type(host) == 'number' and type(was) == 'number' and type(now) == 'number' and host ~= was then
      target[name] = now + (host - was)
      text[#text + 1] = name .. ' ' .. n(now) .. ' -> ' .. n(target[name])
    end
  end
  if #text == 0 then return end
  local okC, err = pcall(correct, target)
  if not okC then return 'Authority: engine.correct failed: ' .. tostring(err) end
  for name, value in pairs(target) do corrected[name] = (corrected[name] or 0) + (value - current[name]) end
  log.info('authority of round ' .. n(round) .. ': ' .. table.concat(text, ', '))
end

return M
