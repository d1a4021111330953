-- FeverLink3: the lines the game sends to the launcher (from_game.log), kept in order and written in ONE append
-- per frame, and one at the end of a step that queued lines (session-folder contract: one writer, complete lines, one
-- write per batch). Line format:
-- `<Kind>\t<json>` with the payload exactly as on the wire (wire-protocol.txt, kinds 30-53).
-- Bounded: while appends fail the lines stay queued, in order, up to MAX_LINES lines or MAX_BYTES bytes; past that
-- a new line is refused (add returns false, 'overflow'), counted per kind and logged once per kind and stall. The
-- session stands still while the outbox is full (docs/ENGINE.md §7).
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')

local M = {}
local Outbox = {}
Outbox.__index = Outbox

--- The most lines kept while appends to from_game.log fail.
M.MAX_LINES = 4096
--- The most bytes kept while appends fail (4 MiB).
M.MAX_BYTES = 4 * 1024 * 1024

--- A new empty outbox.
function M.new()
  return setmetatable({ lines = {}, bytes = 0, dropped = 0, droppedKinds = {}, failures = 0, stallDropped = {} },
    Outbox)
end

--- True when the next line would be refused (the outbox holds MAX_LINES lines, or MAX_BYTES bytes).
function Outbox:full()
  return #self.lines >= M.MAX_LINES or self.bytes >= M.MAX_BYTES
end

--- Queues one line. Returns true; or false and 'json' when the payload cannot be written as JSON, false and
-- 'overflow' when the outbox is full (both logged).
function Outbox:add(kind, payload)
  local text, err = json.encode(payload)
  if not text then
    log.error('cannot write a ' .. kind .. ' line: ' .. tostring(err))
    return false, 'json'
  end
  local line = kind .. '\t' .. text
  if #self.lines >= M.MAX_LINES or self.bytes + #line + 1 > M.MAX_BYTES then
    self.dropped = self.dropped + 1
    self.droppedKinds[kind] = (self.droppedKinds[kind] or 0) + 1
    if not self.stallDropped[kind] then
      self.stallDropped[kind] = true
      log.error('OUTBOX FULL: ' .. log.n(#self.lines) .. ' lines (' .. log.n(self.bytes) .. ' bytes) wait for '
        .. 'from_game.log; a ' .. kind .. ' line was refused (lines refused so far: ' .. log.n(self.dropped) .. ')')
    end
    return false, 'overflow'
  end
  self.lines[#self.lines + 1] = line
  self.bytes = self.bytes + #line + 1
  return true
end

--- Writes every queued line to `name` (default from_game.log) in one append. On failure the lines stay queued,
-- in order, for the next try. Returns true when nothing is left.
function Outbox:flush(name)
  if #self.lines == 0 then return true end
  local ok, err = link.append(name or 'from_game.log', table.concat(self.lines, '\n') .. '\n')
  if ok then
    if self.failures > 0 then
      log.warn('from_game.log takes lines again after ' .. log.n(self.failures) .. ' failed appends: '
        .. log.n(#self.lines) .. ' kept lines written in order')
    end
    self.lines, self.bytes, self.failures, self.stallDropped = {}, 0, 0, {}
    return true
  end
  self.failures = self.failures + 1
  if self.failures == 1 then
    log.error('cannot append to from_game.log: ' .. tostring(err) .. ' (lines kept, in order, for the next frame)')
  end
  return false
end

--- Number of lines waiting.
function Outbox:size()
  return #self.lines
end

--- What the status shows: lines and bytes waiting, lines refused since the start, failed appends in a row.
function Outbox:stats()
  return { lines = #self.lines, bytes = self.bytes, dropped = self.dropped, failures = self.failures }
end

return M
