-- FeverLink3: the entry the game loads with require('feverlink3'). Returns the mod's table and sets the global
-- `feverlink3` to it: the callbacks of docs/ENGINE.md §3 (init, frame, beforeStep, command, requestSpeed, status).
-- The game provides the global `engine` (docs/ENGINE.md §2) before calling init().
local session = require('feverlink3_session')

local M = {
  version = '0.1.0',
  init = session.init,
  frame = session.frame,
  beforeStep = session.beforeStep,
  command = session.command,
  requestSpeed = session.requestSpeed,
  status = session.status,
}

rawset(_G, 'feverlink3', M)

return M
