// Property tests of the mod's lockstep (spec/lockstep.md; prior-projects §7 lesson 1): 2-3 games, each the real
// mod in its own wasmoon state (and again in Debian's lua5.2, the game's Lua) on real session folders, and a TEST
// DOUBLE of the host relay (one ordered path per receiver, Clock → PeerClock to all but the origin, Action to every
// game, its origin included: a game applies its own action only with the host's copy). fast-check picks the
// interleaving of frames, steps, host ticks, deliveries and commands. Whatever the interleaving: no game ever passes a
// peer's promise, no action is applied late (an own one neither: its copy may come late, the game waits for it at its
// stamp), and every game applies every action at its stamp, in the same order.
import fc from 'fast-check';
import { closeSync, openSync, readSync, fstatSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LUA_FLAVOURS, loadGame, luaSources, newLuaState, type LuaFlavour, type ModGame } from './support/luaMod.ts';
import { makeSessionFolder, type SessionFolder } from './support/sessionFolder.ts';

const T0 = 10_341_800;
const STEP = 200;

type Event =
  | { type: 'frame'; g: number; wall: number }
  | { type: 'steps'; g: number; k: number }
  | { type: 'host' }
  | { type: 'deliver'; g: number; n: number }
  | { type: 'command'; g: number };

interface Game {
  folder: SessionFolder;
  mod: ModGame;
  readFrom: number; // bytes of from_game.log the relay has read
  pending: string[]; // lines the relay still has to write to this game's to_game.log (FIFO)
  delivered: Map<number, number>; // peer id → safe of the latest PeerClock written to this game
  knownSafe: Map<number, number>; // peer id → safe of the latest PeerClock this game has read (at its frame)
}

/** TEST DOUBLE of the host relay: reads each game's new lines and queues what the host would relay. */
class RelayDouble {
  readonly stamps = new Map<string, number>(); // tag → stamp, from the Action lines
  readonly games: Game[];
  constructor(games: Game[]) {
    this.games = games;
  }

  newLines(game: Game): string[] {
    const path = join(game.folder.dir, 'from_game.log');
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.alloc(size - game.readFrom);
      readSync(fd, buf, 0, buf.length, game.readFrom);
      const text = buf.toString('utf8');
      const end = text.lastIndexOf('\n') + 1;
      game.readFrom += Buffer.byteLength(text.slice(0, end));
      return text.slice(0, end).split('\n').filter((l) => l !== '');
    } finally {
      closeSync(fd);
    }
  }

  tick(): void {
    this.games.forEach((game, from) => {
      for (const line of this.newLines(game)) {
        const tab = line.indexOf('\t');
        const kind = line.slice(0, tab);
        const p = JSON.parse(line.slice(tab + 1)) as Record<string, unknown>;
        if (kind === 'Clock') {
          const peerClock = { from, t: p.t, ahead: p.ahead, safe: p.safe, need: p.need, pause: p.pause };
          this.toOthers(from, `PeerClock\t${JSON.stringify(peerClock)}`);
        } else if (kind === 'Action') {
          this.stamps.set(String((p.body as { tag: string }).tag), Number(p.stamp));
          this.toAll(`Action\t${JSON.stringify({ ...p, from, allowed: true })}`);
        }
      }
    });
  }

  toOthers(from: number, line: string): void {
    this.games.forEach((g, id) => {
      if (id !== from) g.pending.push(line);
    });
  }

  toAll(line: string): void {
    for (const g of this.games) g.pending.push(line);
  }

  deliver(game: Game, n: number): void {
    const lines = game.pending.splice(0, n);
    if (lines.length === 0) return;
    for (const line of lines) {
      if (line.startsWith('PeerClock\t')) {
        const p = JSON.parse(line.slice(10)) as { from: number; safe: number };
        game.delivered.set(p.from, p.safe);
      }
    }
    appendFileSync(join(game.folder.dir, 'to_game.log'), lines.join('\n') + '\n');
  }
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function startSession(n: number, lead: number, lua: LuaFlavour): Promise<{ games: Game[]; relay: RelayDouble }> {
  const games: Game[] = [];
  for (let id = 0; id < n; id++) {
    const folder = makeSessionFolder(id);
    const mod = await loadGame({ sessionDir: folder.dir, t0: T0, lua });
    expect(mod.run('return _VERSION')).toBe(`Lua ${lua}`);
    cleanups.push(() => mod.close(), () => folder.cleanup());
    games.push({ folder, mod, readFrom: 0, pending: [], delivered: new Map(), knownSafe: new Map() });
  }
  const relay = new RelayDouble(games);
  for (const g of games) {
    g.mod.init();
    g.mod.frame(); // Hello and the first Clock
  }
  // The host starts the session once it has every game's clock: the PeerClocks go out before the Session.
  relay.tick();
  relay.toAll(`Session\t${JSON.stringify({ started: true, speed: 1, lead })}`);
  return { games, relay };
}

function frame(game: Game): void {
  for (const [peer, safe] of game.delivered) game.knownSafe.set(peer, safe);
  game.mod.frame();
}

/** Runs the session until every game stands past the last stamp, everything relayed and delivered. */
function drain(games: Game[], relay: RelayDouble): void {
  for (let round = 0; round < 400; round++) {
    relay.tick();
    for (const g of games) relay.deliver(g, g.pending.length);
    for (const g of games) {
      g.mod.wall.ms += 150;
      frame(g); // also writes what command() queued since the last frame
      g.mod.step(3);
    }
    relay.tick();
    const until = Math.max(T0, ...relay.stamps.values()) + STEP;
    if (games.every((g) => g.mod.engine().t > until)) break;
  }
  relay.tick();
  for (const g of games) {
    relay.deliver(g, g.pending.length);
    frame(g);
  }
}

const eventArb = (n: number): fc.Arbitrary<Event> => {
  const g = fc.nat(n - 1);
  const wall = fc.integer({ min: 0, max: 120 });
  const count = fc.integer({ min: 1, max: 4 });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ type: fc.constant('frame' as const), g, wall }) },
    { weight: 4, arbitrary: fc.record({ type: fc.constant('steps' as const), g, k: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 3, arbitrary: fc.constant({ type: 'host' as const }) },
    { weight: 3, arbitrary: fc.record({ type: fc.constant('deliver' as const), g, n: count }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('command' as const), g }) },
  );
};

const scenarioArb = fc
  .integer({ min: 2, max: 3 })
  .chain((n) =>
    fc.record({
      n: fc.constant(n),
      lead: fc.integer({ min: 1, max: 4 }),
      events: fc.array(eventArb(n), { minLength: 10, maxLength: 70 }),
    }),
  );

// Under both Luas: wasmoon's 5.4 and Debian's lua5.2 (the game's), fewer runs there (a process per game).
const RUNS: Record<LuaFlavour, number> = { '5.4': 30, '5.2': 12 };

describe.each(LUA_FLAVOURS)('lockstep properties (the mod in Lua %s, a relay double, fast-check interleavings)', (lua) => {
  it('no interleaving makes a game pass a peer promise or apply an action late; all games apply alike', async () => {
    // Coverage: runs in which a game stood exactly at a peer's promise (the barrier held it), and runs that
    // applied actions of more than one game.
    const reached = { runs: 0, held: 0, mixed: 0 };
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ n, lead, events }) => {
        const { games, relay } = await startSession(n, lead, lua);
        let tags = 0;
        let held = false;
        try {
          for (const ev of events) {
            if (ev.type === 'frame') {
              games[ev.g]!.mod.wall.ms += ev.wall;
              frame(games[ev.g]!);
            } else if (ev.type === 'steps') {
              games[ev.g]!.mod.step(ev.k);
            } else if (ev.type === 'host') {
              relay.tick();
            } else if (ev.type === 'deliver') {
              relay.deliver(games[ev.g]!, ev.n);
            } else {
              games[ev.g]!.mod.command({ tag: `g${ev.g}-${tags++}` });
            }
            // a game never stands past the promise of a peer it has heard from
            for (const g of games) {
              const t = g.mod.engine().t;
              for (const [peer, safe] of g.knownSafe) {
                expect(t, `game t vs promise of peer ${peer}`).toBeLessThanOrEqual(safe);
                if (t === safe) held = true;
              }
            }
          }
          drain(games, relay);
          const applied = games.map((g) => g.mod.engine().applied.map((a) => `${String(a.cmd.tag)}@${a.t}`));
          for (const g of games) expect(g.mod.status().late).toBe(0);
          expect(applied[0]!.length).toBe(tags);
          for (const list of applied) expect(list).toEqual(applied[0]);
          for (const entry of applied[0]!) {
            const [tag, t] = entry.split('@');
            expect(Number(t), `${tag} at its stamp`).toBe(relay.stamps.get(tag!));
          }
          reached.runs++;
          if (held) reached.held++;
          if (new Set(applied[0]!.map((e) => e.split('-')[0])).size > 1) reached.mixed++;
        } finally {
          while (cleanups.length) cleanups.pop()!();
        }
      }),
      { numRuns: RUNS[lua], ...(lua === '5.2' ? { seed: 5202 } : {}) },
    );
    // Measured: Lua 5.4 (random seeds, 30 runs) held 9–13, mixed 11–19; Lua 5.2 (seed 5202, 12 runs) held 7,
    // mixed 6. Lua 5.4's floors are where 30 runs at the lowest rate measured fail about once in 10^4 runs.
    expect(reached.runs).toBe(RUNS[lua]);
    expect(reached.held, 'runs in which the barrier held a game at a peer promise').toBeGreaterThanOrEqual(lua === '5.2' ? 4 : 2);
    expect(reached.mixed, 'runs that applied actions of more than one game').toBeGreaterThanOrEqual(lua === '5.2' ? 3 : 3);
  }, 60_000);
});

interface PeerIn {
  id: number;
  t: number;
  safe?: number;
  need?: number;
  stalled: boolean;
  left: boolean;
}

const peerArb = fc.record(
  {
    id: fc.integer({ min: 1, max: 6 }),
    t: fc.integer({ min: 0, max: 50 }).map((k) => T0 + k * STEP),
    safe: fc.integer({ min: 0, max: 60 }).map((k) => T0 + k * STEP),
    need: fc.integer({ min: 0, max: 60 }).map((k) => T0 + k * STEP),
    stalled: fc.boolean(),
    left: fc.boolean(),
  },
  { requiredKeys: ['id', 't', 'stalled', 'left'] },
);

/**
 * Reference model of the barrier rule (lockstep.md "The input barrier", "Stalls and outsiders"), written from the
 * spec text: a stalled peer is no pacing peer, but "the host's promise stands in" (its relayed safe).
 */
function referenceBarrier(
  peers: PeerIn[],
  stalledIds: number[],
  flush: { stamp: number; pauseUpto: number }[],
  pauseRead: number,
  unconfirmed: number | undefined,
): number | undefined {
  // the stamp of the game's own action without the host's copy yet: it may stand there, not apply it
  const bounds: number[] = unconfirmed === undefined ? [] : [unconfirmed];
  const byId = new Map(peers.map((p) => [p.id, p]));
  void stalledIds; // Session.stalled alone frees no peer: until its stalled PeerClock is read, its own promise holds
  for (const p of byId.values()) {
    if (p.left) continue;
    // an outsider: relayed stalled with no safe; it bounds nothing
    if (p.stalled && p.safe === undefined) continue;
    const own = p.safe ?? Math.ceil(p.t / STEP) * STEP;
    // a stalled peer: "the host's promise stands in" (its relayed safe), its own need no longer counts
    if (p.stalled) bounds.push(own);
    else bounds.push(p.need === undefined ? own : Math.min(own, p.need));
  }
  for (const f of flush) if (f.pauseUpto > pauseRead) bounds.push(f.stamp);
  return bounds.length ? Math.min(...bounds) : undefined;
}

describe('lockstep rules module in wasmoon against a reference model', () => {
  it('barrier, pace, stamp and promise keep the rules for any input', async () => {
    const lua = await newLuaState(luaSources());
    cleanups.push(() => lua.global.close());
    lua.doStringSync(`
      local L = require('feverlink3_lockstep')
      local J = require('feverlink3_json')
      function __rules(text)
        local a = J.decode(text)
        local peers, stalled = {}, {}
        for _, p in ipairs(a.peers) do peers[p.id] = p end
        for _, id in ipairs(a.stalledIds) do stalled[id] = true end
        local barrier = L.barrier(peers, stalled, a.flush, a.pauseRead, a.unconfirmed)
        local target = L.flushTarget(a.t, a.flush, a.pauseRead)
        local pace = L.pace({ t = a.t, started = a.started, speed = a.speed, pauseAt = a.pauseAt, barrier = barrier,
          flushTarget = target })
        return J.encode({ barrier = barrier, limit = pace.limit, speed = pace.speed, stop = pace.stop,
          stamp = L.stamp(a.t, a.safe, a.ahead), promise = L.promise(a.safe, a.t, a.ahead),
          mayLeaveAtLimit = pace.limit ~= nil and L.mayLeave(pace.limit, pace.limit) })
      end
    `);
    const rules = lua.global.get('__rules') as (text: string) => string;
    const stampArb = fc.integer({ min: 0, max: 60 }).map((k) => T0 + k * STEP);
    const inputArb = fc.record({
      peers: fc.array(peerArb, { maxLength: 4 }),
      stalledIds: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
      flush: fc.array(fc.record({ stamp: stampArb, pauseUpto: fc.integer({ min: 1, max: 4 }) }), { maxLength: 3 }),
      pauseRead: fc.integer({ min: 0, max: 4 }),
      // the lowest stamp of an own action the host has not sent back yet (mostly none)
      unconfirmed: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: stampArb }),
      t: fc.integer({ min: 0, max: 60 }).map((k) => T0 + k * STEP),
      started: fc.boolean(),
      speed: fc.constantFrom(0, 1, 2, 4),
      pauseAt: fc.option(fc.integer({ min: 0, max: 60 }).map((k) => T0 + k * STEP), { nil: undefined }),
      safe: fc.integer({ min: 0, max: 70 }).map((k) => T0 + k * STEP),
      ahead: fc.integer({ min: 1, max: 32 }),
    });
    // Coverage: a barrier set by a peer and by a flush, none at all, runs that may leave t (the limit checked
    // against the barrier), stands at a pause, and runs to a flush past pauseAt.
    const seen = { barrier: 0, noBarrier: 0, flushBarrier: 0, canLeave: 0, stop: 0, runToFlush: 0 };
    fc.assert(
      fc.property(inputArb, (a) => {
        // a peer id appears once (the last clock of a peer replaces the earlier one)
        const peers = [...new Map(a.peers.map((p) => [p.id, p])).values()];
        const r = JSON.parse(rules(JSON.stringify({ ...a, peers }))) as {
          barrier?: number;
          limit?: number;
          speed: number;
          stop: boolean;
          stamp: number;
          promise: number;
          mayLeaveAtLimit: boolean;
        };
        expect(r.barrier).toBe(referenceBarrier(peers, a.stalledIds, a.flush, a.pauseRead, a.unconfirmed));
        const canLeave = r.limit === undefined || a.t < r.limit; // the world may execute the step at t
        if (r.barrier !== undefined && canLeave) expect(r.limit).toBeLessThanOrEqual(r.barrier);
        if (!a.started || r.speed === 0) expect(canLeave).toBe(false);
        if (a.started && a.pauseAt !== undefined && a.t < a.pauseAt) expect(r.limit).toBeLessThanOrEqual(a.pauseAt);
        if (a.started && a.pauseAt !== undefined && a.t >= a.pauseAt && canLeave) {
          // only to run to a pause-order flush read completely
          const targets = a.flush.filter((f) => f.pauseUpto <= a.pauseRead && f.stamp > a.t).map((f) => f.stamp);
          expect(r.speed).toBe(1);
          expect(r.limit).toBe(Math.min(...targets, r.barrier ?? Infinity));
        }
        if (r.stop) expect(a.pauseAt !== undefined && a.t >= a.pauseAt && r.speed === 0).toBe(true);
        expect(r.mayLeaveAtLimit).toBe(false);
        expect(r.stamp).toBeGreaterThanOrEqual(a.safe);
        expect(r.stamp).toBeGreaterThanOrEqual(a.t + a.ahead * STEP);
        expect(r.stamp % STEP).toBe(0);
        expect(r.promise).toBe(r.stamp);
        seen[r.barrier === undefined ? 'noBarrier' : 'barrier']++;
        if (a.flush.some((f) => f.pauseUpto > a.pauseRead && f.stamp === r.barrier)) seen.flushBarrier++;
        if (canLeave && r.barrier !== undefined) seen.canLeave++;
        if (r.stop) seen.stop++;
        if (a.started && a.pauseAt !== undefined && a.t >= a.pauseAt && canLeave) seen.runToFlush++;
      }),
      // Seeded: the rarest case (running to a flush past pauseAt) came 1–10 times in 300 unseeded runs, once too few.
      { numRuns: 600, seed: 1201 },
    );
    console.log(`lockstep rules coverage of 600: ${JSON.stringify(seen)}`);
    expect(seen.barrier).toBeGreaterThanOrEqual(200);
    expect(seen.noBarrier).toBeGreaterThanOrEqual(60);
    expect(seen.flushBarrier).toBeGreaterThanOrEqual(90);
    expect(seen.canLeave).toBeGreaterThanOrEqual(20);
    expect(seen.stop).toBeGreaterThanOrEqual(40);
    expect(seen.runToFlush).toBeGreaterThanOrEqual(4);
  });
});
