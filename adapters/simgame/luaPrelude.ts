// The Lua half of the simulated game's io/os shim and the mod loader: file objects over the JS
// handle functions of luaFs.ts (bytes as hex), and package.preload entries for every mod/*.lua.
// Spec: docs/ENGINE.md §1 (loading: package.preload under wasmoon) and §4 (the io/os subset).

/**
 * Runs once in a fresh Lua state with the global `__fl3fs` set to the JS functions; replaces
 * `io`, `os.getenv/clock/time/rename/remove/exit`, `loadfile` and `dofile`, and removes `__fl3fs`.
 */
export const LUA_IO_PRELUDE = String.raw`
local fs = __fl3fs
__fl3fs = nil
local char, byte, format, tonumber = string.char, string.byte, string.format, tonumber

-- lookup tables: gsub with a table replaces without a Lua call per byte (the link's lines cross here every frame)
local HEX_TO_CHAR, CHAR_TO_HEX = {}, {}
for b = 0, 255 do
  local h = format('%02x', b)
  HEX_TO_CHAR[h] = char(b)
  HEX_TO_CHAR[h:upper()] = char(b)
  CHAR_TO_HEX[char(b)] = h
end
-- what luaFs.ts's toLua made: 'A' and the bytes, or 'H' and hex ('' stays '': read(0))
local function tobytes(s)
  local kind = byte(s, 1)
  if kind == 65 then return s:sub(2) end
  if kind == nil then return s end
  return (s:sub(2):gsub('%x%x', HEX_TO_CHAR))
end
local function tohex(s)
  return (s:gsub('.', CHAR_TO_HEX))
end

local File = {}
File.__index = File
File.__name = 'FILE*'
File.__tostring = function(f) return f.closed and 'file (closed)' or ('file (' .. tostring(f.h) .. ')') end

local function check(f, name)
  if getmetatable(f) ~= File then error("bad argument #1 to '" .. name .. "' (FILE* expected)", 3) end
  if f.closed then error('attempt to use a closed file', 3) end
  return f.h
end

local function read1(h, fmt)
  if math.type(fmt) == 'integer' or type(fmt) == 'number' then
    local hex = fs.read(h, fmt)
    return hex and tobytes(hex)
  end
  local f = tostring(fmt):gsub('^%*', ''):sub(1, 1)
  if f == 'a' then
    local hex = fs.readAll(h)
    return hex and tobytes(hex)
  elseif f == 'l' or f == 'L' then
    local hex = fs.readLine(h, f == 'L')
    return hex and tobytes(hex)
  elseif f == 'n' then
    local v = fs.readNumber(h)
    return v
  end
  error("bad argument #1 to 'read' (invalid format)", 3)
end

function File.read(f, ...)
  local h = check(f, 'read')
  local n = select('#', ...)
  if n == 0 then return read1(h, 'l') end
  local out = {}
  for i = 1, n do
    local v = read1(h, (select(i, ...)))
    out[i] = v
    if v == nil then return table.unpack(out, 1, i) end
  end
  return table.unpack(out, 1, n)
end

function File.write(f, ...)
  local h = check(f, 'write')
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if type(v) == 'number' then v = tostring(v)
    elseif type(v) ~= 'string' then
      error("bad argument #" .. i .. " to 'write' (string expected, got " .. type(v) .. ")", 2)
    end
    local ok, err, code
    if v:find('[\0\128-\255]') then ok, err, code = fs.write(h, tohex(v)) else ok, err, code = fs.writeText(h, v) end
    if not ok then return nil, err, code end
  end
  return f
end

function File.seek(f, whence, offset)
  local h = check(f, 'seek')
  return fs.seek(h, whence or 'cur', offset or 0)
end

function File.flush(f)
  local h = check(f, 'flush')
  local ok, err, code = fs.flush(h)
  if not ok then return nil, err, code end
  return f
end

function File.close(f)
  local h = check(f, 'close')
  f.closed = true
  return fs.close(h)
end

function File.setvbuf(f) check(f, 'setvbuf') return true end

function File.lines(f, ...)
  check(f, 'lines')
  local fmts = table.pack(...)
  return function() return f:read(table.unpack(fmts, 1, fmts.n)) end
end

File.__gc = function(f) if not f.closed then f.closed = true pcall(fs.close, f.h) end end

local io_ = {}
function io_.open(path, mode)
  mode = mode or 'r'
  if type(path) ~= 'string' then error("bad argument #1 to 'open' (string expected, got " .. type(path) .. ")", 2) end
  if type(mode) ~= 'string' or not (mode:match('^[rwa]%+?b*$')) then
    error("bad argument #2 to 'open' (invalid mode)", 2)
  end
  local h, err, code = fs.open(path, mode)
  if not h then return nil, err, code end
  return setmetatable({ h = h }, File)
end
function io_.close(f) return f:close() end
function io_.type(o)
  if getmetatable(o) ~= File then return nil end
  return o.closed and 'closed file' or 'file'
end
function io_.lines(path, ...)
  if path == nil then error('io.lines without a file name is not available in the simulated game', 2) end
  local f, err = io_.open(path, 'r')
  if not f then error(err, 2) end
  local fmts = table.pack(...)
  return function()
    if f.closed then return nil end
    local v = f:read(table.unpack(fmts, 1, fmts.n))
    if v == nil then f:close() end
    return v
  end
end
function io_.write(...)
  local parts = {}
  for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
  print(table.concat(parts))
  return io_
end
io = io_

-- A JS undefined arrives as no value at all; a local turns it into the nil Lua promises.
os.getenv = function(name) local v = fs.getenv(name) return v end
os.clock = function() return fs.clock() end
local time0 = os.time
os.time = function(t) if t == nil then return fs.time() end return time0(t) end
os.rename = function(a, b) return fs.rename(a, b) end
os.remove = function(p) return fs.remove(p) end
os.exit = function() error('os.exit is not available in the simulated game', 2) end
os.tmpname = nil
os.execute = nil

function loadfile(path, mode, env)
  local f, err = io_.open(path, 'rb')
  if not f then return nil, err end
  local src = f:read('a')
  f:close()
  if env ~= nil then return load(src, '@' .. path, mode, env) end
  return load(src, '@' .. path, mode)
end
function dofile(path)
  local chunk = assert(loadfile(path))
  return chunk()
end
`;

/**
 * Makes `require('<name>')` find `<dir>/<name>.lua` for each name of the global `__fl3preload`
 * (`{ dir, names, sources? }`, set by the host), taken from `sources` when given (the single binary), else read through the io shim (the real files), with the chunk
 * name `@mod/<name>.lua`; then removes the global.
 */
export const LUA_PRELOAD = String.raw`
local spec = __fl3preload
local chunks = __fl3chunks or {}
__fl3preload, __fl3chunks = nil, nil
for _, name in ipairs(spec.names) do
  package.preload[name] = function(...)
    local chunk = chunks[name]
    if chunk == nil then
      local src = spec.sources and spec.sources[name]
      if src == nil then
        local f = assert(io.open(spec.dir .. '/' .. name .. '.lua', 'rb'))
        src = f:read('a')
        f:close()
      end
      chunk = assert(load(src, '@mod/' .. name .. '.lua'))
    end
    return chunk(...)
  end
end
`;
