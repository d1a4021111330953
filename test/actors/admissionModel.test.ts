// Model-based test of admission (reliability-tests §7.6 M1; spec "Handshake", last paragraph): fast-check
// command sequences (connect from 127.0.0.2–5, good Join, bad Join, partial bytes, close, flood, time passing)
// against a real listener and HostSession with small limits. After every step: pending ≤ maxPending,
// connections ≤ maxConnections, per address ≤ maxPerAddress, a connection the caps say is over is refused,
// every closed connection has exactly one recorded reason, no connection or player id is ever reused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../actors/ports.ts';
import { concatBytes } from '../../protocol/bytes.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { unsealedFrame } from '../../actors/wire.ts';
import { RawClient, startHost, waitFor, type TestHost } from '../support/session.ts';
import { closeReasons, handlerFailures, rawUnsealed, simClock, tcp } from '../support/hostile.ts';

const LIMITS = { maxPending: 4, maxConnections: 6, maxPerAddress: 3, maxFramesPerSecond: 40 };
const DEADLINE_MS = 1000;
const ADDRESSES = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'];
const REFUSALS = ['too-many-connections', 'too-many-from-address', 'too-many-pending'];

interface Client {
  raw: RawClient;
  address: string;
  /** The host's side; undefined when the listener refused it. */
  conn: Connection | undefined;
  /** Host clock when the host's side opened. */
  openedAt: number;
  wroteJoin: boolean;
}

interface World {
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
  const refusalLines = w.h.logs.filter((l) => l.msg === 'connection closed' && REFUSALS.includes(String(l.reason)));
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
      await run(w);
      recordJoins(w);
      checkInvariants(w);
    },
    toString: () => name,
  };
}

const connect = (a: number) =>
  command(`connect(${ADDRESSES[a]})`, async (w) => {
    const address = ADDRESSES[a]!;
    const open = live(w);
    const mustRefuse =
      open.length >= LIMITS.maxConnections ||
      open.filter((c) => c.address === address).length >= LIMITS.maxPerAddress ||
      pending(w).length >= LIMITS.maxPending;
    const before = w.h.connections.length;
    const raw = await RawClient.open(w.h.port, address);
    await waitFor(() => w.h.connections.length > before || raw.closed, 3000, 'accepted or refused');
    const conn = w.h.connections[before];
    if (conn === undefined) {
      w.refused += 1;
      await waitFor(() => w.h.logs.filter((l) => l.msg === 'connection closed' && REFUSALS.includes(String(l.reason))).length === w.refused);
    } else {
      expect(mustRefuse, `connect from ${address} was let in over a cap`).toBe(false);
      await waitFor(() => raw.frames.length > 0 || raw.closed, 3000, 'the Challenge');
    }
    w.clients.push({ raw, address, conn, openedAt: simClock(w.h).now(), wroteJoin: false });
  });

const goodJoin = (i: number) =>
  command(`goodJoin(${i})`, async (w) => {
    const c = pick(w, i, (x) => !x.wroteJoin && !tcp(x.conn!).joined);
    if (!c) return;
    c.wroteJoin = true;
    void c.raw.join(`p${i}`).catch(() => {}); // Welcome, or Reject full / malformed after partial bytes
    await settled(c);
  });

const badJoin = (i: number) =>
  command(`badJoin(${i})`, async (w) => {
    const c = pick(w, i, (x) => !x.wroteJoin && !tcp(x.conn!).joined);
    if (!c) return;
    c.wroteJoin = true;
    c.raw.write(unsealedFrame('Join', { name: 'bad', version: '0.1', proof: new Uint8Array(32) }));
    await settled(c);
  });

const partial = (i: number) =>
  command(`partial(${i})`, async (w) => {
    const c = pick(w, i, (x) => !tcp(x.conn!).joined);
    if (!c) return;
    const before = tcp(c.conn!).bufferedBytes;
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
// Connects are weighted up so that runs reach the caps; fc.commands picks among the entries evenly.
const commands = fc.commands(
  [
    connectArb,
    connectArb,
    connectArb,
    connectArb,
    fc.nat(7).map(goodJoin),
    fc.nat(7).map(goodJoin),
    fc.nat(7).map(badJoin),
    fc.nat(7).map(partial),
    fc.nat(7).map(close),
    fc.nat(7).map(flood),
    fc.constantFrom(300, DEADLINE_MS).map(advance),
  ],
  { maxCommands: 20, size: 'max' },
);

describe('admission model (M1)', () => {
  it('keeps the caps, a reason for every close and fresh ids under any command sequence', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const h = await startHost({ maxPlayers: 4, joinDeadlineMs: DEADLINE_MS }, { limits: LIMITS });
        const w: World = { h, clients: [], refused: 0, playerIds: [] };
        try {
          await fc.asyncModelRun(() => ({ model: w, real: w }), cmds);
        } finally {
          for (const c of w.clients) c.raw.destroy();
          await h.close();
        }
      }),
      { numRuns: 15 },
    );
  });
});
