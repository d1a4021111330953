-- FeverLink3: when this game knows its world differs from the others' (spec wire-protocol ReplayFailed 35 game → host
-- {detail}; "Resync policy": ReplayFailed from any game asks for a repair at once) and how a veto of this game's own
-- build is announced (spec architecture §6 "Held builds in a paused game, resyncs, vetoes in words" (3): once per
-- build, by the originator, in the chat: "cancelled on every game" while the command was still held, otherwise "exists
-- on their game only; the games will be synchronised" and a resync is requested). Used by feverlink3_builds.lua (a
-- veto of a build this game had applied) and feverlink3_command.lua (a command applied on this game only).
local log = require('feverlink3_log')
local apply = require('feverlink3_apply')
local lines = require('feverlink3_lines')

local M = {}
local oneLine = lines.oneLine

--- A ReplayFailed detail is cut to this many bytes (the schema clips at 1000 code points: protocol/messages/limits.ts).
M.DETAIL_BYTES = 600
--- A chat text is cut to this many bytes (Chat 51: text ≤ 500).
M.CHAT_BYTES = 480
--- The reasons of a veto quoted in a detail or a chat line are cut to this many bytes.
M.WHY_BYTES = 200

--- Writes ReplayFailed {detail} once per cause (a build's key, ...): true when written now. The host's policy asks for a
-- repair at once; a second ReplayFailed of the same cause would only be logged there.
function M.failed(S, cause, detail)
  S.replayFailed = S.replayFailed or {}
  if S.replayFailed[cause] then return false end
  local text = oneLine(detail, M.DETAIL_BYTES)
  if not S.outbox:add('ReplayFailed', { detail = text }) then return false end
  S.replayFailed[cause] = true
  log.warn('REPLAY FAILED: ' .. text .. ' (ReplayFailed sent: the host repairs the worlds)')
  return true
end

-- One line in the session's chat from this game (Chat 51; the host sets from and name) and on this game's screen.
local function announce(S, text)
  text = oneLine(text, M.CHAT_BYTES)
  S.outbox:add('Chat', { text = text })
  apply.notify(S, 'warn', text)
end

local function ownBuild(S, key)
  return 'the build ' .. key .. ' of ' .. oneLine(S.name ~= '' and S.name or ('player ' .. log.n(S.id)), 64)
end

--- The originator's own build was vetoed while it was still held or queued here: dropped on every game (the caller
-- refuses it). Announced once per build (the caller's S.vetoedOwn keeps a second veto from coming here).
function M.ownVetoCancelled(S, key, by, why)
  announce(S, '[FeverLink3] ' .. ownBuild(S, key) .. ' was vetoed by ' .. by .. ' (' .. oneLine(why, M.WHY_BYTES)
    .. '): cancelled on every game')
end

--- A veto (relayed or the host's) of the build owner:seq that this game had already applied: it exists here and on no
-- game that dropped it. ReplayFailed once; the originator also says so in the chat, once.
function M.vetoAfterApplied(S, key, owner, by, why)
  why = oneLine(why, M.WHY_BYTES)
  local whose = owner == S.id and 'own build ' or 'build '
  local detail = whose .. key .. ' vetoed by ' .. by .. ' (' .. why .. ') after this game had applied it: it exists on '
    .. 'this game only'
  if not M.failed(S, 'veto ' .. key, detail) then return end
  if owner == S.id then
    announce(S, '[FeverLink3] ' .. ownBuild(S, key) .. ' was vetoed by ' .. by .. ' (' .. why .. ') after it was '
      .. 'applied: it exists on their game only; the games will be synchronised')
  end
end

return M
