// Races of admission (reliability-tests.md §7.6 M2): fast-check's scheduler orders joins, drops, resumes, kicks and
// leaves that happen at the same instant, in batches with a little time between them, on the memory network with one
// simulated clock (host, players, links). Whatever the order, once the dust settles: no handler failed and no promise
// was left rejected; no player id was ever given to a second player, and a resumed player kept its id; the host's
// roster and every joined player's agree, nobody is left away past the reconnect window, the roster never holds more
// than its slots; and the session still works: every joined player's chat reaches every other one. The runs must
// reach the races they are about: their counts are checked against floors after the runs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostSession, type HostNotice } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import type { Connection, LogFn } from '../../actors/ports.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { advanceBy, runUntil } from '../../adapters/transport/memoryDriver.ts';
import { seededRandom } from '../../adapters/transport/memorySocket.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { handlerFailures } from '../support/hostile.ts';
import { KEY, type LogEntry } from '../support/session.ts';

const RUNS = 500;
/** The host's game and three players. */
const MAX_PLAYERS = 4;
/** Short, so that some resumes come after it and the settling after the races stays short. */
const RECONNECT_WINDOW_MS = 2_000;
const HOST = '10.0.0.1:7000';

type Op =
  | { kind: 'join' }
  | { kind: 'drop' | 'resume' | 'kick' | 'leave'; who: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'join' as const }), weight: 2 },
  ...(['drop', 'resume', 'kick', 'leave'] as const).map((kind) => ({
    arbitrary: fc.record({ kind: fc.constant(kind), who: fc.nat(5) }),
    weight: kind === 'leave' ? 1 : 3,
  })),
);
/** Ops that happen at one instant, then the time until the next batch. */
const batchArb = fc.record({ ops: fc.array(opArb, { minLength: 1, maxLength: 4 }), gapMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })) });

interface Player {
  name: string;
  address: string;
  session: PlayerSession;
  notices: PlayerNotice[];
  logs: LogEntry[];
  /** The connection it uses now (its first, or its latest resume). */
  conn: Connection | undefined;
}

/** Whether a player's session is on now: its last welcome, resume, away or end was a welcome or a resume. */
function inSession(p: Player): boolean {
  const last = p.notices.findLast((n) => n.type === 'welcomed' || n.type === 'resumed' || n.type === 'away' || n.type === 'ended');
  return last?.type === 'welcomed' || last?.type === 'resumed';
}

/** What the runs reached, summed over the runs (checked against floors). */
const reached = { runs: 0, resumed: 0, slotLost: 0, refusedFull: 0, kicked: 0, left: 0, released: 0, raceInOneInstant: 0 };
const rejections: unknown[] = [];

const onRejection = (reason: unknown) => rejections.push(reason);
beforeAll(() => void process.on('unhandledRejection', onRejection));
afterAll(() => void process.off('unhandledRejection', onRejection));

async function race(scheduler: fc.Scheduler, batches: { ops: Op[]; gapMs: number }[], seed: number): Promise<void> {
  const clock = createSimulatedClock();
  const random = seededRandom(seed);
  const crypto: Crypto = { ...nodeCrypto, randomBytes: (length) => Uint8Array.from({ length }, () => Math.floor(random() * 256)) };
  const net = createMemoryNetwork({ clock, seed, link: { latencyMs: 3, jitterMs: 4 } });
  const hostLogs: LogEntry[] = [];
  const hostLog: LogFn = (e) => void hostLogs.push(e);
  const host = new HostSession(
    { hostName: 'host', key: KEY, maxPlayers: MAX_PLAYERS, pingIntervalMs: 500, reconnectWindowMs: RECONNECT_WINDOW_MS },
    { crypto, clock, wallClock: () => clock.now(), log: hostLog },
  );
  host.attach(net.listen(HOST, { log: hostLog }));
  const hostNotices: HostNotice[] = [];
  host.on((n) => void hostNotices.push(n));
  const players: Player[] = [];
  // Time passes in steps of at most 10 ms: advanceBy stops at the deliveries already due, not at those that the timers
  // it fires on the way (pings, the window's end) start, so one long jump would leave those unread until its end.
  const pass = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= 10) await advanceBy(clock, net, Math.min(10, left));
    if (ms === 0) await advanceBy(clock, net, 0);
  };

  const join = (): void => {
    const n = players.length + 1;
    const logs: LogEntry[] = [];
    const log: LogFn = (e) => void logs.push(e);
    const session = new PlayerSession({ name: `p${n}`, key: KEY }, { crypto, clock, wallClock: () => clock.now(), log });
    const player: Player = { name: `p${n}`, address: `10.0.1.${n}`, session, notices: [], logs, conn: undefined };
    session.on((notice) => void player.notices.push(notice));
    players.push(player);
    void net.connect(HOST, { localAddress: player.address, log }).then((conn) => {
      player.conn = conn;
      session.connect(conn);
    });
  };
  const apply = (op: Op): void => {
    if (op.kind === 'join') return join();
    const player = players.length === 0 ? undefined : players[op.who % players.length]!;
    if (!player) return;
    const id = player.session.you;
    switch (op.kind) {
      case 'drop':
        if (player.conn) net.cut(player.conn);
        return;
      case 'resume':
        if (!player.session.resumable) return;
        void net.connect(HOST, { localAddress: player.address, log: () => {} }).then((conn) => {
          player.conn = conn;
          player.session.reconnect(conn);
        });
        return;
      case 'kick':
        if (id !== undefined) host.kick(id, 'kicked', 'a race');
        return;
      case 'leave':
        player.session.leave();
        return;
    }
  };

  // Two players in before the races, so that drops, resumes and kicks have someone to meet.
  join();
  join();
  await runUntil(clock, net, () => players.every((p) => p.session.joined), { what: 'the first two players', idleStepMs: 1 });
  for (const { ops, gapMs } of batches) {
    // Every op of the batch is released in the order the scheduler picks, all at one instant of the clock.
    const done = ops.map((op) => scheduler.schedule(Promise.resolve(op)).then(apply));
    await scheduler.waitAll();
    await Promise.all(done);
    if (ops.length > 1) reached.raceInOneInstant++;
    await pass(gapMs);
  }
  // Every handshake and message of the races has arrived (a round trip is at most 14 ms here): the players that are
  // in the session see the host's roster, the away players marked as the host marks them.
  await pass(150);
  const view = (rows: readonly { id: number; name: string; away: boolean }[]) =>
    rows.map(({ id, name, away }) => `${id}:${name}${away ? ' away' : ''}`).sort();
  for (const p of players.filter(inSession)) expect(view(p.session.players()), p.name).toEqual(view(host.players()));
  // The dust settles: every resume answered, every away slot released, a ping round or more.
  await pass(RECONNECT_WINDOW_MS + 1_500);

  const failures = [...handlerFailures(hostLogs), ...players.flatMap((p) => handlerFailures(p.logs))];
  expect(failures).toEqual([]);
  expect([...hostLogs, ...players.flatMap((p) => p.logs)].filter((l) => l.msg === 'internal error')).toEqual([]);

  // Ids: the host seats every id once (a resume answered with a plain join gets a fresh one, and ends with `slot
  // lost`); a fresh Welcome never gives an id another player had; a resumed player keeps its own.
  const seated = hostNotices.flatMap((n) => (n.type === 'joined' ? [n.id] : []));
  expect(new Set(seated).size).toBe(seated.length);
  const owner = new Map<number, string>();
  for (const p of players) {
    for (const n of p.notices) {
      if (n.type === 'welcomed') {
        expect(owner.get(n.you) ?? p.name, `id ${n.you}`).toBe(p.name);
        if (owner.has(n.you)) throw new Error(`${p.name} welcomed twice with id ${n.you}`);
        owner.set(n.you, p.name);
      }
    }
    const welcomes = p.notices.filter((n) => n.type === 'welcomed');
    for (const n of p.notices) if (n.type === 'resumed') expect(n.you).toBe(welcomes.findLast(() => true)!.you);
  }

  // The rosters agree; nobody is away past the window; the slots hold.
  const rows = host.players().filter((r) => r.id !== 0);
  expect(rows.filter((r) => r.away)).toEqual([]);
  expect(rows.length).toBeLessThanOrEqual(MAX_PLAYERS - 1);
  const joined = players.filter(inSession);
  expect(rows.map((r) => r.id).sort()).toEqual(joined.map((p) => p.session.you!).sort());
  for (const p of joined) {
    expect(rows.find((r) => r.id === p.session.you)?.name).toBe(p.name);
    expect(p.session.players().map((r) => r.id).sort()).toEqual([0, ...rows.map((r) => r.id)].sort());
  }

  // The session still works.
  for (const p of joined) p.session.chat(`from ${p.name}`);
  await runUntil(
    clock,
    net,
    () => joined.every((p) => joined.every((q) => q === p || q.notices.some((n) => n.type === 'chat' && n.text === `from ${p.name}`))),
    { what: 'every chat at every joined player', maxMs: 5_000, idleStepMs: 1 },
  );
  host.stop();

  reached.runs++;
  const seen = (test: (p: Player) => boolean) => (players.some(test) ? 1 : 0);
  reached.resumed += seen((p) => p.notices.some((n) => n.type === 'resumed'));
  reached.slotLost += seen((p) => p.notices.some((n) => n.type === 'ended' && n.reason === 'slot lost'));
  reached.refusedFull += seen((p) => p.notices.some((n) => n.type === 'ended' && n.reason === 'full'));
  reached.kicked += seen((p) => p.notices.some((n) => n.type === 'ended' && n.reason === 'kicked'));
  reached.left += seen((p) => p.notices.some((n) => n.type === 'ended' && n.reason === 'left'));
  reached.released += hostNotices.some((n) => n.type === 'left' && !n.away && hostNotices.some((m) => m.type === 'left' && m.away && m.id === n.id)) ? 1 : 0;
}

describe('admission races (M2)', () => {
  it(`simultaneous joins, drops, resumes, kicks and leaves in any order keep the invariants (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(batchArb, { minLength: 2, maxLength: 8 }), fc.integer({ min: 1, max: 1 << 30 }), race),
      // A failure prints its seed and path: pass them here (with endOnFailure: true) to replay that one run.
      { numRuns: RUNS, seed: 0x5eed_2026 },
    );
    expect(rejections).toEqual([]);
    // Floors at about half of what seed 0x5eed_2026 reaches (resumed 196, slot lost 39, full 168, kicked 276, left 230,
    // released 288 of 500 runs; 1839 batches of more than one op).
    expect(reached).toMatchObject({ runs: RUNS });
    expect(reached.resumed).toBeGreaterThanOrEqual(100);
    expect(reached.slotLost).toBeGreaterThanOrEqual(15);
    expect(reached.refusedFull).toBeGreaterThanOrEqual(80);
    expect(reached.kicked).toBeGreaterThanOrEqual(130);
    expect(reached.left).toBeGreaterThanOrEqual(110);
    expect(reached.released).toBeGreaterThanOrEqual(140);
    expect(reached.raceInOneInstant).toBeGreaterThanOrEqual(900);
  }, 120_000);
});
