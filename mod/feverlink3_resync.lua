-- FeverLink3: the game's side of a resync round (spec wire-protocol.txt "Resync round", ResyncSave 17, ResyncLoad
-- 19, SaveDone 34, Hello 30; docs/ENGINE.md engine.save / engine.load). ResyncSave saves the world under the host's
-- name and answers SaveDone. ResyncLoad is not loaded at once: the launcher writes resync_cursor.txt (the position
-- just after the load line) once the line is in to_game.log, and the world is loaded only when the cursor names that
-- position, so the mod that starts again after the load (a fresh Lua state in the real game; here the controller's
-- init) reads to_game.log from exactly there: nothing before it twice, nothing after it lost. Until then the world
-- stands. The state file of feverlink3_resume.lua describes the world being replaced: it is emptied before the load,
-- so the start after the load says Hello {time, save} (the host counts it as this game's load) instead of continuing
-- the old world.
local json = require('feverlink3_json')
local link = require('feverlink3_link')
local log = require('feverlink3_log')
local checksum = require('feverlink3_checksum')

local M = {}
local n = log.n

M.STATE_FILE = 'mod_state.txt'
--- Written just before a resync load: the name of the save and the last own action number. The Lua state that starts after the load (`loaded`) finds
-- it, resumes to_game.log at the resync cursor and names the save in its Hello, by which the host knows the Hello of
-- the load from a game's fresh start (a player whose game starts after its load line was written reads that line and
-- loads, since without the marker it reads to_game.log from identity.txt's start).
M.MARKER = 'resync_load.txt'

-- engine.save / engine.load answer `ok, detail` or one table { ok, detail } (docs/ENGINE.md, a JS host).
local function answer(pcallOk, a, b)
  if not pcallOk then return false, tostring(a) end
  if type(a) == 'table' then return a.ok == true, a.detail end
  return a == true, b
end

local function valid(p)
  return type(p.id) == 'number' and p.id >= 1 and p.id % 1 == 0
end

--- ResyncSave {id, name}: remembered; the world is saved at the end of this frame's reading (`saveDue`), once what
-- the lines before it make due standing was applied, so the save holds every item the other games apply before
-- their load (the host asks once every game stands at the pause).
function M.save(S, p)
  if not valid(p) or type(p.name) ~= 'string' then return 'ResyncSave without an id and a name' end
  if S.resume then
    -- The backlog a continuing reload reads again (feverlink3_resume.lua): the previous Lua state carried this line
    -- out in the frame that read it (saveDue runs in that frame, before mod_state.txt records the position past it).
    -- Saved again, the CURRENT world went over the round's file, maybe while the launcher was sending it, and a
    -- second SaveDone went out for that round.
    log.info('resync ' .. n(p.id) .. ': ResyncSave read again in the backlog: saved by the previous Lua state, not saved again')
    return
  end
  S.saveAsked = { id = p.id, name = p.name }
end

--- After the standing items of this frame: the save ResyncSave asked for, and its SaveDone.
function M.saveDue(S)
  local p = S.saveAsked
  if not p then return end
  S.saveAsked = nil
  local saved, detail = answer(pcall(S.engine.save, p.name))
  local done = { id = p.id, ok = saved }
  if not saved then done.detail = tostring(detail or 'the save failed'):sub(1, 300) end
  S.outbox:add('SaveDone', done)
  if saved then
    log.info('resync ' .. n(p.id) .. ': world saved as ' .. p.name .. ' at t ' .. n(S.engine.time()))
  else
    log.error('resync ' .. n(p.id) .. ': the save ' .. p.name .. ' FAILED: ' .. done.detail)
  end
end

--- Whether a ResyncLoad line ending at gen:lineEnd of to_game.log lies at or before the load line this world was
-- loaded from (S.loadedFrom, the resync cursor of that load): its save belongs to a world this one replaced.
function M.replacedLoad(S, gen, lineEnd)
  local from = S.loadedFrom
  if not from then return false end
  return gen < from.gen or (gen == from.gen and lineEnd <= from.offset)
end

--- ResyncLoad {id, name, sha256}, the line ending at byte `lineEnd` of to_game.log: remembered; the controller stops
-- reading and stands until `pending` loads it.
function M.load(S, p, lineEnd)
  if not valid(p) or type(p.name) ~= 'string' or type(lineEnd) ~= 'number' then return 'ResyncLoad without an id and a name' end
  -- The backlog a continuing reload reads again holds the load this world came from: it was loaded (the simulator
  -- found a mod reload after a load load the old save again, its world thrown back by minutes). It holds every
  -- earlier round's load too, read from the session's start: those worlds were replaced by this one (seed 323: a
  -- reload after three rounds loaded round 1's save again, its world thrown back from 39000 to 2400).
  local gen = link.position()
  if p.name == S.loadedSave or M.replacedLoad(S, gen, lineEnd) then
    log.info('resync ' .. n(p.id) .. ': ' .. p.name .. ' is the save this world was loaded from, or one before it: not loaded again')
    return
  end
  S.reload = { id = p.id, name = p.name, gen = gen, offset = lineEnd }
  -- The repair's detail dump (detail_s<id>_<t>_<player>.txt), before the load replaces this world and Lua state.
  pcall(checksum.dump, S, p.id)
  log.info('resync ' .. n(p.id) .. ': load ' .. p.name .. ' once resync_cursor.txt names ' .. n(gen) .. ':' .. n(lineEnd))
end

--- The resync cursor's offset when it names a position of r's generation of to_game.log at or after r's load line.
local function cursorReached(r)
  local g, o = tostring(link.readFile('resync_cursor.txt') or ''):match('^%s*(%d+):(%d+)%s*$')
  if g == nil or tonumber(g) ~= r.gen or tonumber(o) < r.offset then return nil end
  return tonumber(o)
end

--- Every frame while a load waits: nil while the cursor is not there yet; 'loaded' once the engine loaded the save
-- (the controller then starts again); 'failed' when it could not (this world goes on, reading after the load line);
-- 'superseded' when the cursor names a later load line (below).
function M.pending(S)
  local r = S.reload
  local cursor = r and cursorReached(r)
  if not cursor then return nil end
  S.reload = nil
  if cursor > r.offset then
    -- The launcher has written a later round's load line since (the cursor is the position after the newest one): a
    -- game that stood still (frozen) reads this line rounds late. This save's world was replaced on every other game;
    -- loading it and reading on at the cursor skipped the later load and everything between (the simulator's seed
    -- 1178: a Hello naming round 1's save in round 3 made the game an outsider for good). It reads on after this line,
    -- standing and applying nothing (S.skippingToLoad), to the later load line, and loads that.
    log.warn('resync ' .. n(r.id) .. ': ' .. r.name .. ' was replaced by a later load (resync cursor ' .. n(r.gen) .. ':'
      .. n(cursor) .. '): not loaded; reading on to that load, standing')
    S.skippingToLoad = true
    link.setPosition(r.gen, r.offset)
    return 'superseded'
  end
  link.writeFile(M.STATE_FILE, '')
  -- What the old state carries over: its last action number, the pause items read, and every item still waiting for
  -- its stamp (every game holds the same ones at its load line; those the save already holds are dropped at init).
  local lines = { r.name, n(S.seq), n(S.pauseRead) }
  for _, item in ipairs(S.queue.items) do
    local text = json.encode(item)
    if text then lines[#lines + 1] = text end
  end
  link.writeFile(M.MARKER, table.concat(lines, '\n') .. '\n')
  local loaded, detail = answer(pcall(S.engine.load, r.name))
  if not loaded then
    link.writeFile(M.MARKER, '')
    log.error('resync ' .. n(r.id) .. ': loading ' .. r.name .. ' FAILED: ' .. tostring(detail) .. '; this world goes on')
    S.skippingToLoad = nil
    link.setPosition(r.gen, r.offset)
    return 'failed'
  end
  log.info('resync ' .. n(r.id) .. ': loaded ' .. r.name .. ', the world stands at ' .. n(S.engine.time()))
  return 'loaded'
end

--- At init: the name of the save this Lua state starts from after a resync load and the last own action number
-- before it (numbers go on: a game that kept its world, a host that does not reload, has seen them and would skip a
-- number given again as a duplicate), or nil (a fresh start). The marker is cleared: only the first start counts.
function M.loaded()
  local text = tostring(link.readFile(M.MARKER) or '')
  local name = text:match('^([^\n]+)')
  if not name then return nil end
  link.writeFile(M.MARKER, '')
  local carried = { seq = 0, pauseRead = 0, items = {} }
  local i = 0
  for line in text:gmatch('([^\n]*)\n') do
    i = i + 1
    if i == 2 then carried.seq = tonumber(line) or 0
    elseif i == 3 then carried.pauseRead = tonumber(line) or 0
    elseif i > 3 then
      local item = json.decode(line)
      if type(item) == 'table' and type(item.stamp) == 'number' then carried.items[#carried.items + 1] = item end
    end
  end
  return name, carried
end

--- At init after a load at t: the carried items the save does not hold go back into the queue. Returns how many.
-- The save was made standing at t, after the standing items: it holds every item stamped before t and the pause
-- order's flushes stamped t (applied standing, before the save), not the actions and commits stamped t (applied in
-- beforeStep(t), as the games leave t). A flush stamped t requeued was applied twice (the simulator's seed test).
-- An own action the host had not confirmed is left out: the host sends its copy after the load line if it relayed
-- it (feverlink3_inbox.lua ownCopy, S.resyncLoadedAt); one it refused or never got (sent while away) would otherwise hold
-- this game at its stamp for good, waiting for a copy or a veto that belongs to the old world.
function M.requeue(S, carried, t)
  local count = 0
  S.resyncLoadedAt = t
  for _, item in ipairs(carried.items) do
    local unsaved = item.stamp > t or (item.stamp == t and item.kind ~= 'flush')
    local ownUnconfirmed = item.from == S.id and item.unconfirmed
    if unsaved and not ownUnconfirmed and S.queue:push(item) then count = count + 1 end
  end
  return count
end

return M
