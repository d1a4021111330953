-- FeverLink3: unit tests of feverlink3_json.lua (one-line JSON of the link lines; integers > 2^31 exact; arrays vs
-- objects as decided in docs/DECISIONS.md; the decoder never throws).
local T = require('testlib')
local json = require('feverlink3_json')

T.test('numbers: integers without a fraction, exact above 2^31; others shortest exact', function()
  T.eq(json.encode(0), '0')
  T.eq(json.encode(-0.0), '0')
  T.eq(json.encode(3000000000), '3000000000')
  T.eq(json.encode(10341800), '10341800')
  T.eq(json.encode(2 ^ 53 - 1), '9007199254740991')
  T.eq(json.encode(-2 ^ 40), '-1099511627776')
  T.eq(json.encode(1.5), '1.5')
  T.eq(json.encode(0.1), '0.1')
  T.eq(json.encode(1 / 3), '0.3333333333333333')
  T.eq(json.encode(math.floor(7.9)), '7')
  T.eq(json.encode(0 / 0), 'null')
  T.eq(json.encode(math.huge), 'null')
end)

T.test('every double written comes back as the same double', function()
  local random = require('feverlink3_random')
  random.seed(99)
  for _ = 1, 2000 do
    local x = (random.random() - 0.5) * 10 ^ random.random(-20, 20)
    T.eq(json.decode(json.encode(x)), x, json.encode(x))
  end
end)

T.test('strings: quote, backslash and control characters escaped, other bytes kept', function()
  T.eq(json.encode('a"b\\c'), '"a\\"b\\\\c"')
  T.eq(json.encode('l1\nl2\r\t'), '"l1\\nl2\\r\\t"')
  T.eq(json.encode('\1\31'), '"\\u0001\\u001f"')
  T.eq(json.encode('é/ü'), '"é/ü"')
  T.ok(not json.encode('x\ny'):find('\n'), 'one line')
end)

T.test('arrays vs objects: 1..n is an array, empty is an object unless marked, keys sorted', function()
  T.eq(json.encode({ 1, 2, 3 }), '[1,2,3]')
  T.eq(json.encode({}), '{}')
  T.eq(json.encode(json.array()), '[]')
  T.eq(json.encode(json.array({ 'a' })), '["a"]')
  T.eq(json.encode({ b = 1, a = { 2 }, c = {} }), '{"a":[2],"b":1,"c":{}}')
  T.eq(json.encode({ 1, nil, 3 }), '{"1":1,"3":3}', 'a table with a hole is an object')
  T.eq(json.encode({ 1, x = 2 }), '{"1":1,"x":2}')
  T.eq(json.encode({ [3000000000] = true }), '{"3000000000":true}')
  T.eq(json.encode({ true, false, json.null }), '[true,false,null]')
end)

T.test('encode refuses what JSON cannot carry, without throwing', function()
  local v, why = json.encode({ f = function() end })
  T.eq(v, nil)
  T.ok(why:find('function'), why)
  local cyc = {}
  cyc.self = cyc
  T.eq((json.encode(cyc)), nil, 'a cycle')
  T.eq((json.encode({ [true] = 1 })), nil, 'a boolean key')
end)

T.test('decode: objects, arrays (marked), numbers, escapes, nulls', function()
  local v = json.decode(' {"t": 3000000000, "a": [1, 2.5, "x", null, true], "o": {}, "e": [], "n": null, "neg": -0} ')
  T.eq(v.t, 3000000000)
  T.eq(v.a[1], 1)
  T.eq(v.a[2], 2.5)
  T.eq(v.a[3], 'x')
  T.eq(v.a[4], json.null)
  T.eq(v.a[5], true)
  T.eq(v.n, nil, 'a null in an object is left out')
  T.eq(getmetatable(v.e), json.ARRAY)
  T.eq(getmetatable(v.o), nil)
  T.eq(json.encode(v.e), '[]', 'an empty array stays an array')
  T.eq(json.encode(v.o), '{}')
  T.eq(json.encode(json.decode('1e3')), '1000', '1e3 is the integer 1000 in both Lua versions')
  T.eq(json.encode(json.decode('1000.0')), '1000')
  T.eq(json.decode('"\\u00e9\\n\\/\\ud83d\\ude00"'), 'é\n/\240\159\152\128')
  T.eq(json.decode('"\\u20ac"'), '\226\130\172')
end)

T.test('round trip of a link payload', function()
  local payload = { stamp = 3000000400, seq = 7, from = 2, allowed = true, category = 'build',
    body = { op = 'street', nodes = { { x = 1.25, y = -3, z = 0 }, { x = 2, y = 0.5, z = 1e-7 } }, name = 'Ü "q"' } }
  local text = json.encode(payload)
  T.eq(json.encode(json.decode(text)), text)
  T.eq(json.decode(text), payload)
end)

T.test('decode never throws on bad input: nil and a reason', function()
  local bad = { '', ' ', '{', '}', '{"a":}', '{"a" 1}', '[1,]', '[1 2]', '01', '1.', '.5', '-', '1e', '+1', '"abc',
    '"a\1b"', '"\\x"', '"\\u12g4"', 'tru', 'nul', 'null', '{"a":1} x', '{a:1}', "{'a':1}", string.rep('[', 100) ..
    string.rep(']', 100), '\0', 'NaN', 'Infinity' }
  for _, text in ipairs(bad) do
    local ok, v, why = pcall(json.decode, text)
    T.ok(ok, 'threw on ' .. string.format('%q', text))
    T.eq(v, nil, string.format('%q', text))
    T.ok(type(why) == 'string' and #why > 0, 'a reason for ' .. string.format('%q', text))
  end
  T.eq(json.decode(nil), nil)
end)

T.test('decode survives random bytes', function()
  local random = require('feverlink3_random')
  random.seed(5)
  local alphabet = '{}[]":,0123456789.-eE tfnulrsa\\'
  for _ = 1, 3000 do
    local parts = {}
    for i = 1, random.random(0, 24) do
      local k = random.random(#alphabet)
      parts[i] = alphabet:sub(k, k)
    end
    local text = table.concat(parts)
    local ok = pcall(json.decode, text)
    T.ok(ok, 'threw on ' .. text)
  end
end)
