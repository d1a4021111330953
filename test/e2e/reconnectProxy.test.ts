// End to end over the TCP fault proxy (issue 12 item 5, last point): a HostSession and a PlayerSession over real TCP
// on 127.0.0.1, the player's connection through adapters/transport/faultProxy.ts, cut at seeded random points — at
// once (RST both ways) or after a random number of bytes more in one direction, so inside a frame — while chat and
// actions flow both ways. The launcher's reconnect loop (adapters/launcher/reconnect.ts, real clock) brings it back
// every time: the same id, Welcome resumed, and every message the sessions accepted arrives exactly once, in order
// (counted at the host for the player's, at the player for the host's). The second test cuts inside the resume
// handshake itself (the host's Challenge or its resumed Welcome lost): the next attempt must still resume.
import { afterEach, describe, expect, it } from 'vitest';
import type { Connection } from '../../actors/ports.ts';
import type { PlayerNotice } from '../../actors/player/playerSession.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import { realClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { ReconnectLoop } from '../../adapters/launcher/reconnect.ts';
import { startFaultProxy, type FaultProxy } from '../../adapters/transport/faultProxy.ts';
import { connectTcp } from '../../adapters/transport/tcp.ts';
import { seededRandom } from '../support/random.ts';
import { KEY, startHost, waitFor, type LogEntry, type TestHost } from '../support/session.ts';

const CUTS = 50;

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Host, proxy, player with its reconnect loop, and traffic both ways: what each side accepted and what arrived. */
async function session(seed: number, windowMs = 30_000) {
  const random = seededRandom(seed);
  const h: TestHost = await startHost({}, { realClock: true });
  cleanups.push(() => h.close());
  const proxy: FaultProxy = await startFaultProxy({ target: { host: '127.0.0.1', port: h.port }, seed });
  cleanups.push(() => proxy.close());

  const logs: LogEntry[] = [];
  const log = (e: LogEntry) => void logs.push(e);
  const connect = async (): Promise<Connection | undefined> => {
    try {
      return await connectTcp({ host: proxy.host, port: proxy.port, clock: realClock, log });
    } catch {
      return undefined;
    }
  };
  const player = new PlayerSession({ name: 'Ada', key: KEY }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
  const notices: PlayerNotice[] = [];
  player.on((n) => notices.push(n));
  // Brisk backoff so 50 cuts fit the time budget: 20 ms first, 200 ms at most.
  const loop = new ReconnectLoop({ player, connect, clock: realClock, random, log, firstDelayMs: 20, maxDelayMs: 200, windowMs });
  cleanups.push(() => loop.stop());
  cleanups.push(() => {
    if (player.joined) player.leave();
  });
  const first = await connect();
  if (!first) throw new Error('no connection through the proxy');
  player.connect(first);
  const welcomed = await waitFor(() => notices.find((n) => n.type === 'welcomed'), 5000, 'the first Welcome');
  const you = (welcomed as { you: number }).you;

  // What arrives: the player's chat and actions at the host, the host's chat at the player.
  const atHost: string[] = [];
  h.host.on((n) => {
    if (n.type === 'chat' && n.from === you) atHost.push(n.text);
    if (n.type === 'game' && n.from === you && n.message.kind === 'Action') atHost.push(`a${n.message.payload.seq}`);
  });
  const atPlayer = () => notices.flatMap((n) => (n.type === 'chat' && n.from === 0 ? [n.text] : []));

  // What the sessions accepted (send → true), in order.
  const sentByPlayer: string[] = [];
  const sentByHost: string[] = [];
  let n = 0;
  let m = 0;
  const pump = setInterval(() => {
    for (let k = 0; k < 2; k++) {
      n++;
      if (n % 2 === 0) {
        if (player.send('Action', { stamp: 1000 + n, seq: n, body: { type: 'test', n } })) sentByPlayer.push(`a${n}`);
      } else if (player.chat(`p${n}`)) sentByPlayer.push(`p${n}`);
    }
    m++;
    if (h.host.players().some((p) => p.id === you && !p.away)) {
      h.host.chat(`h${m}`);
      sentByHost.push(`h${m}`);
    }
  }, 10); // ~200 frames a second from the player: a resume's resend stays inside the host's 1000 a second
  cleanups.push(() => clearInterval(pump));

  const resumedIds: number[] = [];
  player.on((x) => {
    if (x.type === 'resumed') resumedIds.push(x.you);
  });

  /** Waits for the resume after a cut, and for the host to show the player back. */
  const back = async (resumesBefore: number, what: string) => {
    const dump = (e: unknown) => {
      console.log(JSON.stringify(loop.status()), JSON.stringify(h.host.players()));
      console.log(logs.slice(-20).map((l) => JSON.stringify(l)).join('\n'));
      console.log(h.logs.slice(-20).map((l) => JSON.stringify(l)).join('\n'));
      throw e;
    };
    await waitFor(() => loop.status().resumes > resumesBefore && !player.resumable, 8000, `resume ${what}`).catch(dump);
    await waitFor(() => h.host.players().some((p) => p.id === you && !p.away), 3000, `the host to see ${you} back ${what}`).catch(dump);
  };

  /** The end: the traffic stops, everything accepted arrived once, in order; every return a resume of the same id. */
  const settle = async () => {
    clearInterval(pump);
    await waitFor(() => atHost.length >= sentByPlayer.length && atPlayer().length >= sentByHost.length, 8000, 'the last messages');
    await new Promise((r) => setTimeout(r, 100)); // nothing more (a duplicate) comes after
    expect(atHost).toEqual(sentByPlayer);
    expect(atPlayer()).toEqual(sentByHost);
    expect(resumedIds.every((id) => id === you)).toBe(true);
    expect(notices.filter((x) => x.type === 'welcomed')).toHaveLength(1); // never a plain join with a new id
    expect(notices.some((x) => x.type === 'ended')).toBe(false);
    expect(h.notices.filter((x) => x.type === 'joined' && x.id !== you)).toEqual([]);
    expect(sentByPlayer.length).toBeGreaterThan(200);
  };

  return { random, h, proxy, player, loop, you, notices, resumedIds, back, settle };
}

describe('reconnect through the TCP fault proxy', () => {
  it(`a player cut ${CUTS} times at random points (mid-frame included) resumes every time; nothing lost, doubled or reordered`, async () => {
    const s = await session(12);
    let midFrame = 0;
    for (let cut = 0; cut < CUTS; cut++) {
      await new Promise((r) => setTimeout(r, 30 + Math.floor(s.random() * 120)));
      const resumes = s.loop.status().resumes;
      if (s.random() < 0.5) {
        expect(s.proxy.cutAll()).toBe(1);
      } else {
        midFrame++;
        expect(s.proxy.cutAfter(Math.floor(s.random() * 400), s.random() < 0.5 ? 'upstream' : 'downstream')).toBe(1);
      }
      await s.back(resumes, `after cut ${cut + 1}`);
    }
    await s.settle();
    const status = s.loop.status();
    expect(status.drops).toBe(CUTS);
    expect(status.resumes).toBe(CUTS);
    expect(status.attempts).toBe(CUTS); // each cut came back at the first attempt
    expect(s.resumedIds).toHaveLength(CUTS);
    // the host saw the same: every return caught up (a resumed Welcome, no `player returned` reload)
    expect(s.h.notices.filter((x) => x.type === 'returned' && x.id === s.you).length).toBe(CUTS);
    expect(midFrame).toBeGreaterThan(10);
  }, 60_000);

  it('a cut inside the resume handshake (the Challenge or the resumed Welcome lost) fails that attempt; the next one resumes', async () => {
    const s = await session(5);
    const RETURNS = 10;
    let failed = 0;
    s.loop.on((e) => {
      if (e.type === 'failed') {
        failed++;
        s.proxy.setToxics('downstream', []); // only the first attempt after the cut is cut short
      }
    });
    for (let i = 0; i < RETURNS; i++) {
      await new Promise((r) => setTimeout(r, 30 + Math.floor(s.random() * 120)));
      const resumes = s.loop.status().resumes;
      // The next connection passes 10..200 bytes from the host, then closes: inside the Challenge or the Welcome.
      s.proxy.setToxics('downstream', [{ type: 'limit_data', bytes: 10 + Math.floor(s.random() * 190) }]);
      expect(s.proxy.cutAll()).toBe(1);
      await s.back(resumes, `after handshake cut ${i + 1}`);
    }
    await s.settle();
    expect(failed).toBe(RETURNS);
    expect(s.loop.status()).toMatchObject({ drops: RETURNS, resumes: RETURNS, attempts: 2 * RETURNS });
  }, 60_000);

  it('a host that stays unreachable: attempts until the window ends, then the session ends (gave up)', async () => {
    const s = await session(9, 1500);
    await s.proxy.close(); // the connection cut and nothing listens any more: every attempt is refused
    await waitFor(() => s.notices.find((x) => x.type === 'ended'), 5000, 'the end');
    expect(s.notices.find((x) => x.type === 'ended')).toMatchObject({ reason: 'reconnect window ended' });
    const status = s.loop.status();
    expect(status).toMatchObject({ state: 'gaveUp', drops: 1, resumes: 0 });
    // 20, 40, 80, 160, 200, 200, … ms apart (jittered) within 1.5 s
    expect(status.attempts).toBeGreaterThanOrEqual(5);
    expect(s.player.resumable).toBe(false);
  }, 20_000);
});
