-- FeverLink3: unit tests of feverlink3_lockstep.lua, the pure rules of spec/lockstep.md and prior-projects §2.6.
local T = require('testlib')
local L = require('feverlink3_lockstep')

T.test('roundUp rounds to the next multiple of STEP, exactly above 2^31', function()
  T.eq(L.roundUp(0), 0)
  T.eq(L.roundUp(1), 200)
  T.eq(L.roundUp(200), 200)
  T.eq(L.roundUp(201), 400)
  T.eq(L.roundUp(3000000001), 3000000200)
  T.eq(L.roundUp(200 * 2 ^ 44), 200 * 2 ^ 44)
  T.eq(L.roundUp(200 * 2 ^ 44 + 1), 200 * 2 ^ 44 + 200)
end)

T.test('promise: safe = max(previous safe, roundUp(t + ahead * STEP)), never down', function()
  T.eq(L.promise(0, 1000, 2), 1400)
  T.eq(L.promise(1400, 1000, 0), 1400, 'a smaller lead keeps the old promise')
  T.eq(L.promise(nil, 1010, 2), 1600)
  local safe = 0
  for t = 0, 4000, 200 do
    local s = L.promise(safe, t, (t / 200) % 5)
    T.ok(s >= safe, 'never down')
    safe = s
  end
end)

T.test('stamp of a new action is >= safe, >= t + ahead * STEP, on a step', function()
  T.eq(L.stamp(1000, 0, 2), 1400)
  T.eq(L.stamp(1000, 2000, 2), 2000)
  T.eq(L.stamp(3000000000, 3000000400, 2), 3000000400)
  for t = 0, 2000, 100 do
    local s = L.stamp(t, 1200, 3)
    T.ok(s >= 1200 and s >= t + 600 and s % 200 == 0, 'stamp at ' .. t)
  end
end)

T.test('barrier: min over pacing peers of min(safe, need); nil when alone', function()
  T.eq(L.barrier({}, {}, {}, 0), nil)
  local peers = { [1] = { t = 1000, safe = 1600 }, [2] = { t = 1200, safe = 2000, need = 1400 } }
  T.eq(L.barrier(peers, {}, {}, 0), 1400)
  peers[2].need = nil
  T.eq(L.barrier(peers, {}, {}, 0), 1600)
end)

T.test('barrier: a stalled peer bounds it by the host promise (its relayed safe); left peers and outsiders do not', function()
  local peers = { [1] = { t = 1000, safe = 3000 }, [2] = { t = 0, safe = 2400, need = 200, stalled = true },
    [3] = { t = 0, safe = 200, left = true }, [4] = { t = 0, stalled = true } }
  -- 2 is stalled: the host's promise 2400 stands in (its need is not its own any more); 4 is an outsider
  T.eq(L.barrier(peers, {}, {}, 0), 2400)
  -- only listed in Session.stalled (its stalled PeerClock not read yet): its own last promise, the lower one
  peers[5] = { t = 0, safe = 600 }
  T.eq(L.barrier(peers, { [5] = true }, {}, 0), 600)
  peers[2], peers[5] = nil, nil
  T.eq(L.barrier(peers, {}, {}, 0), 3000)
end)

T.test('barrier: a peer without a promise holds the game at its own clock', function()
  T.eq(L.barrier({ [1] = { t = 1010 } }, {}, {}, 0), 1200)
end)

T.test('barrier: a flush not read completely holds the game at its stamp; a complete one does not', function()
  local flush = { { stamp = 2000, pauseUpto = 5 } }
  T.eq(L.barrier({}, {}, flush, 4), 2000)
  T.eq(L.barrier({}, {}, flush, 5), nil)
  T.eq(L.barrier({ [1] = { t = 0, safe = 1000 } }, {}, flush, 4), 1000)
end)

T.test('barrier: an own action without the host\'s copy holds the game at its stamp, alone or under a peer', function()
  T.eq(L.barrier({}, {}, {}, 0, 1400), 1400, 'alone: only the own action holds it')
  T.eq(L.barrier({}, {}, {}, 0, nil), nil)
  T.eq(L.barrier({ [1] = { t = 0, safe = 1000 } }, {}, {}, 0, 1400), 1000, 'the lower one')
  T.eq(L.barrier({ [1] = { t = 0, safe = 2000 } }, {}, {}, 0, 1400), 1400)
  T.eq(L.barrier({}, {}, { { stamp = 1200, pauseUpto = 5 } }, 4, 1400), 1200)
end)

T.test('mayLeave: may stand at the barrier, never step past it (leave t only if t < barrier)', function()
  T.eq(L.mayLeave(1000, 1200), true)
  T.eq(L.mayLeave(1200, 1200), false)
  T.eq(L.mayLeave(1400, 1200), false)
  T.eq(L.mayLeave(1400, nil), true)
end)

T.test('pace: not started stands where it is', function()
  T.eq(L.pace({ t = 1000, started = false, speed = 2 }), { limit = 1000, speed = 0, stop = false })
end)

T.test('pace: running at the session speed, limited by the barrier; alone without limit', function()
  T.eq(L.pace({ t = 1000, started = true, speed = 4, barrier = 1800 }), { limit = 1800, speed = 4, stop = false })
  T.eq(L.pace({ t = 1000, started = true, speed = 2 }), { limit = nil, speed = 2, stop = false })
  T.eq(L.pace({ t = 1000, started = true, speed = 0, barrier = 1800 }), { limit = 1000, speed = 0, stop = false })
end)

T.test('pace: a pause runs to pauseAt, stops exactly there, reports stop', function()
  T.eq(L.pace({ t = 1000, started = true, speed = 4, pauseAt = 1600 }), { limit = 1600, speed = 4, stop = false })
  T.eq(L.pace({ t = 1000, started = true, speed = 4, pauseAt = 1600, barrier = 1400 }),
    { limit = 1400, speed = 4, stop = false })
  T.eq(L.pace({ t = 1600, started = true, speed = 4, pauseAt = 1600 }), { limit = 1600, speed = 0, stop = true })
  T.eq(L.pace({ t = 2000, started = true, speed = 4, pauseAt = 1600 }), { limit = 2000, speed = 0, stop = true },
    'already past pauseAt: stands at its real t')
end)

T.test('pace: the host says speed 0 as soon as it pauses; the game still runs to pauseAt at its last speed', function()
  T.eq(L.pace({ t = 1000, started = true, speed = 0, runSpeed = 2, pauseAt = 1600 }), { limit = 1600, speed = 2, stop = false })
  T.eq(L.pace({ t = 1000, started = true, speed = 0, pauseAt = 1600 }), { limit = 1600, speed = 1, stop = false },
    'no speed known: speed 1')
  T.eq(L.pace({ t = 1600, started = true, speed = 0, runSpeed = 2, pauseAt = 1600 }), { limit = 1600, speed = 0, stop = true })
end)

T.test('pace: in a pause, a complete flush ahead is run to at speed 1, then the game stands again', function()
  local items = { { stamp = 2000, pauseUpto = 3 } }
  local target = L.flushTarget(1600, items, 3)
  T.eq(target, 2000)
  T.eq(L.flushTarget(1600, items, 2), nil, 'not read completely: no target')
  T.eq(L.flushTarget(2000, items, 3), nil, 'standing at it: no target')
  T.eq(L.pace({ t = 1600, started = true, speed = 4, pauseAt = 1600, flushTarget = target }),
    { limit = 2000, speed = 1, stop = false })
end)

T.test('margins: the smallest of the last 20 arrivals; nil before any', function()
  local m = {}
  T.eq(L.smallestMargin(m), nil)
  L.noteMargin(m, 400)
  L.noteMargin(m, 1000)
  T.eq(L.smallestMargin(m), 400)
  for _ = 1, 20 do L.noteMargin(m, 800) end
  T.eq(L.smallestMargin(m), 800, 'the old 400 fell out of the window')
end)

T.test('before: pause-order items by pauseSeq, then BuildCommits, then actions by (from, seq)', function()
  local f1 = { kind = 'flush', stamp = 400, pauseSeq = 1, from = 5, seq = 9 }
  local f2 = { kind = 'flush', stamp = 400, pauseSeq = 2, from = 0, seq = 1 }
  local c = { kind = 'commit', stamp = 400, from = 0, seq = 1 }
  local a1 = { kind = 'action', stamp = 400, from = 0, seq = 3 }
  local a2 = { kind = 'action', stamp = 400, from = 1, seq = 1 }
  local early = { kind = 'action', stamp = 200, from = 9, seq = 9 }
  local order = { early, f1, f2, c, a1, a2 }
  for i = 1, #order do
    for j = 1, #order do
      T.eq(L.before(order[i], order[j]), i < j, i .. ' before ' .. j)
    end
  end
end)

T.test('allowed: id 0 always; everyone, hostOnly, only, a missing field', function()
  local p = { build = 'everyone', bulldoze = 'hostOnly', spend = { only = { 1, 3 } } }
  T.eq(L.allowed(p, 2, 'build'), true)
  T.eq(L.allowed(p, 2, 'bulldoze'), false)
  T.eq(L.allowed(p, 0, 'bulldoze'), true)
  T.eq(L.allowed(p, 3, 'spend'), true)
  T.eq(L.allowed(p, 2, 'spend'), false)
  T.eq(L.allowed(p, 2, 'other'), true)
  T.eq(L.allowed(p, 2, 'weird'), true, 'weird counts as other')
  T.eq(L.allowed({ other = 'hostOnly' }, 2, 'weird'), false)
  T.eq(L.allowed(nil, 2, 'build'), true)
end)

T.test('category and speed', function()
  T.eq(L.category('build'), 'build')
  T.eq(L.category('Build'), 'other')
  T.eq(L.category(nil), 'other')
  T.eq(L.isSpeed(4), true)
  T.eq(L.isSpeed(3), false)
  T.eq(L.isSpeed('1'), false)
end)

T.test('held builds: the held stamp, the commit stamp of a pause, the grace, peers stopped', function()
  -- ordinary stamp 1000 + 2 * 200 = 1400; held: + max(1, floor(ahead / 2)) steps
  T.eq(L.heldStamp(1000, 0, 2), 1600)
  T.eq(L.heldStamp(1000, 0, 5), 2000 + 2 * 200)
  T.eq(L.heldStamp(1000, 2000, 1), 2200, 'never below the promise')
  local peers = { [2] = { t = 2200 }, [3] = { t = 9000, stalled = true }, [4] = { t = 9000, left = true } }
  T.eq(L.commitStamp(2000, peers, nil), 2200, 'the furthest stop of a pacing peer')
  T.eq(L.commitStamp(2000, peers, 2400), 2400, 'never below the last flush stamp read')
  T.eq(L.commitStamp(2600, {}, nil), 2600)
  T.eq(L.commitGrace(1, 1), 250, 'at least 250 ms')
  T.eq(L.commitGrace(2, 1), 300, '2 x (400 - 300) + 100')
  T.eq(L.commitGrace(8, 1), 1500, 'at most 1500 ms')
  T.eq(L.commitGrace(4, 1), 1100, '2 x (800 - 300) + 100')
  T.eq(L.peersStopped(peers, 2000), true)
  T.eq(L.peersStopped({ [2] = { t = 1800 } }, 2000), false)
  T.eq(L.peersStopped(peers, nil), false, 'no pause, no stop')
end)
