-- FeverLink3: checksum rounds on the game's side (wire-protocol.txt ChecksumRequest 15, Authority 16, ChecksumReport
-- 33; "Light rounds", "Spread full rounds", "Chunk size and detail"). A ChecksumRequest {n, at, paused, full?, spread?,
-- chunk?, detail?} waits until the world reaches `at`: a running round is read in beforeStep(at), after every item
-- stamped <= at, so every game reads the same world; a paused round once the world stands still at the pause. A round
-- read after its step (a batch that missed its mark) reports time = at plus the lateness, and the host skips it as
-- time_skew. A light round (full = false) leaves the heavy lanes out. Hashed whole: the parts are engine.checksum().
-- A spread round (spread = steps, a full running round) on an engine with checksumLists/checksumRead: at `at` the
-- light lanes, ids and freeq are hashed whole and the heavy lanes' entity lists taken (engine.checksumLists: the
-- game keeps them under a handle, the mod gets each lane's count); then chunk k (k = 1, 2, ...) of `chunk` entities
-- (the game's CHECKSUM_CHUNK when absent; at most MAX_CHUNKS chunks, a bigger world reads more per chunk) is read
-- (engine.checksumRead) in beforeStep(at + k * spread * STEP), its landing mark, and each heavy lane is the
-- order-free sum (mod 2^32) of its chunks' sums. The report goes out when the last chunk was read, with
-- cost {entityNs, stepMaxUs, chunk} measured on the wall clock (link.wallMs) around each chunk. A round with detail
-- keeps every chunk's itemised keys (with the step each was read at) in this Lua state; `dump` writes them at a
-- repair as detail_s<sync>_<time>_<player>.txt in the session folder. The Authority values are engine.authority()
-- (optional), read and kept per round by feverlink3_authority.lua.
local authority = require('feverlink3_authority')
local link = require('feverlink3_link')
local log = require('feverlink3_log')

local M = {}
local n = log.n

--- Rounds waiting for their step, at most.
M.MAX_PENDING = 16
--- Entities a chunk reads when the request names none; the most chunks a round is cut into; one step (game-ms).
M.CHECKSUM_CHUNK = 200
M.MAX_CHUNKS = 20
M.STEP = 200
--- The most itemised keys a detail round keeps (beyond them the dump says it was cut).
M.MAX_DETAIL_KEYS = 200000
--- Rounds read in chunks at once (the simulated game keeps 8 entity lists); a round beyond them is hashed whole.
M.MAX_READING = 4

local HEAVY = { constructions = true, edges = true, nodeConfigs = true, townBuildings = true, ids = true }
local function isHeavy(name)
  return HEAVY[name] == true or name:sub(1, 14) == 'townBuildings:'
end

local function int(v)
  if type(v) ~= 'number' or v ~= v or v % 1 ~= 0 or v < 0 or v > 9007199254740992 then return nil end
  return math.floor(v)
end

local function state(S)
  if not S.checksum then
    S.checksum = { pending = {}, reading = {} }
  end
  return S.checksum
end

local engineFn = authority.engineFn

--- ChecksumRequest 15: kept until the world reaches `at`.
function M.request(S, p)
  local round, at = int(p.n), int(p.at)
  if not round or round < 1 or not at then return 'ChecksumRequest without a valid n and at' end
  local st = state(S)
  if #st.pending >= M.MAX_PENDING then return 'ChecksumRequest ' .. n(round) .. ': ' .. n(M.MAX_PENDING) .. ' rounds already wait' end
  local spread, chunk = int(p.spread), int(p.chunk)
  st.pending[#st.pending + 1] = { n = round, at = at, paused = p.paused == true, full = p.full ~= false,
    spread = spread and spread >= 1 and spread or nil, chunk = chunk and chunk >= 1 and chunk or nil,
    detail = p.detail == true, upto = int(p.upto) }
  log.info('checksum round ' .. n(round) .. ' at ' .. n(at) .. (p.paused == true and ' (paused)' or '')
    .. (p.full == false and ' (light)' or '') .. (p.spread and (' spread ' .. n(p.spread)) or '')
    .. (p.chunk and (' chunk ' .. n(p.chunk)) or '') .. (p.detail == true and ' detail' or ''))
end

local TWO32 = 4294967296

-- A 32-bit sum as 8 hex digits (two 16-bit halves: %x of a number above 2^31 is not portable in Lua 5.2).
local function hex8(v)
  return string.format('%04x%04x', math.floor(v / 65536), v % 65536)
end

-- Queues the report of `round`; false when it has no part.
local function send(S, round, time, parts, count, values, cost)
  if count == 0 then
    log.warn('checksum round ' .. n(round.n) .. ': no part to report')
    return false
  end
  local report = { n = round.n, time = time, parts = parts, authority = values, cost = cost }
  S.outbox:add('ChecksumReport', report)
  return true
end

-- Hashes the world as it stands at t for `round` (whole: engine.checksum()) and queues the report.
local function hash(S, round, t)
  local ok, parts = pcall(S.engine.checksum)
  if not ok or type(parts) ~= 'table' then
    log.error('checksum round ' .. n(round.n) .. ': engine.checksum failed: ' .. tostring(parts))
    return
  end
  local out, count = {}, 0
  for name, h in pairs(parts) do
    if type(name) == 'string' and (round.full or not isHeavy(name)) then
      out[name] = h
      count = count + 1
    end
  end
  if send(S, round, t, out, count, authority.read(S, round.n)) then
    log.info('checksum round ' .. n(round.n) .. ' read at ' .. n(t) .. (t ~= round.at and (' (late by ' .. n(t - round.at) .. ')') or ''))
  end
end

-- Keeps detail keys of `part` read at step t (bounded by MAX_DETAIL_KEYS).
local function keep(r, part, keys, t)
  if type(keys) ~= 'table' then return end
  local list = r.keys[part]
  if not list then list = {} r.keys[part] = list end
  for _, key in ipairs(keys) do
    if r.keptCount >= M.MAX_DETAIL_KEYS then r.cut = true return end
    list[#list + 1] = tostring(key) .. '\t@' .. n(t)
    r.keptCount = r.keptCount + 1
  end
end

-- Takes the parts hashed whole and the heavy lanes' entity lists at t (engine.checksumLists). Returns the reading,
-- or nil when the engine has no chunked read (or it failed: logged).
local function startReading(S, round, t, chunked)
  local lists, read = engineFn(S, 'checksumLists'), engineFn(S, 'checksumRead')
  if not lists or not read then return nil end
  local done = engineFn(S, 'checksumDone')
  local w0 = link.wallMs()
  local ok, got = pcall(lists, round.detail == true)
  if not ok or type(got) ~= 'table' or type(got.parts) ~= 'table' or type(got.lanes) ~= 'table' then
    log.error('checksum round ' .. n(round.n) .. ': engine.checksumLists failed: ' .. tostring(ok and 'no parts and lanes' or got))
    return nil
  end
  local r = { round = round, read = read, done = done, list = got.list, t0 = t, late = t - round.at, parts = {}, count = 0, lanes = {}, sums = {},
    total = 0, lane = 1, i = 1, k = 0, chunks = 0, spread = round.spread or 1, keys = {}, keptCount = 0,
    chunkMs = 0, chunkN = 0, totalMs = 0, entities = 0, chunked = chunked }
  for name, h in pairs(got.parts) do
    if type(name) == 'string' and (round.full or not isHeavy(name)) then
      r.parts[name] = h
      r.count = r.count + 1
    end
  end
  for name, count in pairs(round.full and got.lanes or {}) do -- a light round reads no heavy lane
    local c = int(count)
    if type(name) == 'string' and c then r.lanes[#r.lanes + 1] = { name = name, count = c } end
  end
  table.sort(r.lanes, function(a, b) return a.name < b.name end)
  for _, lane in ipairs(r.lanes) do
    r.sums[lane.name] = 0
    r.total = r.total + lane.count
  end
  if round.detail then
    for part, keys in pairs(type(got.keys) == 'table' and got.keys or {}) do keep(r, part, keys, t) end
  end
  -- Cut by count, never by time: `chunk` entities (the request's or the game's), at most MAX_CHUNKS chunks.
  local size = chunked and (round.chunk or M.CHECKSUM_CHUNK) or math.max(1, r.total)
  if math.ceil(r.total / size) > M.MAX_CHUNKS then size = math.ceil(r.total / M.MAX_CHUNKS) end
  r.size = size
  r.chunks = math.ceil(r.total / size)
  if round.n > 0 then r.authority = authority.read(S, round.n) end
  r.startMs = link.wallMs() - w0
  return r
end

-- Reads the next chunk of `r` at step t: `size` entities from the cursor on, across the lanes in name order.
local function readChunk(r, t)
  local due = r.round.at + (r.k + 1) * r.spread * M.STEP
  if r.chunked and t > due and t - due > r.late then r.late = t - due end
  local w0 = link.wallMs()
  local left, taken = r.size, 0
  while left > 0 and r.lane <= #r.lanes do
    local lane = r.lanes[r.lane]
    local last = math.min(lane.count, r.i + left - 1)
    if last >= r.i then
      local ok, got = pcall(r.read, r.list, lane.name, r.i, last - r.i + 1, r.round.detail == true)
      if not ok or type(got) ~= 'table' or type(got.sum) ~= 'number' then
        error('engine.checksumRead(' .. lane.name .. ') failed: ' .. tostring(ok and 'no sum' or got))
      end
      r.sums[lane.name] = (r.sums[lane.name] + got.sum) % TWO32
      if r.round.detail then keep(r, lane.name, got.keys, t) end
      taken = taken + last - r.i + 1
      left = left - (last - r.i + 1)
    end
    r.i = last + 1
    if r.i > lane.count then r.lane, r.i = r.lane + 1, 1 end
  end
  local ms = link.wallMs() - w0
  r.k = r.k + 1
  r.totalMs = r.totalMs + ms
  r.entities = r.entities + taken
  if ms >= r.chunkMs then r.chunkMs, r.chunkN = ms, taken end
end

-- The last chunk was read at t: the report (with the cost of a spread round) and the detail keys kept.
local function finish(S, r, t)
  local round = r.round
  for _, lane in ipairs(r.lanes) do
    if round.full or not isHeavy(lane.name) then
      r.parts[lane.name] = hex8(r.sums[lane.name])
      r.count = r.count + 1
    end
  end
  local cost
  if r.chunked then
    -- The dearer of the costliest chunk's and the round's average time per entity; the dearest step of the round
    -- (the round's own step, which hashes the light lanes and takes the lists, included).
    local perEntity = math.max(r.chunkN > 0 and r.chunkMs / r.chunkN or 0, r.entities > 0 and r.totalMs / r.entities or 0)
    cost = { entityNs = math.floor(perEntity * 1e6 + 0.5), stepMaxUs = math.floor(math.max(r.chunkMs, r.startMs) * 1e3 + 0.5),
      chunk = r.size }
  end
  if round.detail then
    state(S).detail = { n = round.n, at = round.at, t = t, size = r.size, spread = r.chunked and r.spread or nil,
      keys = r.keys, cut = r.cut, parts = r.parts }
  end
  local time = round.at + r.late
  if send(S, round, time, r.parts, r.count, r.authority, cost) then
    log.info('checksum round ' .. n(round.n) .. ' read at ' .. n(r.t0) .. (r.chunked and (' in ' .. n(r.k) .. ' chunks of '
      .. n(r.size) .. ' every ' .. n(r.spread) .. ' steps, the last at ' .. n(t)) or '')
      .. (r.late > 0 and (' (late by ' .. n(r.late) .. ')') or '') .. (round.detail and ' (detail kept)' or ''))
  end
end

-- Reads the chunks of `r` whose step is t or passed (every chunk of a reading that is not chunked).
local function readChunks(r, t)
  return pcall(function()
    while r.k < r.chunks and (not r.chunked or r.round.at + (r.k + 1) * r.spread * M.STEP <= t) do readChunk(r, t) end
  end)
end

-- The game may forget the reading's lists.
local function release(r)
  if r.done then pcall(r.done, r.list) end
end

-- Reads what is due at t of a round being read in chunks; true once it is finished (or failed: logged).
local function readDue(S, r, t)
  local ok, err = readChunks(r, t)
  if not ok then
    release(r)
    log.error('checksum round ' .. n(r.round.n) .. ': ' .. tostring(err) .. '; the round is not reported')
    return true
  end
  if r.k < r.chunks then return false end
  release(r)
  finish(S, r, t)
  return true
end

-- Reads `round` at t: a spread round starts its chunks; a detail round on an engine with the chunked read is read
-- whole through it (so its keys are kept); any other round is hashed whole.
local function start(S, round, t)
  local chunked = round.full and not round.paused and round.spread ~= nil
  if (chunked or round.detail) and #state(S).reading >= M.MAX_READING then
    log.warn('checksum round ' .. n(round.n) .. ': ' .. n(M.MAX_READING) .. ' rounds are being read already: hashed whole')
  elseif chunked or round.detail then
    local r = startReading(S, round, t, chunked)
    if r then
      if not readDue(S, r, t) then
        local st = state(S)
        st.reading[#st.reading + 1] = r
      end
      return
    end
    if chunked then log.once('checksum:whole', 'info', 'spread rounds are hashed whole: the engine has no chunked read') end
  end
  hash(S, round, t)
end

-- Starts, in n order, the pending rounds that `take` says are due at t.
local function startDue(S, t, take)
  local st = state(S)
  local due, rest = {}, {}
  for _, round in ipairs(st.pending) do
    if take(round) then due[#due + 1] = round else rest[#rest + 1] = round end
  end
  if #due == 0 then return end
  st.pending = rest
  table.sort(due, function(a, b) return a.n < b.n end)
  for _, round in ipairs(due) do start(S, round, t) end
end

--- In beforeStep(t), after the items stamped <= t: the running rounds at or before t start, and the chunks of the
-- rounds being read whose step is t (or passed) are read.
function M.beforeStep(S, t)
  if not S.checksum then return end
  local st = S.checksum
  local reading = st.reading
  st.reading = {}
  for _, r in ipairs(reading) do
    if not readDue(S, r, t) then st.reading[#st.reading + 1] = r end
  end
  startDue(S, t, function(round) return not round.paused and round.at <= t end)
end

--- Standing at t, just before a pause-order flush numbered up to `pauseUpto` is applied: the paused rounds at or
-- before t that read the world before it (their request named an earlier flush position, `upto`). Pause actions
-- change the standing world, so each game reads a paused round at the same position in the pause order, however
-- its frames cut the lines it reads (the host names the position: ChecksumRequest.upto).
function M.beforeFlush(S, t, pauseUpto)
  if not S.checksum or type(pauseUpto) ~= 'number' then return end
  startDue(S, t, function(round) return round.paused and round.at <= t and round.upto ~= nil and round.upto < pauseUpto end)
end

--- In a frame, once the world stands still: the paused rounds at or before t.
function M.standing(S, t)
  if not S.checksum or not S.pace.stop then return end
  startDue(S, t, function(round) return round.paused and round.at <= t end)
end

-- The dump's lines of one part: its hash, then its keys sorted (each with the step it was read at).
local function dumpPart(out, name, h, keys)
  out[#out + 1] = 'part ' .. name .. ' ' .. tostring(h)
  local sorted = {}
  for i, key in ipairs(keys or {}) do sorted[i] = key end
  table.sort(sorted)
  for _, key in ipairs(sorted) do out[#out + 1] = name .. '\t' .. key end
end

--- The text of the detail dump at repair `sync`, the world standing at t: the keys of the last detail round kept in
-- this Lua state (complete), or, without one, this state's own keys read now (partial).
function M.dumpText(S, sync, t)
  local st = state(S)
  local d = st.detail
  local out = { 'FeverLink3 checksum detail: sync ' .. n(sync) .. ', player ' .. n(S.id or 0) .. ', t ' .. n(t) }
  if not d then
    local r = startReading(S, { n = 0, at = t, full = true, detail = true }, t, false)
    local read = r and readChunks(r, t)
    if r then release(r) end
    if read then
      for _, lane in ipairs(r.lanes) do r.parts[lane.name] = hex8(r.sums[lane.name]) end
      d = { keys = r.keys, parts = r.parts, cut = r.cut }
    end
    out[#out + 1] = 'partial: no detail round; the keys of this state read at t ' .. n(t)
  else
    out[#out + 1] = 'complete: detail round ' .. n(d.n) .. ' (at ' .. n(d.at) .. ', last read at ' .. n(d.t) .. ', '
      .. (d.spread and ('chunks of ' .. n(d.size) .. ' every ' .. n(d.spread) .. ' steps') or 'read whole') .. ')'
  end
  if not d then
    out[#out + 1] = 'no keys: the engine has no chunked read'
    return table.concat(out, '\n') .. '\n'
  end
  if d.cut then out[#out + 1] = 'cut: more than ' .. n(M.MAX_DETAIL_KEYS) .. ' keys, the rest left out' end
  local names = {}
  for name in pairs(d.parts) do names[#names + 1] = name end
  for name in pairs(d.keys) do if d.parts[name] == nil then names[#names + 1] = name end end
  table.sort(names)
  for _, name in ipairs(names) do dumpPart(out, name, d.parts[name], d.keys[name]) end
  return table.concat(out, '\n') .. '\n'
end

--- At a repair (the game's side of resync round `sync`): writes detail_s<sync>_<time>_<player>.txt in the session
-- folder. Returns the file name, or nil and the reason.
function M.dump(S, sync)
  local t = S.engine.time()
  local name = 'detail_s' .. n(sync) .. '_' .. n(t) .. '_' .. n(S.id or 0) .. '.txt'
  local okText, text = pcall(M.dumpText, S, sync, t)
  if not okText then
    log.error('checksum detail dump ' .. name .. ' failed: ' .. tostring(text))
    return nil, tostring(text)
  end
  local ok, err = link.writeFile(name, text)
  if not ok then
    log.error('checksum detail dump ' .. name .. ' not written: ' .. tostring(err))
    return nil, err
  end
  log.info('checksum detail dump written: ' .. name)
  return name
end

return M
