// Sessions over the in-memory network on ONE simulated clock (the simulator's setting, DESIGN.md "Tests:
// simulation"): the host session, the players, the transport's timers and every delivery share the clock, so
// round trips are the links' latencies exactly, cuts and partitions meet the session's own rules (away, silence,
// reconnect window), and a seeded run repeats to the millisecond (with the crypto port's random bytes seeded too:
// nonces and resume tokens are the one other source of chance in a session).
import { describe, expect, it } from 'vitest';
import { HostSession, type HostNotice, type HostOptions } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { createSimulatedClock, type ManualClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { createMemoryNetwork, type MemoryNetwork, type MemoryNetworkOptions } from '../../adapters/transport/memory.ts';
import { advanceBy, runUntil } from '../../adapters/transport/memoryDriver.ts';
import { seededRandom } from '../../adapters/transport/memorySocket.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY, type LogEntry } from '../support/session.ts';

interface SimPlayer {
  name: string;
  player: PlayerSession;
  notices: PlayerNotice[];
  logs: LogEntry[];
  ended(): (PlayerNotice & { type: 'ended' }) | undefined;
}

/** A whole session on one clock: a host at 10.0.0.1:7000 and players joining from their own addresses. */
function world(options: Partial<Omit<MemoryNetworkOptions, 'clock'>> = {}, hostOptions: Partial<HostOptions> = {}) {
  const clock: ManualClock = createSimulatedClock();
  const random = seededRandom((options.seed ?? 1) + 0x5eed);
  const crypto: Crypto = {
    ...nodeCrypto,
    randomBytes: (length) => Uint8Array.from({ length }, () => Math.floor(random() * 256)),
  };
  const trace: string[] = [];
  const stamp = (who: string): LogFn => (e) => trace.push(`${clock.now().toFixed(3)} ${who} ${JSON.stringify(e)}`);
  const hostLogs: LogEntry[] = [];
  const hostLog: LogFn = (e) => {
    hostLogs.push(e);
    stamp('host')(e);
  };
  const net: MemoryNetwork = createMemoryNetwork({ clock, ...options, log: stamp('net') });
  const listener = net.listen('10.0.0.1:7000', { log: hostLog });
  const host = new HostSession(
    { hostName: 'host', key: KEY, pingIntervalMs: 1000, ...hostOptions },
    { crypto, clock, wallClock: () => clock.now(), log: hostLog },
  );
  host.attach(listener);
  const hostNotices: HostNotice[] = [];
  host.on((n) => {
    hostNotices.push(n);
    trace.push(`${clock.now().toFixed(3)} host notice ${JSON.stringify(n)}`);
  });
  const run = <T>(probe: () => T | undefined | false, what = 'a condition', maxMs = 60_000) =>
    runUntil(clock, net, probe, { what, maxMs, idleStepMs: 1 });

  async function join(name: string, address: string): Promise<SimPlayer> {
    const logs: LogEntry[] = [];
    const log: LogFn = (e) => {
      logs.push(e);
      stamp(name)(e);
    };
    const pending = net.connect('10.0.0.1:7000', { localAddress: address, log });
    const conn = await run(() => settledValue(pending), `${name} to connect`);
    const player = new PlayerSession({ name, key: KEY }, { crypto, clock, wallClock: () => clock.now(), log });
    const notices: PlayerNotice[] = [];
    player.on((n) => {
      notices.push(n);
      trace.push(`${clock.now().toFixed(3)} ${name} notice ${JSON.stringify(n)}`);
    });
    player.connect(conn);
    await run(() => player.joined || notices.some((n) => n.type === 'ended'), `${name} to join`);
    return {
      name,
      player,
      notices,
      logs,
      ended: () => notices.find((n): n is PlayerNotice & { type: 'ended' } => n.type === 'ended'),
    };
  }

  return { clock, net, host, hostLogs, hostNotices, trace, run, join };
}

describe('sessions on one simulated clock over the memory network', () => {
  it('the host measures each player’s round trip as twice its link latency', async () => {
    const w = world();
    w.net.route('10.0.1.1', '10.0.0.1', { latencyMs: 10 });
    w.net.route('10.0.1.2', '10.0.0.1', { latencyMs: 40 });
    const alice = await w.join('alice', '10.0.1.1');
    const bob = await w.join('bob', '10.0.1.2');
    expect([alice.player.you, bob.player.you]).toEqual([1, 2]);
    await w.run(() => w.host.players().every((p) => p.id === 0 || p.rtt !== undefined), 'both RTTs', 5000);
    const rtt = Object.fromEntries(w.host.players().map((p) => [p.name, p.rtt]));
    expect(rtt).toMatchObject({ alice: 20, bob: 80 });
    // The next Ping carries every RTT to every player.
    const seen = await w.run(() => alice.notices.findLast((n) => n.type === 'rtt' && n.rtt['2'] !== undefined), 'the RTTs at alice');
    expect(seen).toMatchObject({ rtt: { '1': 20, '2': 80 } });
  });

  it('a chat takes the sender’s latency to the host and the receiver’s from it', async () => {
    const w = world();
    w.net.route('10.0.1.1', '10.0.0.1', { latencyMs: 15 });
    w.net.route('10.0.1.2', '10.0.0.1', { latencyMs: 25 });
    const alice = await w.join('alice', '10.0.1.1');
    const bob = await w.join('bob', '10.0.1.2');
    const sent = w.clock.now();
    alice.player.chat('over the wire');
    await w.run(() => bob.notices.some((n) => n.type === 'chat'), 'the chat at bob');
    expect(w.clock.now() - sent).toBe(40);
  });

  it('a cut link: the host holds the player’s slot (away, reason reset), the player goes away with reset', async () => {
    const w = world({}, { reconnectWindowMs: 30_000 });
    const alice = await w.join('alice', '10.0.1.1');
    const bob = await w.join('bob', '10.0.1.2');
    const conn = w.net.links().find((l) => l.client.localAddress === '10.0.1.1')!;
    conn.cut();
    expect(alice.notices.find((n) => n.type === 'away')).toMatchObject({ reason: 'reset' });
    expect(alice.player.resumable).toBe(true);
    await w.run(() => bob.player.players().find((p) => p.id === 1)?.away, 'alice away at bob');
    expect(w.hostLogs.find((l) => l.msg === 'player away' && l.id === 1)).toMatchObject({ reason: 'reset' });
    const start = w.clock.now();
    await w.run(() => w.hostNotices.find((n) => n.type === 'left' && n.id === 1 && !n.away), 'the slot released', 40_000);
    expect(w.clock.now() - start).toBeGreaterThanOrEqual(29_000);
  });

  it('a caught-up returner lists itself as back, not away: its own PlayerLeft is not kept for it (seed of M2)', async () => {
    const w = world({}, { reconnectWindowMs: 30_000 });
    const alice = await w.join('alice', '10.0.1.1');
    const bob = await w.join('bob', '10.0.1.2');
    w.net.cut(w.net.links().find((l) => l.client.localAddress === '10.0.1.1')!.client);
    await w.run(() => bob.player.players().find((p) => p.id === 1)?.away, 'alice away at bob');
    const pending = w.net.connect('10.0.0.1:7000', { localAddress: '10.0.1.1' });
    const conn = await w.run(() => settledValue(pending), 'a new link');
    alice.player.reconnect(conn);
    await w.run(() => alice.notices.find((n) => n.type === 'resumed'), 'alice resumed');
    await w.run(() => bob.player.players().find((p) => p.id === 1)?.away === false, 'alice back at bob');
    await advanceBy(w.clock, w.net, 100);
    expect(alice.notices.find((n) => n.type === 'resumed')).toMatchObject({ caughtUp: true });
    expect(alice.player.players().find((p) => p.id === 1)).toMatchObject({ name: 'alice', away: false });
    const aboutHerself = alice.notices.filter((n) => n.type === 'game' && n.message.kind === 'PlayerLeft' && n.message.payload.id === 1);
    expect(aboutHerself).toEqual([]);
  });

  it('a joiner finds an away player marked away in its Welcome (seed of M2)', async () => {
    const w = world({}, { reconnectWindowMs: 30_000 });
    await w.join('alice', '10.0.1.1');
    await w.join('bob', '10.0.1.2');
    w.net.cut(w.net.links().find((l) => l.client.localAddress === '10.0.1.1')!.client);
    await w.run(() => w.host.players().find((p) => p.id === 1)?.away, 'alice away at the host');
    const carol = await w.join('carol', '10.0.1.3');
    const welcome = carol.notices.find((n) => n.type === 'welcomed');
    expect(welcome && welcome.players.find((p) => p.id === 1)).toEqual({ id: 1, name: 'alice', ready: false, away: true });
    expect(carol.player.players().find((p) => p.id === 1)).toMatchObject({ away: true });
    expect(carol.player.players().find((p) => p.id === 2)).toMatchObject({ away: false });
  });

  it('a partition longer than the silence limit: the silent player is dropped as away; healing comes too late', async () => {
    const w = world({}, { pingIntervalMs: 1000, silenceMs: 5000 });
    const alice = await w.join('alice', '10.0.1.1');
    await w.join('bob', '10.0.1.2');
    const link = w.net.links().find((l) => l.client.localAddress === '10.0.1.1')!;
    link.set({ held: true });
    const start = w.clock.now();
    const left = await w.run(() => w.hostNotices.find((n) => n.type === 'left' && n.id === 1), 'alice dropped', 20_000);
    expect(left).toMatchObject({ away: true });
    expect(w.clock.now() - start).toBeGreaterThanOrEqual(4000);
    expect(w.clock.now() - start).toBeLessThanOrEqual(7000);
    link.set({ held: false });
    await w.run(() => alice.notices.find((n) => n.type === 'away'), 'alice to learn it');
    expect(w.host.players().find((p) => p.id === 1)).toMatchObject({ away: true });
  });

  it('a seeded run repeats exactly: the same trace to the millisecond; another seed moves the timings', async () => {
    const scenario = async (seed: number) => {
      const w = world({ seed, link: { latencyMs: 5, jitterMs: 20 } });
      const alice = await w.join('alice', '10.0.1.1');
      const bob = await w.join('bob', '10.0.1.2');
      const carol = await w.join('carol', '10.0.1.3');
      for (let i = 0; i < 10; i++) {
        [alice, bob, carol][i % 3]!.player.chat(`line ${i}`);
        await advanceBy(w.clock, w.net, 7);
      }
      await advanceBy(w.clock, w.net, 3000);
      w.net.cut(w.net.links().find((l) => l.client.localAddress === '10.0.1.2')!.client);
      await advanceBy(w.clock, w.net, 2000);
      return w.trace;
    };
    const first = await scenario(99);
    const again = await scenario(99);
    const other = await scenario(100);
    expect(first.length).toBeGreaterThan(50);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});
