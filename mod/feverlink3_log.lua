-- FeverLink3: all of the mod's logging (spec architecture §2: "all logging goes through feverlink3_log.lua").
-- One line per entry in mod.log (through the link module, one append per flush) and a copy to the game's log
-- (debugPrint in TF3, when the game offers it). Numbers in texts: use log.n (never '%d').
local link = require('feverlink3_link')
local json = require('feverlink3_json')

local M = {}

local buffer = {}
local once = {}
local onceCount = 0
local gameTime -- function returning the game time for the line prefix, or nil
local MAX_BUFFER = 500
--- The most distinct keys log.once remembers (its keys may carry a time or a kind read from the link). Past it,
-- further once-notices are not logged, only counted (M.onceSuppressed), and that is said once.
M.MAX_ONCE = 256
--- Once-notices not logged because MAX_ONCE keys were already remembered.
M.onceSuppressed = 0

--- Formats a number for a log text (integers without '.0', exact above 2^31).
M.n = json.num

--- Sets the function that gives the game time written in front of each line (nil: none).
function M.setGameTime(fn)
  gameTime = fn
end

--- Sends the buffered lines to mod.log in one append. Without a session folder they are dropped (the debugPrint
-- copy was already made).
function M.flush()
  if #buffer == 0 then return end
  local text = table.concat(buffer, '\n') .. '\n'
  buffer = {}
  if link.active then link.append('mod.log', text) end
end

--- The longest text of one log line, in bytes (a line read from the link may be quoted in it).
M.MAX_TEXT = 2000

local function write(level, text)
  text = tostring(text)
  if #text > M.MAX_TEXT then text = text:sub(1, M.MAX_TEXT) .. '... (' .. M.n(#text) .. ' bytes)' end
  text = text:gsub('[\r\n]+', ' | ')
  local sink = rawget(_G, 'debugPrint')
  if type(sink) == 'function' then pcall(sink, '[FeverLink3] ' .. level .. ' ' .. text) end
  if not link.active then return end
  local prefix = string.format('%.3f', link.wallMs() / 1000)
  if gameTime then
    local ok, t = pcall(gameTime)
    if ok and type(t) == 'number' then prefix = prefix .. ' t=' .. M.n(t) end
  end
  buffer[#buffer + 1] = prefix .. ' ' .. level .. ' ' .. text
  if #buffer >= MAX_BUFFER then M.flush() end
end

--- Log at a level: M.info('text'), M.warn, M.error, M.debug.
function M.info(text) write('INFO', text) end
function M.warn(text) write('WARN', text) end
function M.error(text) write('ERROR', text) end
function M.debug(text) write('DEBUG', text) end

--- Logs `text` at `level` ('info', 'warn', 'error') only the first time `key` is seen.
function M.once(key, level, text)
  if once[key] then return end
  if onceCount >= M.MAX_ONCE then
    M.onceSuppressed = M.onceSuppressed + 1
    if M.onceSuppressed == 1 then
      write('WARN', 'more than ' .. M.n(M.MAX_ONCE) .. ' distinct one-time notices: further ones are counted, not logged')
    end
    return
  end
  once[key] = true
  onceCount = onceCount + 1
  write(string.upper(level or 'info'), text)
end

--- Forgets the buffered lines and the once-keys (a new session state).
function M.reset()
  buffer = {}
  once = {}
  onceCount = 0
  M.onceSuppressed = 0
end

return M
