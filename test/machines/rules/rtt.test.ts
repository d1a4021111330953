// RTT smoothing and clock offsets (spec "Ping and round-trip time", "Latency stamps").
import { describe, expect, it } from 'vitest';
import { clockOffset, createRtt, MAX_CLOCK_OFFSET_MS, MAX_UNANSWERED_PINGS, oneDecimal, pingSent, pongReceived } from '../../../machines/rules/rtt.ts';
import { validatePayload } from '../../../protocol/messages/index.ts';

describe('rtt rules', () => {
  it('first sample sets the value, each later one moves it a quarter of the way', () => {
    let s = createRtt(0);
    let sent = pingSent(s, 0);
    let r = pongReceived(sent.state, sent.n, 100);
    expect(r.accepted && r.state.smoothed).toBe(100);
    sent = pingSent(r.state, 1000);
    r = pongReceived(sent.state, sent.n, 1020);
    expect(r.accepted && r.state.smoothed).toBe(100 + (20 - 100) / 4);
  });

  it.each([1e308, -1e308, 0, -1, Number.MAX_SAFE_INTEGER, 2 ** 53 * 1e10])(
    'measures the round trip of a Pong with wall clock %d but takes no offset from it; the next Ping stays valid',
    (w) => {
      const hostWall = 1_790_000_000_000;
      const sent = pingSent(createRtt(0), 0);
      const r = pongReceived(sent.state, sent.n, 40, w, hostWall);
      expect(r.accepted && r.rtt).toBe(40);
      expect(clockOffset(r.state)).toBeUndefined();
      const off = clockOffset(r.state);
      const ping = { n: 2, rtt: { 0: 0, 1: oneDecimal(r.state.smoothed!) }, ...(off === undefined ? {} : { off: { 1: off } }) };
      expect(validatePayload('Ping', ping).ok).toBe(true);
    },
  );

  it('takes the offset of a clock that is days off, up to ten years', () => {
    const hostWall = 1_790_000_000_000;
    const sent = pingSent(createRtt(0), 0);
    const threeDays = 3 * 24 * 3600 * 1000;
    const r = pongReceived(sent.state, sent.n, 40, hostWall + 20 + threeDays, hostWall);
    expect(clockOffset(r.state)).toBe(threeDays);
    const far = pongReceived(pingSent(createRtt(0), 0).state, 1, 40, hostWall + 20 + MAX_CLOCK_OFFSET_MS + 1, hostWall);
    expect(clockOffset(far.state)).toBeUndefined();
  });

  it('ignores a Pong that was never sent or already answered', () => {
    const sent = pingSent(createRtt(0), 0);
    expect(pongReceived(sent.state, 99, 10).accepted).toBe(false);
    const r = pongReceived(sent.state, sent.n, 10);
    expect(pongReceived(r.state, sent.n, 20).accepted).toBe(false);
  });

  it('keeps at most 8 unanswered pings and forgets older ones once a later one is answered', () => {
    let s = createRtt(0);
    const ns: number[] = [];
    for (let i = 0; i < 10; i++) {
      const sent = pingSent(s, i);
      s = sent.state;
      ns.push(sent.n);
    }
    expect(s.pending.size).toBe(MAX_UNANSWERED_PINGS);
    expect(s.pending.has(1)).toBe(false);
    const r = pongReceived(s, 6, 20);
    expect([...r.state.pending.keys()]).toEqual([7, 8, 9, 10]);
  });

  it('takes the offset of the tightest of the last eight round trips (midpoint rule)', () => {
    let s = createRtt(0);
    // the player's clock runs 500 ms ahead; the tight sample (rtt 10) gives the best estimate
    for (const [sentAt, rtt, skew] of [[0, 200, 80], [1000, 10, 0], [2000, 300, -100]] as const) {
      const sent = pingSent(s, sentAt);
      const wall = 1_000_000 + sentAt + 500 + rtt / 2 + skew;
      s = pongReceived(sent.state, sent.n, sentAt + rtt, wall, 1_000_000 + sentAt).state;
    }
    expect(clockOffset(s)).toBe(500);
    expect(oneDecimal(1.26)).toBe(1.3);
  });
});
