// Hostile joiners over real TCP (reliability-tests §7.3 H2, H3, §7.4 L3, L10; spec "Handshake"): a silent
// socket and a drip of bytes meet the join deadline (activity never extends it), a replayed Join and proofs of
// the wrong length are refused with a reason, never an exception; the well-behaved players keep relaying.
// The host's clock is simulated: the deadline fires on increment(), not by sleeping.
import { describe, expect, it } from 'vitest';
import { Kind } from '../../protocol/messages/index.ts';
import { unsealedFrame } from '../../actors/wire.ts';
import { RawClient, waitFor, type TestHost } from '../support/session.ts';
import {
  challengeOf,
  closedWith,
  goodPair,
  joinJson,
  openRaw,
  rawUnsealed,
  rejectOf,
  simClock,
  tcp,
  useHosts,
} from '../support/hostile.ts';

const pooledHost = useHosts();
const host = (deadline = 300): Promise<TestHost> => pooledHost({ joinDeadlineMs: deadline });
const tick = () => new Promise((r) => setTimeout(r, 10));

describe('the join deadline', () => {
  it('a silent socket gets Reject timeout at the deadline, not a millisecond before', async () => {
    const h = await host(300);
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    simClock(h).increment(299);
    await tick();
    expect(raw.reject()).toBeUndefined();
    expect(conn.closeReason).toBeUndefined();
    simClock(h).increment(1);
    expect(await rejectOf(raw)).toEqual({ reason: 'timeout' });
    expect(await closedWith(h, conn)).toBe('timeout');
    expect(h.logs.find((l) => l.msg === 'join rejected' && l.conn === conn.id)).toMatchObject({ reason: 'timeout' });
    await good.relays();
  });

  it('a drip of one byte per interval that never completes a Join does not extend the deadline', async () => {
    const h = await host(300);
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    const { nonce } = await challengeOf(raw);
    const join = rawUnsealed(Kind.Join, joinJson(nonce, 'drip')); // ~120 bytes: never completed below
    let sent = 0;
    for (let t = 0; t < 300; t += 50) {
      raw.write(join.subarray(sent, sent + 1));
      sent += 1;
      // The byte reached the host before its clock moves on: activity inside the deadline.
      await waitFor(() => tcp(conn).bufferedBytes === sent, 3000, `byte ${sent} at the host`);
      expect(raw.reject()).toBeUndefined();
      simClock(h).increment(50);
    }
    expect(sent).toBeLessThan(join.length);
    expect(await rejectOf(raw)).toEqual({ reason: 'timeout' });
    expect(await closedWith(h, conn)).toBe('timeout');
    await good.relays();
  });

  it('the deadline counts from the opening for each connection, and a good Join in time stops it', async () => {
    const h = await host(300);
    const good = await goodPair(h);
    const late = await openRaw(h);
    simClock(h).increment(200);
    const early = await openRaw(h);
    await early.raw.join('punctual');
    simClock(h).increment(100); // late's 300 ms are up; early joined
    expect(await rejectOf(late.raw)).toEqual({ reason: 'timeout' });
    simClock(h).increment(1000);
    await good.relays();
    expect(early.conn.closeReason).toBeUndefined();
    expect(h.host.players().map((p) => p.name)).toContain('punctual');
  });
});

describe('refused Joins', () => {
  it('a Join captured on connection A and replayed on B is bad-proof (B has a new nonce)', async () => {
    const h = await host(15_000);
    const good = await goodPair(h);
    const a = await openRaw(h);
    await a.raw.join('alice2');
    const captured = a.raw.joinBytes!;
    for (let i = 0; i < 10; i++) {
      const b = await openRaw(h);
      await challengeOf(b.raw);
      b.raw.write(captured);
      expect(await rejectOf(b.raw)).toEqual({ reason: 'bad-proof' });
      expect(await closedWith(h, b.conn)).toBe('bad-proof');
    }
    expect(a.conn.closeReason).toBeUndefined();
    expect(h.host.players().filter((p) => p.name.startsWith('alice2'))).toHaveLength(1);
    await good.relays();
  });

  it('a proof of 0, 31, 33 or 64 bytes or not base64 is malformed; 32 wrong bytes are bad-proof; never an exception', async () => {
    const h = await host(15_000);
    const good = await goodPair(h);
    const proofs: [string, unknown][] = [
      ['0 bytes', ''],
      ['31 bytes', Buffer.alloc(31, 7).toString('base64')],
      ['33 bytes', Buffer.alloc(33, 7).toString('base64')],
      ['64 bytes', Buffer.alloc(64, 7).toString('base64')],
      ['not base64', '!!!not base64!!!'],
      ['a number', 12345],
    ];
    for (const [what, proof] of proofs) {
      const { raw, conn } = await openRaw(h);
      await challengeOf(raw);
      raw.write(rawUnsealed(Kind.Join, JSON.stringify({ name: 'mallory', version: '0.1', proof })));
      const reject = await rejectOf(raw);
      expect(['bad-proof', 'malformed'], what).toContain(reject.reason);
      expect(reject.reason, what).toBe('malformed'); // the schema wants exactly 32 bytes
      expect(await closedWith(h, conn)).toBe('malformed');
    }
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    raw.write(unsealedFrame('Join', { name: 'mallory', version: '0.1', proof: new Uint8Array(32).fill(7) }));
    expect(await rejectOf(raw)).toEqual({ reason: 'bad-proof' });
    expect(await closedWith(h, conn)).toBe('bad-proof');
    await good.relays();
  });

  it('records the first close reason only: a Reject then the peer closing keeps bad-proof', async () => {
    const h = await host(15_000);
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    raw.write(unsealedFrame('Join', { name: 'x', version: '0.1', proof: new Uint8Array(32) }));
    raw.write(unsealedFrame('Join', { name: 'y', version: '0.1', proof: new Uint8Array(32) })); // after the Reject
    await rejectOf(raw);
    raw.destroy();
    expect(await closedWith(h, conn)).toBe('bad-proof');
    await waitFor(() => raw.closed);
    await good.relays();
  });

  it('a joined peer that closes its socket is recorded as peer-closed and its slot is held', async () => {
    const h = await host(15_000);
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('leaver');
    raw.socket.end();
    expect(await closedWith(h, conn)).toBe('peer-closed');
    const away = await waitFor(() => good.alice.games().find((m) => m.kind === 'PlayerLeft'));
    expect(away.payload).toEqual({ id: raw.you, name: 'leaver', away: true });
    await good.relays();
  });
});

describe('a raw client can still join after all this', () => {
  it('hostile connections leave the host able to welcome a new player', async () => {
    const h = await host(300);
    const good = await goodPair(h);
    const junk = await openRaw(h);
    junk.raw.write(new Uint8Array([0, 0, 0, 1]));
    await rejectOf(junk.raw);
    const silent = await openRaw(h);
    simClock(h).increment(300);
    await rejectOf(silent.raw);
    const late = await RawClient.open(h.port);
    await late.join('newcomer');
    expect(late.you).toBe(3);
    await good.relays();
  });
});
