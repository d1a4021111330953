-- FeverLink3: the deterministic random generator that replaces math.random (spec architecture §7 item 2).
-- L'Ecuyer's MRG32k3a in exact double arithmetic (every product < 2^53, no bit operations), reseeded from the
-- game time each step, so Lua 5.2 (TF3) and Lua 5.4 (wasmoon) give the same numbers on every game.
local M = {}

local floor = math.floor

local M1, M2 = 4294967087, 4294944443
local A12, A13N, A21, A23N = 1403580, 810728, 527612, 1370589
local NORM = 1 / (M1 + 1) -- 2.328306549295728e-10
local TWO32 = 4294967296
local WARMUP = 4

-- x mod m for 0 <= |x| < 2^53, exact in both Lua versions: the quotient may be off by one after the float
-- division, the correction puts the remainder back into [0, m).
local function mod(x, m)
  local r = x - floor(x / m) * m
  if r < 0 then r = r + m elseif r >= m then r = r - m end
  return r
end

local s10, s11, s12, s20, s21, s22 = 12345, 12345, 12345, 12345, 12345, 12345

--- Next raw draw: a float in (0, 1).
local function nextUniform()
  local p1 = mod(A12 * s11 - A13N * s10, M1)
  s10, s11, s12 = s11, s12, p1
  local p2 = mod(A21 * s22 - A23N * s20, M2)
  s20, s21, s22 = s21, s22, p2
  if p1 <= p2 then return (p1 - p2 + M1) * NORM end
  return (p1 - p2) * NORM
end

--- Reseeds from a game time (an integer of game-ms, 0 <= t < 2^53). The same t gives the same sequence.
function M.seed(t)
  t = floor(t)
  if t < 0 then t = -t end
  s10 = mod(t, M1 - 1) + 1
  s11 = floor(t / TWO32) + 12345
  s12 = 11
  s20 = mod(t, M2 - 1) + 1
  s21 = 22
  s22 = 33
  for _ = 1, WARMUP do nextUniform() end
end

--- math.random replacement: () → float in (0, 1); (m) → integer in [1, m]; (m, n) → integer in [m, n].
function M.random(m, n)
  local u = nextUniform()
  if m == nil then return u end
  if n == nil then m, n = 1, m end
  m, n = floor(m), floor(n)
  if m > n then error('bad argument to random (interval is empty)', 2) end
  return m + floor(u * (n - m + 1))
end

--- The raw state (six integers), for tests and the log.
function M.state()
  return { s10, s11, s12, s20, s21, s22 }
end

M.seed(0)

return M
