-- FeverLink3: the lines the game sends to the launcher (from_game.log), kept in order and written in ONE append
-- per frame (session-folder contract: one writer, complete lines, one write per batch). Line format:
-- `<Kind>\t<json>` with the payload exactly as on the wire (wire-protocol.txt, kinds 30-53).
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')

local M = {}
local Outbox = {}
Outbox.__index = Outbox

--- A new empty outbox.
function M.new()
  return setmetatable({ lines = {} }, Outbox)
end

--- Queues one line. Returns true, or false when the payload cannot be written as JSON (logged).
function Outbox:add(kind, payload)
  local text, err = json.encode(payload)
  if not text then
    log.error('cannot write a ' .. kind .. ' line: ' .. tostring(err))
    return false
  end
  self.lines[#self.lines + 1] = kind .. '\t' .. text
  return true
end

--- Writes every queued line to `name` (default from_game.log) in one append. On failure the lines stay queued,
-- in order, for the next try. Returns true when nothing is left.
function Outbox:flush(name)
  if #self.lines == 0 then return true end
  local ok, err = link.append(name or 'from_game.log', table.concat(self.lines, '\n') .. '\n')
  if ok then
    self.lines = {}
    return true
  end
  log.once('outbox-append', 'error', 'cannot append to from_game.log: ' .. tostring(err)
    .. ' (kept for the next frame)')
  return false
end

--- Number of lines waiting.
function Outbox:size()
  return #self.lines
end

return M
