-- FeverLink3: the file link to the launcher (spec architecture §2 "The launcher and the game talk through files";
-- the session-folder contract). The ONLY mod file that uses io and os: no official TF3 API reads the environment,
-- appends to a file, reads a file by position or tells wall time. Each use says why; docs/ENGINE.md §4 lists them.
local M = {}

local dir -- the session folder, nil when there is none
local gen, offset = 1, 0 -- reading position in to_game.log: (generation, bytes consumed)
local skipping = false -- inside a line longer than MAX_LINE_BYTES: skip to its end

--- The longest to_game.log line taken, without its '\n' (1 MiB, as the launcher's reader); a longer one is
-- skipped without holding it in memory and reported.
M.MAX_LINE_BYTES = 1024 * 1024

--- True when a session folder was found.
M.active = false

--- Looks for the session folder. Returns true, or false and the reason the mod stays inactive.
function M.init()
  dir = nil
  M.active = false
  gen, offset, skipping = 1, 0, false
  -- os.getenv: not official; the environment is how the launcher names the session folder.
  local ok, value = pcall(function() return os.getenv('FEVERLINK3_SESSION_DIR') end)
  if not ok then return false, 'os.getenv is not available' end
  if type(value) ~= 'string' or value == '' then return false, 'FEVERLINK3_SESSION_DIR is not set' end
  dir = value:gsub('[/\\]+$', '')
  M.active = true
  return true
end

--- The session folder ('' when inactive).
function M.dir()
  return dir or ''
end

--- The path of a file in the session folder.
function M.path(name)
  return (dir or '.') .. '/' .. name
end

--- Reads a whole (small) file of the session folder. Returns its text, or nil and the reason.
function M.readFile(name)
  if not dir then return nil, 'no session folder' end
  -- io.open/seek/read: not official; identity.txt and resync_cursor.txt are written by the launcher.
  local f, err = io.open(M.path(name), 'rb')
  if not f then return nil, tostring(err) end
  local size = f:seek('end')
  f:seek('set', 0)
  local text = size > 0 and f:read(size) or ''
  f:close()
  return text or ''
end

--- Sets where reading to_game.log continues: generation and bytes consumed.
function M.setPosition(g, o)
  gen, offset, skipping = g, o, false
end

--- The reading position in to_game.log: generation, bytes consumed.
function M.position()
  return gen, offset
end

--- Reads the new complete lines of a file read by position (to_game.log). Returns a list of {text, pos} (pos =
-- the byte offset where the line starts), `replaced` = true when the file was shorter than what was consumed
-- (replaced by the launcher: it is then read again from byte 0 and the generation counts up), and a list of
-- {pos, reason} of lines skipped because they are longer than MAX_LINE_BYTES. One call reads at most
-- MAX_LINE_BYTES + 1 bytes (the rest is read by the next calls). A missing file is not an error (the launcher may
-- not have made it yet): no lines.
function M.readLines(name)
  local lines, skipped = {}, {}
  if not dir then return lines, false, skipped end
  -- io.open/seek/read: not official; reading by position is how lines reach the game (no TF3 API reads by position).
  local f = io.open(M.path(name or 'to_game.log'), 'rb')
  if not f then return lines, false, skipped end
  local size = f:seek('end')
  local replaced = false
  if size < offset then
    replaced = true
    gen, offset, skipping = gen + 1, 0, false
  end
  if size == offset then
    f:close()
    return lines, replaced, skipped
  end
  local want = math.min(size - offset, M.MAX_LINE_BYTES + 1)
  f:seek('set', offset)
  local data = f:read(want) or ''
  f:close()
  local pos = 1
  if skipping then
    local nl = data:find('\n', 1, true)
    if not nl then
      offset = offset + #data
      return lines, replaced, skipped
    end
    skipping = false
    pos = nl + 1
  end
  local last = data:match('^.*()\n')
  if not last or last < pos then
    -- no complete line in what was read: an incomplete line so far (never taken), or one too long to take
    if #data - pos + 1 > M.MAX_LINE_BYTES then
      skipped[#skipped + 1] = { pos = offset + pos - 1, reason = 'line longer than ' .. M.MAX_LINE_BYTES .. ' bytes' }
      skipping = true
      offset = offset + #data
    else
      offset = offset + pos - 1
    end
    return lines, replaced, skipped
  end
  while pos <= last do
    local nl = data:find('\n', pos, true)
    local text = data:sub(pos, nl - 1)
    if text:sub(-1) == '\r' then text = text:sub(1, -2) end
    if #text > M.MAX_LINE_BYTES then
      skipped[#skipped + 1] = { pos = offset + pos - 1, reason = 'line longer than ' .. M.MAX_LINE_BYTES .. ' bytes' }
    elseif text ~= '' then
      lines[#lines + 1] = { text = text, pos = offset + pos - 1 }
    end
    pos = nl + 1
  end
  offset = offset + last
  return lines, replaced, skipped
end

--- Appends complete lines (text ending in '\n') to a file of the session folder in ONE write on a file opened
-- for appending. Returns true, or false and the reason.
function M.append(name, text)
  if not dir then return false, 'no session folder' end
  -- io.open('ab')/write: not official; from_game.log and mod.log are append-only line files (no TF3 API appends).
  local f, err = io.open(M.path(name), 'ab')
  if not f then return false, tostring(err) end
  local ok, werr = f:write(text)
  f:close()
  if not ok then return false, tostring(werr) end
  return true
end

--- Replaces the whole content of a small file of the session folder that only the mod writes (mod_state.txt).
-- Returns true, or false and the reason.
function M.writeFile(name, text)
  if not dir then return false, 'no session folder' end
  -- io.open('wb')/write: not official; the mod's own state file, read again by a re-initialised mod.
  local f, err = io.open(M.path(name), 'wb')
  if not f then return false, tostring(err) end
  local ok, werr = f:write(text)
  f:close()
  if not ok then return false, tostring(werr) end
  return true
end

--- A writer that restarts after a crash may find its file ending in a torn line. Lua's io cannot truncate, and
-- rewriting the file would look to the reader like a replaced file, so the torn tail is ended with '\n': the
-- reader reports that one line as malformed and skips it. Returns true when a tail was terminated.
function M.endTornTail(name)
  if not dir then return false end
  -- io.open/seek/read: not official; see M.append.
  local f = io.open(M.path(name), 'rb')
  if not f then return false end
  local size = f:seek('end')
  local torn = false
  if size > 0 then
    f:seek('set', size - 1)
    torn = f:read(1) ~= '\n'
  end
  f:close()
  if torn then M.append(name, '\n') end
  return torn
end

--- Wall time in milliseconds (monotonic, any origin). os.clock: not official; game time stops while paused and
-- TF3 has no wall clock for scripts. TF3's MSVC runtime counts wall time since the process started.
function M.wallMs()
  -- no closure per call (this runs several times a frame): a missing os or os.clock fails the pcall the same way
  local o = os
  if type(o) ~= 'table' then return 0 end
  local ok, c = pcall(o.clock)
  if not ok or type(c) ~= 'number' then return 0 end
  return c * 1000
end

--- Which of the non-official facilities this Lua state has (logged once as 'official api probe').
function M.probe()
  -- type(io)/type(os): only to report what the game's Lua state offers.
  return {
    io = type(io) == 'table' and type(io.open) == 'function',
    getenv = type(os) == 'table' and type(os.getenv) == 'function',
    clock = type(os) == 'table' and type(os.clock) == 'function',
  }
end

return M
