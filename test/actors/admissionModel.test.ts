// Model-based test of admission (reliability-tests §7.6 M1; spec "Handshake", last paragraph): fast-check
// command sequences (connect from 127.0.0.2–5, good Join, bad Join, partial bytes, close, flood, time passing)
// against a real listener and HostSession with small limits. After every step: pending ≤ maxPending,
// connections ≤ maxConnections, per address ≤ maxPerAddress, a connection the caps say is over is refused,
// every closed connection has exactly one recorded reason, no connection or player id is ever reused. Admission is
// checked both ways against the model: a connect is refused exactly when a cap is full (with that cap's reason), a
// good Join is welcomed exactly when a slot is free (Reject `full` otherwise), a bad Join is never welcomed. The
// runs must reach every cap: their counts are checked against floors after the runs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../actors/ports.ts';
import { concatBytes } from '../../protocol/bytes.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { unsealedFrame } from '../../actors/wire.ts';
import { RawClient, startHost, waitFor, type TestHost } from '../support/session.ts';
import { closeReasons, handlerFailures, rawUnsealed, simClock, tcp } from '../support/hostile.ts';

const LIMITS = { maxPending: 4, maxConnections: 5, maxPerAddress: 3, maxFramesPerSecond: 40 };
const DEADLINE_MS = 1000;
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const REFUSALS = ['too-many-connections', 'too-many-from-address', 'too-many-pending'] as const;
const MAX_PLAYERS = 4;

interface Client {
  raw: RawClient;
  address: string;
  /** The host's side; undefined when the listener refused it. */
  conn: Connection | undefined;
  /** Host clock when the host's side opened. */
  openedAt: number;
  wroteJoin: boolean;
  /** Partial bytes were written: a Join after them is not a clean Join. */
  partial: boolean;
}

/** What the runs reached, summed over the runs (checked against floors). */
const reached = {
  runs: 0,
  /** Runs in which each cap refused a connect. */
  'too-many-connections': 0,
  'too-many-from-address': 0,
  'too-many-pending': 0,
  /** Runs in which open connections stood at maxConnections / pending at maxPending. */
  connectionsFull: 0,
  pendingFull: 0,
  /** Runs in which a good Join was refused `full`, and in which one was welcomed. */
  playersFull: 0,
  welcomed: 0,
};

interface RunReached {
  refusals: Set<string>;
  connectionsFull: boolean;
  pendingFull: boolean;
  playersFull: boolean;
  welcomed: boolean;
}

interface World {
  run: RunReached;
  /** Clients the host closed in the last command: their slots may not be free yet. */
  closing: Set<Client>;
  h: TestHost;
  clients: Client[];
  refused: number;
  /** Player ids the host handed out, in order. */
  playerIds: number[];
}

const live = (w: World) => w.clients.filter((c) => c.conn !== undefined && c.conn.closeReason === undefined);
const pending = (w: World) => live(w).filter((c) => !tcp(c.conn!).joined);

/** The invariants, checked after every command. */
function checkInvariants(w: World): void {
  const open = live(w);
  expect(open.length).toBeLessThanOrEqual(LIMITS.maxConnections);
  expect(pending(w).length).toBeLessThanOrEqual(LIMITS.maxPending);
  for (const address of ADDRESSES) {
    expect(open.filter((c) => c.address === address).length).toBeLessThanOrEqual(LIMITS.maxPerAddress);
  }
  // Every closed connection has exactly one recorded reason, and it is the one the connection reports.
  for (const c of w.clients) {
    if (c.conn?.closeReason !== undefined) expect(closeReasons(w.h.logs, c.conn.id)).toEqual([c.conn.closeReason]);
  }
  const refusalLines = w.h.logs.filter((l) => l.msg === 'connection closed' && (REFUSALS as readonly string[]).includes(String(l.reason)));
  expect(refusalLines).toHaveLength(w.refused);
  // Connection ids: every one the listener numbered (opened or refused) is distinct.
  const ids = w.h.logs.filter((l) => l.msg === 'connection opened').map((l) => l.id);
  ids.push(...refusalLines.map((l) => l.id));
  expect(new Set(ids).size).toBe(ids.length);
  // Player ids: handed out in increasing order, never twice.
  const joined = w.h.logs.filter((l) => l.msg === 'player joined').map((l) => Number(l.id));
  expect(joined).toEqual(w.playerIds);
  expect(joined.every((id, i) => i === 0 || id > joined[i - 1]!)).toBe(true);
  expect(w.h.host.players().length).toBeLessThanOrEqual(4);
  expect(handlerFailures(w.h.logs)).toEqual([]);
}

/** Picks an open client whose host side is still pending or joined, by a generated index. */
function pick(w: World, index: number, filter: (c: Client) => boolean): Client | undefined {
  const candidates = w.clients.filter((c) => c.conn !== undefined && c.conn.closeReason === undefined && filter(c));
  return candidates.length === 0 ? undefined : candidates[index % candidates.length];
}

/** Waits until `c` is welcomed, refused or closed (either side). */
function settled(c: Client): Promise<unknown> {
  return waitFor(
    () => c.raw.messages().some((m) => m.kind === 'Welcome') || c.raw.reject() !== undefined || c.conn?.closeReason !== undefined,
    3000,
    'an answer to the Join',
  );
}

function recordJoins(w: World): void {
  for (const l of w.h.logs) {
    if (l.msg === 'player joined' && !w.playerIds.includes(Number(l.id))) w.playerIds.push(Number(l.id));
  }
}

type Cmd = fc.AsyncCommand<World, World>;

function command(name: string, run: (w: World) => Promise<void>): Cmd {
  return {
    check: () => true,
    run: async (_model, w) => {
      const open = new Set(live(w));
      await run(w);
      recordJoins(w);
      checkInvariants(w);
      // The host frees a closed connection's slots when its socket is gone, a moment after closeReason is set (it
      // lingers for the peer's FIN), and nothing outside the transport shows when. Wait for the peers to see the
      // close, then for the host's sockets to take the peers' FIN (real sockets: no clock to drive; 20 ms of real
      // time). The ones closed in this command still count as `closing` at the next connect: a refusal may count
      // their slots, an admission may not.
      const closing = [...open].filter((c) => c.conn?.closeReason !== undefined);
      if (closing.length > 0) {
        await waitFor(() => closing.every((c) => c.raw.closed), 3000, 'the peers to see the close');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      w.closing = new Set(closing);
    },
    toString: () => name,
  };
}

const connect = (a: number) =>
  command(`connect(${ADDRESSES[a]})`, async (w) => {
    const address = ADDRESSES[a]!;
    const open = live(w);
    // The caps that are full now: a connect must be let in when none is, and refused only with the reason of one
    // that is full counting the connections still closing (whose slots the host may not have freed yet).
    const capsFull = (conns: Client[], pendingConns: Client[]): string[] => {
      const full: string[] = [];
      if (conns.length >= LIMITS.maxConnections) full.push('too-many-connections');
      if (conns.filter((c) => c.address === address).length >= LIMITS.maxPerAddress) full.push('too-many-from-address');
      if (pendingConns.length >= LIMITS.maxPending) full.push('too-many-pending');
      return full;
    };
    const full = capsFull(open, pending(w));
    const closing = [...w.closing];
    const fullOrClosing = capsFull([...open, ...closing], [...pending(w), ...closing.filter((c) => !tcp(c.conn!).joined)]);
    const before = w.h.connections.length;
    const raw = await RawClient.open(w.h.port, address);
    await waitFor(() => w.h.connections.length > before || raw.closed, 3000, 'accepted or refused');
    const conn = w.h.connections[before];
    if (conn === undefined) {
      w.refused += 1;
      await waitFor(() => w.h.logs.filter((l) => l.msg === 'connection closed' && (REFUSALS as readonly string[]).includes(String(l.reason))).length === w.refused);
      const reason = String(w.h.logs.filter((l) => l.msg === 'connection closed' && (REFUSALS as readonly string[]).includes(String(l.reason))).at(-1)!.reason);
      expect(fullOrClosing, `connect from ${address} was refused (${reason}) for a cap that is not full`).toContain(reason);
      w.run.refusals.add(reason);
    } else {
      expect(full, `connect from ${address} was let in over a cap`).toEqual([]);
      await waitFor(() => raw.frames.length > 0 || raw.closed, 3000, 'the Challenge');
    }
    w.clients.push({ raw, address, conn, openedAt: simClock(w.h).now(), wroteJoin: false, partial: false });
    if (live(w).length >= LIMITS.maxConnections) w.run.connectionsFull = true;
    if (pending(w).length >= LIMITS.maxPending) w.run.pendingFull = true;
  });

const goodJoin = (i: number) =>
  command(`goodJoin(${i})`, async (w) => {
    const c = pick(w, i, (x) => !x.wroteJoin && !tcp(x.conn!).joined);
    if (!c) return;
    c.wroteJoin = true;
    // The host's game holds a slot too: a free slot is players() < maxPlayers.
    const slotFree = w.h.host.players().length < MAX_PLAYERS;
    void c.raw.join(`p${i}`).catch(() => {}); // Welcome, or Reject full / malformed after partial bytes
    await settled(c);
    if (c.partial) return; // the Join follows partial bytes: it reads as a malformed frame, not as a Join
    const welcomed = c.raw.messages().some((m) => m.kind === 'Welcome');
    // A refusal: the host's side closes as it sends the Reject; the peer has all of it once its socket closed.
    if (!welcomed) await waitFor(() => c.raw.closed, 3000, 'the refused peer to close');
    if (slotFree) {
      expect(welcomed, `a good Join with a free slot was not welcomed (${JSON.stringify(c.raw.reject())})`).toBe(true);
      w.run.welcomed = true;
    } else {
      expect(welcomed, 'a good Join was welcomed with every slot held').toBe(false);
      expect(c.raw.reject()?.reason, `closed ${c.conn!.closeReason}`).toBe('full');
      w.run.playersFull = true;
    }
  });

const badJoin = (i: number) =>
  command(`badJoin(${i})`, async (w) => {
    const c = pick(w, i, (x) => !x.wroteJoin && !tcp(x.conn!).joined);
    if (!c) return;
    c.wroteJoin = true;
    c.raw.write(unsealedFrame('Join', { name: 'bad', version: '0.1', proof: new Uint8Array(32) }));
    await settled(c);
    expect(c.raw.messages().some((m) => m.kind === 'Welcome'), 'a Join with a wrong proof was welcomed').toBe(false);
    expect(tcp(c.conn!).joined).toBe(false);
  });

const partial = (i: number) =>
  command(`partial(${i})`, async (w) => {
    const c = pick(w, i, (x) => !tcp(x.conn!).joined);
    if (!c) return;
    const before = tcp(c.conn!).bufferedBytes;
    c.partial = true;
    c.raw.write(rawUnsealed(Kind.Join, '{"name":"slow"').subarray(0, 3));
    await waitFor(() => tcp(c.conn!).bufferedBytes > before || c.conn!.closeReason !== undefined, 3000, 'the bytes');
  });

const close = (i: number) =>
  command(`close(${i})`, async (w) => {
    const c = pick(w, i, () => true);
    if (!c) return;
    c.raw.destroy();
    await waitFor(() => c.conn!.closeReason, 3000, 'the host to see the close');
  });

const flood = (i: number) =>
  command(`flood(${i})`, async (w) => {
    const c = pick(w, i, () => true);
    if (!c) return;
    const frames = c.raw.sealer
      ? Array.from({ length: 60 }, () => c.raw.sealed('Pong', { n: 1 }))
      : Array.from({ length: 60 }, () => rawUnsealed(Kind.Join, '{}'));
    c.raw.write(concatBytes(...frames));
    await waitFor(() => c.conn!.closeReason, 3000, 'the flood to end the connection');
    expect(['flood', 'malformed']).toContain(c.conn!.closeReason);
  });

const advance = (ms: number) =>
  command(`advance(${ms})`, async (w) => {
    simClock(w.h).increment(ms);
    const now = simClock(w.h).now();
    for (const c of pending(w)) {
      if (now - c.openedAt >= DEADLINE_MS) await waitFor(() => c.conn!.closeReason, 3000, 'the join deadline');
    }
  });

const connectArb = fc.integer({ min: 0, max: ADDRESSES.length - 1 }).map(connect);
// Connects and good Joins are weighted up, and half the connects come from one address, so that runs reach every
// cap (connections, per address, pending) and the player slots; fc.commands picks among the entries evenly.
const commands = fc.commands(
  [
    connectArb,
    connectArb,
    connectArb,
    fc.constant(0).map(connect),
    fc.constant(0).map(connect),
    fc.constant(0).map(connect),
    fc.nat(7).map(goodJoin),
    fc.nat(7).map(goodJoin),
    fc.nat(7).map(goodJoin),
    fc.nat(7).map(badJoin),
    fc.nat(7).map(partial),
    fc.nat(7).map(close),
    fc.nat(7).map(flood),
    fc.constantFrom(300, DEADLINE_MS).map(advance),
  ],
  { maxCommands: 30, size: 'max' },
);
// Every run opens with a rush (a mix on its own would mostly close or time out its connections before a cap is
// full), then any mix: the rush is
// connections only (the pending cap fills first), or joins among them (the connection cap and the slots fill).
const rush = fc.oneof(
  fc.array(fc.oneof(connectArb, fc.constant(0).map(connect)), { minLength: 5, maxLength: 8 }),
  fc.array(fc.oneof(connectArb, fc.constant(0).map(connect), fc.nat(7).map(goodJoin)), { minLength: 6, maxLength: 12 }),
);

describe('admission model (M1)', () => {
  it('keeps the caps, a reason for every close and fresh ids under any command sequence', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(rush, commands, async (opening, cmds) => {
        const h = await startHost({ maxPlayers: MAX_PLAYERS, joinDeadlineMs: DEADLINE_MS }, { limits: LIMITS });
        const run: RunReached = { refusals: new Set(), connectionsFull: false, pendingFull: false, playersFull: false, welcomed: false };
        const w: World = { run, closing: new Set(), h, clients: [], refused: 0, playerIds: [] };
        try {
          for (const cmd of opening) await cmd.run(w, w);
          await fc.asyncModelRun(() => ({ model: w, real: w }), cmds);
        } finally {
          for (const c of w.clients) c.raw.destroy();
          await h.close();
        }
        reached.runs++;
        for (const reason of run.refusals) reached[reason as (typeof REFUSALS)[number]]++;
        for (const key of ['connectionsFull', 'pendingFull', 'playersFull', 'welcomed'] as const) if (run[key]) reached[key]++;
      }),
      // A fixed seed: the floors below are then a check of this generator, not a bet on one (15 runs are few).
      { numRuns: 15, seed: 7_6_2026 },
    );
    // The caps were reached (measured with this seed, 5 runs alike: refused for connections in 7 runs, per address
    // in 4, pending in 8; connections full in 11, pending full in 12, a Join refused full in 8, welcomed in 12).
    expect(reached.runs).toBe(15);
    expect(reached['too-many-connections'], 'runs with a connect refused at maxConnections').toBeGreaterThanOrEqual(3);
    expect(reached['too-many-from-address'], 'runs with a connect refused at maxPerAddress').toBeGreaterThanOrEqual(2);
    expect(reached['too-many-pending'], 'runs with a connect refused at maxPending').toBeGreaterThanOrEqual(4);
    expect(reached.connectionsFull, 'runs that held maxConnections open').toBeGreaterThanOrEqual(5);
    expect(reached.pendingFull, 'runs that held maxPending pending').toBeGreaterThanOrEqual(6);
    expect(reached.playersFull, 'runs with a good Join refused full').toBeGreaterThanOrEqual(4);
    expect(reached.welcomed, 'runs with a good Join welcomed').toBeGreaterThanOrEqual(6);
  });
});
