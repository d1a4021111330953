-- FeverLink3: continuing after the mod was loaded again in the same session and the same world (a new Lua state:
-- a script reload). The mod keeps a small state file, mod_state.txt, in the session folder: the launcher session
-- it belongs to (identity.txt's start), the game time, the last action number, the promise `safe`, how far it has
-- read to_game.log, and its own actions still waiting for their stamps, each with `unconfirmed` while the host's copy
-- of it has not come (with the copy's fields once it came). A new Lua state that finds the same start
-- and a game time within a frame of the saved one continues: action numbers go on (restarting at 1 made the other
-- games refuse them as duplicates while this game applied them), the promise is kept, no new Hello (the host would
-- make the game an outsider), its own waiting actions are queued again (confirmed or still waiting for the host's copy,
-- as they were: a copy that came before the reload lies in the backlog read again, and is recognised there as the
-- copy of an action confirmed already), and the backlog of to_game.log it reads again rebuilds the session state
-- while nothing already applied is applied twice (`prune`).
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')

local M = {}
local n = log.n

M.FILE = 'mod_state.txt'
--- A saved time this far (game-ms) below the game's time still counts as the same world: the steps of the frame
-- after the last save (4 steps at speed 4 in a 250 ms frame), with room.
M.MAX_GAP = 2000

local lastText

-- The JSON of an own item, as last encoded, by item (weak keys: a dropped item takes its entry with it). This runs
-- every frame for every own waiting action; encoding them all each time was half the mod's time in the simulator.
-- An entry is reused while the fields it was made from are the same values (the body by identity: a body is never
-- changed in place once queued, only replaced by the host's copy).
local encoded = setmetatable({}, { __mode = 'k' })
local FIELDS = { 'kind', 'stamp', 'seq', 'body', 'category', 'allowed', 'unconfirmed' }

local function ownLine(item)
  local cached = encoded[item]
  if cached then
    local same = true
    for _, f in ipairs(FIELDS) do
      if cached[f] ~= item[f] then same = false break end
    end
    if same then return cached.text end
  end
  local fields = {}
  for _, f in ipairs(FIELDS) do fields[f] = item[f] end
  local text = json.encode(fields)
  if text then
    fields.text = text
    encoded[item] = fields
  end
  return text
end

--- Writes the state when it changed. pos: gen, offset of to_game.log read so far.
function M.save(S, t, gen, offset)
  if not S.active or S.start == nil then return end
  local lines = { 'start=' .. S.start, 't=' .. n(t), 'seq=' .. n(S.seq), 'safe=' .. n(S.safe),
    'pos=' .. n(gen) .. ':' .. n(offset) }
  -- the resync save this world was loaded from: its ResyncLoad in the backlog read again is not loaded again
  if S.loadedSave then lines[#lines + 1] = 'loaded=' .. S.loadedSave end
  -- and where its load line ends in to_game.log: every ResyncLoad up to there belongs to a world it replaced
  if S.loadedFrom then lines[#lines + 1] = 'loadedFrom=' .. n(S.loadedFrom.gen) .. ':' .. n(S.loadedFrom.offset) end
  -- the time that save was loaded at: the host's copy of an own action made before the load, which may follow the load
  -- line after a reload, is still taken (feverlink3_inbox.lua ownCopy)
  if S.resyncLoadedAt then lines[#lines + 1] = 'resyncLoadedAt=' .. n(S.resyncLoadedAt) end
  for _, item in ipairs(S.queue.items) do
    -- own actions and own BuildCommits (a commit made in a pause waits for the games to leave the stop: lost here, the
    -- others applied it and this game did not, a fork the simulator found with held builds)
    if (item.kind == 'action' or item.kind == 'commit') and item.from == S.id then
      local text = ownLine(item)
      if text then lines[#lines + 1] = 'own=' .. text end
    end
  end
  local text = table.concat(lines, '\n') .. '\n'
  if text == lastText then return end
  local ok, err = link.writeFile(M.FILE, text)
  if ok then lastText = text else log.once('statefile', 'warn', 'mod_state.txt not written: ' .. tostring(err)) end
end

--- The saved state if this Lua state continues it: the same launcher session (start) and a game time within
-- MAX_GAP above the saved one. Returns {t, seq, safe, gen, offset, own = {items}, loaded?, loadedFrom?, resyncLoadedAt?}
-- or nil.
function M.load(start, t)
  lastText = nil
  local text = link.readFile(M.FILE)
  if not text or start == nil then return nil end
  local saved = { own = {} }
  for line in text:gmatch('[^\n]+') do
    local k, v = line:match('^([%w]+)=(.*)$')
    if k == 'own' then
      local item = json.decode(v)
      if type(item) == 'table' then saved.own[#saved.own + 1] = item end
    elseif k then
      saved[k] = v
    end
  end
  local st, seq, safe = tonumber(saved.t), tonumber(saved.seq), tonumber(saved.safe)
  local gen, offset = tostring(saved.pos or ''):match('^(%d+):(%d+)$')
  if saved.start ~= start or not st or not seq or not safe or not gen then return nil end
  if t < st or t - st > M.MAX_GAP then
    log.info('mod_state.txt is of another world (saved at t ' .. n(st) .. ', the game stands at ' .. n(t) .. '): a fresh start')
    return nil
  end
  local loaded = type(saved.loaded) == 'string' and saved.loaded ~= '' and saved.loaded or nil
  local fromGen, fromOffset = tostring(saved.loadedFrom or ''):match('^(%d+):(%d+)$')
  local loadedFrom = fromGen and { gen = tonumber(fromGen), offset = tonumber(fromOffset) } or nil
  return { t = st, seq = seq, safe = safe, gen = tonumber(gen), offset = tonumber(offset), own = saved.own, loaded = loaded,
    loadedFrom = loadedFrom, resyncLoadedAt = tonumber(saved.resyncLoadedAt or '') }
end

--- After the backlog (the to_game.log lines the previous Lua state had read) was read again: everything stamped
-- below t0 was applied (or refused) by the previous state. A complete pause-order flush at t0 was too if the previous
-- state had a frame at t0 (`savedT` = t0: it saves at the end of each frame, before the engine steps), since a flush is
-- applied standing at the start of the frame at its stamp; if the world only stepped onto t0 after its last frame,
-- nothing at t0 was applied yet (the simulator, seed 5908: a flush at 6200 taken out unapplied, the world parted).
-- They are taken out of the queue without being applied. Returns how many.
function M.prune(S, t0, savedT)
  local standingDone = savedT == t0
  return S.queue:dropWhere(function(item)
    if item.stamp < t0 then return true end
    return standingDone and item.kind == 'flush' and item.stamp == t0 and item.pauseUpto <= S.pauseRead
  end)
end

return M
