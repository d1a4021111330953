-- FeverLink3: a tiny assert runner for the mod's plain-Lua unit tests (no packages; Lua 5.2 and 5.4).
-- test(name, fn) runs fn and records a failure with its message; eq() compares deeply; report() ends the run.
local M = { passed = 0, failed = 0, group = '' }

local function show(v, depth)
  depth = depth or 0
  if type(v) == 'string' then return string.format('%q', v) end
  if type(v) == 'number' then
    if v == math.floor(v) and v > -2 ^ 53 and v < 2 ^ 53 then return string.format('%.0f', v) end
    return string.format('%.17g', v)
  end
  if type(v) ~= 'table' or depth > 4 then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. '=' .. show(v[k], depth + 1) end
  return '{' .. table.concat(parts, ', ') .. '}'
end
M.show = show

local function same(a, b)
  if a == b then return true end
  if type(a) ~= 'table' or type(b) ~= 'table' then return false end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end
M.same = same

--- Starts a group of tests (a file).
function M.describe(name)
  M.group = name
end

--- Runs one test.
function M.test(name, fn)
  local ok, err = xpcall(fn, function(e) return debug.traceback(tostring(e), 2) end)
  if ok then
    M.passed = M.passed + 1
  else
    M.failed = M.failed + 1
    print('FAIL ' .. M.group .. ': ' .. name .. '\n  ' .. tostring(err):gsub('\n', '\n  '))
  end
end

--- Fails unless actual equals expected (deeply for tables).
function M.eq(actual, expected, what)
  if not same(actual, expected) then
    error((what and (what .. ': ') or '') .. 'expected ' .. show(expected) .. ', got ' .. show(actual), 2)
  end
end

--- Fails unless v is truthy.
function M.ok(v, what)
  if not v then error('expected true: ' .. tostring(what or ''), 2) end
end

--- Prints the summary; errors (exit status 1 under lua5.2) when a test failed or when none passed (a run that
-- tested nothing has not passed).
function M.report()
  print(string.format('%s passed, %s failed (%s)', show(M.passed), show(M.failed), _VERSION))
  if M.failed > 0 then error(show(M.failed) .. ' mod unit test(s) failed', 0) end
  if M.passed == 0 then error('no mod unit test ran', 0) end
end

return M
