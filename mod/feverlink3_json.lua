-- FeverLink3: one-line JSON for the link lines (wire-protocol.txt "Payloads are UTF-8 JSON, nulls omitted").
-- Runs unchanged in Lua 5.2 (TF3) and 5.4 (wasmoon). Integers are written with '%.0f' (exact up to 2^53; Lua
-- 5.2.2 throws on '%d' above 2^31). Arrays vs objects: see M.array and docs/DECISIONS.md. Duplicate keys: an
-- object that names one key twice is refused, whole (decode: nil + 'duplicate key'; encode: an error), so every
-- game reads the same line the same way and no value silently wins (docs/ENGINE.md §7).
local M = {}

local floor, huge = math.floor, math.huge
local byte, char, sub, find, format = string.byte, string.char, string.sub, string.find, string.format
local concat, sort = table.concat, table.sort

local MAX_DEPTH = 64
local TWO53 = 9007199254740992

--- Metatable that marks a table as a JSON array (so an empty one encodes as []).
M.ARRAY = { __name = 'feverlink3.json.array' }
--- Stands for a null inside an array (a null in an object is simply left out).
M.null = setmetatable({}, { __name = 'feverlink3.json.null', __tostring = function() return 'null' end })

--- Marks `t` (or a new table) as an array and returns it.
function M.array(t)
  return setmetatable(t or {}, M.ARRAY)
end

--- True when `n` is an integer value that doubles hold exactly.
local function isInt(n)
  return n == floor(n) and n > -TWO53 and n < TWO53
end

--- Formats a number the way the wire wants it: integers without '.0', others in their shortest exact form.
function M.num(n)
  if n ~= n or n == huge or n == -huge then return 'null' end
  if isInt(n) then
    if n == 0 then return '0' end -- '%.0f' would write -0 as "-0"
    return format('%.0f', n)
  end
  for digits = 14, 17 do
    local s = format('%.' .. digits .. 'g', n)
    if tonumber(s) == n then return s end
  end
  return format('%.17g', n)
end

local ESC = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r',
  ['\t'] = '\\t' }

local function escapeChar(c)
  return ESC[c] or format('\\u%04x', byte(c))
end

--- Quotes a Lua string as a JSON string (control characters escaped, other bytes as they are).
function M.quote(s)
  if not find(s, '[%c"\\]') then return '"' .. s .. '"' end -- the common case: nothing to escape, no copy made
  return '"' .. s:gsub('[%c"\\]', escapeChar) .. '"'
end

local function keyText(k)
  if type(k) == 'string' then return k end
  if type(k) == 'number' then return M.num(k) end
  return nil
end

-- A table is an array when it carries M.ARRAY, or when its keys are exactly 1..n with n >= 1.
local function isArray(t)
  if getmetatable(t) == M.ARRAY then return true end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  if n == 0 then return false end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return true
end

local encodeValue

local function encodeTable(t, depth, out)
  if depth > MAX_DEPTH then error('json: nested too deep', 0) end
  if isArray(t) then
    local n = 0
    for k in pairs(t) do
      if type(k) == 'number' and k > n then n = k end
    end
    out[#out + 1] = '['
    for i = 1, n do
      if i > 1 then out[#out + 1] = ',' end
      local v = t[i]
      if v == nil then out[#out + 1] = 'null' else encodeValue(v, depth + 1, out) end
    end
    out[#out + 1] = ']'
    return
  end
  local keys, texts = {}, {}
  for k, v in pairs(t) do
    local kt = keyText(k)
    if kt == nil then error('json: key of type ' .. type(k), 0) end
    -- the number 1 and the string '1' would both be written "1": the line would name one key twice
    if texts[kt] ~= nil then error('json: duplicate key ' .. M.quote(sub(kt, 1, 40)), 0) end
    keys[#keys + 1] = kt
    texts[kt] = v
  end
  sort(keys) -- one order on every game: the same table always gives the same line
  out[#out + 1] = '{'
  for i, kt in ipairs(keys) do
    if i > 1 then out[#out + 1] = ',' end
    out[#out + 1] = M.quote(kt)
    out[#out + 1] = ':'
    encodeValue(texts[kt], depth + 1, out)
  end
  out[#out + 1] = '}'
end

encodeValue = function(v, depth, out)
  local tv = type(v)
  if v == M.null then out[#out + 1] = 'null'
  elseif tv == 'string' then out[#out + 1] = M.quote(v)
  elseif tv == 'number' then out[#out + 1] = M.num(v)
  elseif tv == 'boolean' then out[#out + 1] = v and 'true' or 'false'
  elseif tv == 'table' then encodeTable(v, depth, out)
  else error('json: cannot encode a ' .. tv, 0) end
end

--- Encodes a value as one line of JSON. Returns the text, or nil and a reason (functions, cycles, odd keys).
function M.encode(v)
  local out = {}
  local ok, err = pcall(encodeValue, v, 0, out)
  if not ok then return nil, tostring(err) end
  return concat(out)
end

-- Decoder --------------------------------------------------------------------------------------------------

local function utf8Bytes(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then return char(0xC0 + floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return char(0xE0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return char(0xF0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64, 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
end

local SIMPLE = { [34] = '"', [92] = '\\', [47] = '/', [98] = '\b', [102] = '\f', [110] = '\n', [114] = '\r',
  [116] = '\t' }

local function fail(pos, what)
  error({ pos = pos, what = what }, 0)
end

local function skip(s, i)
  local c = byte(s, i)
  -- the link's lines have no whitespace between tokens: the common case needs no pattern
  if c ~= 32 and c ~= 9 and c ~= 13 and c ~= 10 then return i end
  local _, e = find(s, '^[ \t\r\n]*', i)
  return e + 1
end

local function decodeString(s, i)
  -- s:sub(i, i) == '"'
  -- the common case, a string without escapes or control characters: one find, no parts
  local _, b = find(s, '^[^"\\%c]*"', i + 1)
  if b then return sub(s, i + 1, b - 1), b + 1 end
  local parts = {}
  local j = i + 1
  while true do
    local a, b = find(s, '^[^"\\%c]+', j)
    if a then
      parts[#parts + 1] = sub(s, a, b)
      j = b + 1
    end
    local c = byte(s, j)
    if c == nil then fail(j, 'unterminated string') end
    if c == 34 then return concat(parts), j + 1 end
    if c < 32 then fail(j, 'control character in string') end
    -- backslash
    local e = byte(s, j + 1)
    if e == 117 then -- \uXXXX
      local hex = sub(s, j + 2, j + 5)
      if not find(hex, '^%x%x%x%x$') then fail(j, 'bad \\u escape') end
      local cp = tonumber(hex, 16)
      local nextJ = j + 6
      if cp >= 0xD800 and cp <= 0xDBFF and sub(s, nextJ, nextJ + 1) == '\\u' then
        local lowHex = sub(s, nextJ + 2, nextJ + 5)
        local low = find(lowHex, '^%x%x%x%x$') and tonumber(lowHex, 16)
        if low and low >= 0xDC00 and low <= 0xDFFF then
          cp = 0x10000 + (cp - 0xD800) * 1024 + (low - 0xDC00)
          nextJ = nextJ + 6
        end
      end
      parts[#parts + 1] = utf8Bytes(cp)
      j = nextJ
    elseif e and SIMPLE[e] then
      parts[#parts + 1] = SIMPLE[e]
      j = j + 2
    else
      fail(j, 'bad escape')
    end
  end
end

local decodeValue

-- JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][-+]?[0-9]+)?
local function decodeNumber(s, i)
  -- the common case, an integer not starting with 0: one find (the same tonumber and isInt as below)
  local _, e = find(s, '^-?[1-9]%d*', i)
  if e then
    local c = byte(s, e + 1)
    if c ~= 46 and c ~= 101 and c ~= 69 then
      local n = tonumber(sub(s, i, e))
      if n > -TWO53 and n < TWO53 then n = floor(n) end -- isInt, inline: the digits are an integer
      return n, e + 1
    end
    -- the next most common, a fraction without an exponent (the latency stamps): one more find
    if c == 46 then
      local _, f = find(s, '^%d+', e + 2)
      local after = f and byte(s, f + 1)
      if f and after ~= 101 and after ~= 69 then
        local n = tonumber(sub(s, i, f))
        if isInt(n) then n = floor(n) end
        return n, f + 1
      end
    end
  end
  local j = i
  if byte(s, j) == 45 then j = j + 1 end
  local c = byte(s, j)
  if c == 48 then
    j = j + 1
  elseif c and c >= 49 and c <= 57 then
    local _, e = find(s, '^%d+', j)
    j = e + 1
  else
    fail(i, 'bad number')
  end
  if byte(s, j) == 46 then
    local _, e = find(s, '^%d+', j + 1)
    if not e then fail(j, 'bad number') end
    j = e + 1
  end
  c = byte(s, j)
  if c == 101 or c == 69 then
    j = j + 1
    c = byte(s, j)
    if c == 43 or c == 45 then j = j + 1 end
    local _, e = find(s, '^%d+', j)
    if not e then fail(j, 'bad number') end
    j = e + 1
  end
  local n = tonumber(sub(s, i, j - 1))
  if n == nil then fail(i, 'bad number') end
  if isInt(n) then n = floor(n) end -- Lua 5.4: make 1e3 and 1000.0 the integer 1000, as in 5.2
  return n, j
end

local function decodeArray(s, i, depth)
  local arr = setmetatable({}, M.ARRAY)
  local j = skip(s, i + 1)
  if byte(s, j) == 93 then return arr, j + 1 end
  local n = 0
  while true do
    local v
    v, j = decodeValue(s, j, depth + 1)
    n = n + 1
    if v == nil then arr[n] = M.null else arr[n] = v end
    j = skip(s, j)
    local c = byte(s, j)
    if c == 93 then return arr, j + 1 end
    if c ~= 44 then fail(j, 'expected , or ]') end
    j = skip(s, j + 1)
  end
end

-- Whitespace between tokens (the link's lines have none: the common case costs one byte read, no call).
local function isSpace(c)
  return c == 32 or c == 9 or c == 13 or c == 10
end

local function decodeObject(s, i, depth)
  local obj = {}
  local nulls -- the keys whose value was null (left out of obj): they count for the duplicate check too
  local j = i + 1
  if isSpace(byte(s, j)) then j = skip(s, j) end
  if byte(s, j) == 125 then return obj, j + 1 end
  while true do
    local keyAt = j
    -- the common case, a plain key right before its colon: one find
    local _, e, k = find(s, '^"([^"\\%c]*)":', j)
    if e then
      j = e + 1
    else
      if byte(s, j) ~= 34 then fail(j, 'expected a key') end
      k, j = decodeString(s, j)
      j = skip(s, j)
      if byte(s, j) ~= 58 then fail(j, 'expected :') end
      j = j + 1
    end
    if obj[k] ~= nil or (nulls and nulls[k]) then fail(keyAt, 'duplicate key ' .. M.quote(sub(k, 1, 40))) end
    if isSpace(byte(s, j)) then j = skip(s, j) end
    local v
    v, j = decodeValue(s, j, depth + 1)
    if v == nil then -- a null leaves the key out
      nulls = nulls or {}
      nulls[k] = true
    else
      obj[k] = v
    end
    local c = byte(s, j)
    if isSpace(c) then
      j = skip(s, j)
      c = byte(s, j)
    end
    if c == 125 then return obj, j + 1 end
    if c ~= 44 then fail(j, 'expected , or }') end
    j = j + 1
    if isSpace(byte(s, j)) then j = skip(s, j) end
  end
end

decodeValue = function(s, i, depth)
  if depth > MAX_DEPTH then fail(i, 'nested too deep') end
  local c = byte(s, i)
  if c == 123 then return decodeObject(s, i, depth) end
  if c == 91 then return decodeArray(s, i, depth) end
  if c == 34 then return decodeString(s, i) end
  if c == 116 and sub(s, i, i + 3) == 'true' then return true, i + 4 end
  if c == 102 and sub(s, i, i + 4) == 'false' then return false, i + 5 end
  if c == 110 and sub(s, i, i + 3) == 'null' then return nil, i + 4 end
  if c == 45 or (c and c >= 48 and c <= 57) then return decodeNumber(s, i) end
  fail(i, c and 'bad value' or 'unexpected end')
end

--- Decodes one JSON text. Never throws: returns the value, or nil and a reason ("bad value at 7").
-- Arrays come back marked with M.ARRAY (nulls in them as M.null); nulls in objects are left out. An object that
-- names a key twice (at any depth) makes the whole text refused: nil, 'duplicate key "k" at N'.
function M.decode(s)
  if type(s) ~= 'string' then return nil, 'not a string' end
  local ok, v, j = pcall(function()
    local value, nextI = decodeValue(s, skip(s, 1), 0)
    return value, skip(s, nextI)
  end)
  if not ok then
    if type(v) == 'table' then return nil, v.what .. ' at ' .. M.num(v.pos) end
    return nil, tostring(v)
  end
  if j <= #s then return nil, 'trailing text at ' .. M.num(j) end
  if v == nil then return nil, 'null' end
  return v
end

return M
