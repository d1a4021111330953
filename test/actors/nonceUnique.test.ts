// No (key, nonce) pair is ever sealed twice (reliability-tests.md C9; issue 12 item 5): a scripted session on the
// in-memory network — a host and 7 players chatting, two drops with resumes, a kick and a rejoin, pings all along —
// with every seal of every party counted through the crypto port. The host's sender 0 keeps one counter across every
// connection, and a returner's counter goes on where it stopped: R7 drops and resumes one PlayerSession 20 times.
import { describe, expect, it } from 'vitest';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import type { Connection } from '../../actors/ports.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { advanceBy, runUntil } from '../../adapters/transport/memoryDriver.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY } from '../support/session.ts';

/** nodeCrypto, with every sealed (key, nonce) written down in order. */
function countingCrypto(seals: string[]): Crypto {
  const counting = Object.create(nodeCrypto) as Crypto;
  counting.aesGcm = (key) => {
    const inner = nodeCrypto.aesGcm(key);
    const keyHex = Buffer.from(key).toString('hex').slice(0, 16);
    return {
      sealInto: (nonce, aad, plaintext, out, offset) => {
        seals.push(`${keyHex}:${Buffer.from(nonce).toString('hex')}`);
        return inner.sealInto(nonce, aad, plaintext, out, offset);
      },
      open: (nonce, aad, sealed) => inner.open(nonce, aad, sealed),
    };
  };
  return counting;
}

/** Counters (nonce = u32 sender ‖ u64 counter) of `sender`'s seals, in the order they were sealed. */
const countersOf = (seals: readonly string[], sender: number): bigint[] => {
  const prefix = sender.toString(16).padStart(8, '0');
  return seals.map((s) => s.split(':')[1]!).filter((n) => n.startsWith(prefix)).map((n) => BigInt(`0x${n.slice(8)}`));
};

/** A host and its players on the memory network, every seal written down: the scripts below drive it. */
function scriptedSession() {
  const seals: string[] = [];
  const crypto = countingCrypto(seals);
  const clock = createSimulatedClock();
  const network = createMemoryNetwork({ clock, seed: 9 });
  const listener = network.listen('127.0.0.1:0');
  const host = new HostSession({ hostName: 'host', key: KEY }, { crypto, clock, wallClock: () => clock.now(), log: () => {} });
  const hostConns: Connection[] = [];
  host.attach({
    host: listener.host,
    port: listener.port,
    close: (reason) => listener.close(reason),
    onConnection: (handler) => listener.onConnection((conn) => (hostConns.push(conn), handler(conn))),
  });
  const until = <T>(probe: () => T | undefined | false, what: string) => runUntil(clock, network, probe, { maxMs: 30_000, what });
  const dial = (): Promise<Connection> => until(() => settledValue(pending), 'a connection');
  let pending: Promise<Connection>;
  const players: { session: PlayerSession; notices: PlayerNotice[] }[] = [];
  const join = async (name: string) => {
    pending = network.connect({ host: listener.host, port: listener.port });
    const conn = await dial();
    const session = new PlayerSession({ name, key: KEY }, { crypto, clock, wallClock: () => clock.now(), log: () => {} });
    const notices: PlayerNotice[] = [];
    session.on((n) => notices.push(n));
    session.connect(conn);
    await until(() => session.joined, `${name} joined`);
    players.push({ session, notices });
    return players[players.length - 1]!;
  };
  const talk = async (rounds: number) => {
    for (let r = 0; r < rounds; r++) {
      for (const p of players) p.session.chat(`line ${r}`);
      host.chat(`host ${r}`);
      await advanceBy(clock, network, 100);
    }
  };
  const dropAndResume = async (index: number) => {
    const p = players[index]!;
    const resumedBefore = p.notices.filter((n) => n.type === 'resumed').length;
    const conn = hostConns.find((c) => c.closeReason === undefined && host.connectionOf(p.session.you!)?.id === c.id)!;
    conn.close('reset');
    await until(() => p.session.resumable, 'away');
    p.session.chat('while away');
    await talk(3);
    pending = network.connect({ host: listener.host, port: listener.port });
    p.session.reconnect(await dial());
    await until(() => p.notices.filter((n) => n.type === 'resumed').length > resumedBefore, 'resumed');
  };
  const stop = async () => {
    host.stop('test over');
    await listener.close('test over');
  };
  return { seals, host, players, until, join, talk, dropAndResume, stop };
}

describe('no nonce sealed twice', () => {
  it('C9: drops, resumes, a kick and a rejoin in one session: every (key, nonce) once; sender 0 strictly increasing', async () => {
    const { seals, host, players, until, join, talk, dropAndResume, stop } = scriptedSession();
    for (let i = 1; i <= 7; i++) await join(`p${i}`);
    await talk(100);
    await dropAndResume(0);
    await talk(80);
    await dropAndResume(1);
    await talk(80);
    const kicked = players[2]!;
    host.kick(kicked.session.you!, 'kicked');
    await until(() => kicked.notices.some((n) => n.type === 'ended'), 'kicked');
    players.splice(2, 1);
    const rejoined = await join('p3');
    expect(rejoined.session.you).toBe(8); // a new id: a new sender
    await talk(100);
    expect(players.filter((p) => p.notices.some((n) => n.type === 'resumed'))).toHaveLength(2);

    const distinct = new Set(seals);
    expect(seals.length).toBeGreaterThan(5_000);
    expect(distinct.size).toBe(seals.length);
    // The host's sender 0: one counter, strictly increasing across every connection (nonce = u32 0 ‖ u64 counter).
    const hostCounters = countersOf(seals, 0);
    expect(hostCounters.length).toBeGreaterThan(2_000);
    for (let i = 1; i < hostCounters.length; i++) expect(hostCounters[i]! > hostCounters[i - 1]!).toBe(true);
    await stop();
  });

  it('R7: a player dropped and resumed 20 times goes on counting: every first counter after a resume is above the last before', async () => {
    const { seals, players, join, talk, dropAndResume, stop } = scriptedSession();
    await join('p1');
    await join('p2');
    const lastBefore: bigint[] = [];
    const firstAfter: number[] = [];
    for (let i = 0; i < 20; i++) {
      await talk(2);
      lastBefore.push(countersOf(seals, 1).at(-1)!);
      const sealedBefore = countersOf(seals, 1).length;
      await dropAndResume(0);
      firstAfter.push(sealedBefore);
    }
    await talk(2);
    const counters = countersOf(seals, 1);
    expect(players[0]!.notices.filter((n) => n.type === 'resumed')).toHaveLength(20);
    for (let i = 1; i < counters.length; i++) expect(counters[i]! > counters[i - 1]!).toBe(true);
    for (let i = 0; i < 20; i++) expect(counters[firstAfter[i]!]! > lastBefore[i]!).toBe(true);
    expect(new Set(seals).size).toBe(seals.length);
    await stop();
  });
});
