// RTT smoothing and clock offsets (spec "Ping and round-trip time", "Latency stamps").
import { describe, expect, it } from 'vitest';
import { clockOffset, createRtt, MAX_UNANSWERED_PINGS, oneDecimal, pingSent, pongReceived } from '../../../machines/rules/rtt.ts';

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
