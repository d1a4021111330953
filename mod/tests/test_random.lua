-- FeverLink3: unit tests of feverlink3_random.lua (MRG32k3a, reseeded from game time; architecture §7 item 2).
-- Golden values computed independently (Python, exact integers, the same final multiply by 1/(m1+1)).
local T = require('testlib')
local random = require('feverlink3_random')

local function fmt(x) return string.format('%.17g', x) end

T.test('the seed of a game time gives the golden sequence', function()
  local golden = {
    [0] = { '0.52328748066066677', '0.63346241874624587', '0.037773271989273043' },
    [3000000000] = { '0.94674073064748021', '0.85545554196805529', '0.37746864126843344' },
    [9007199254740991] = { '0.2521030692005154', '0.85025670189722313', '0.25700335005687014' },
  }
  for t, want in pairs(golden) do
    random.seed(t)
    for i = 1, 3 do T.eq(fmt(random.random()), want[i], 't=' .. string.format('%.0f', t) .. ' draw ' .. i) end
  end
end)

T.test('reseeding with the same time repeats the sequence; another time gives another', function()
  random.seed(10341800)
  local a = {}
  for i = 1, 50 do a[i] = random.random() end
  random.seed(10341800)
  for i = 1, 50 do T.eq(random.random(), a[i], 'draw ' .. i) end
  random.seed(10342000)
  local differ = 0
  for i = 1, 50 do if random.random() ~= a[i] then differ = differ + 1 end end
  T.ok(differ >= 49, 'next step draws differently')
end)

T.test('random() is in (0, 1); random(m) in [1, m]; random(m, n) in [m, n], integers', function()
  random.seed(123456)
  for _ = 1, 2000 do
    local u = random.random()
    T.ok(u > 0 and u < 1, 'u in (0,1)')
    local k = random.random(6)
    T.ok(k >= 1 and k <= 6 and k == math.floor(k), 'k in 1..6')
    T.ok(not tostring(k):find('%.'), 'printed without a fraction: ' .. tostring(k))
    local j = random.random(-3, 3)
    T.ok(j >= -3 and j <= 3 and j == math.floor(j), 'j in -3..3')
  end
end)

T.test('draws are spread evenly (10 buckets of 20000 draws)', function()
  random.seed(777)
  local buckets = {}
  for i = 1, 10 do buckets[i] = 0 end
  for _ = 1, 20000 do
    local k = random.random(10)
    buckets[k] = buckets[k] + 1
  end
  for i = 1, 10 do T.ok(buckets[i] > 1800 and buckets[i] < 2200, 'bucket ' .. i .. ' has ' .. buckets[i]) end
end)

T.test('an empty interval is an error, as in math.random', function()
  T.ok(not pcall(random.random, 5, 4), 'random(5, 4) throws')
end)

T.test('the state stays integer and inside the moduli', function()
  random.seed(2 ^ 52 + 7)
  for _ = 1, 100 do random.random() end
  local s = random.state()
  for i = 1, 6 do
    T.ok(s[i] == math.floor(s[i]) and s[i] >= 0, 'component ' .. i)
    T.ok(s[i] < 4294967087, 'below m1')
  end
end)
