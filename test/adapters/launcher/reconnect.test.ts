// The launcher's reconnect loop (adapters/launcher/reconnect.ts, issue 12 item 4) on a simulated clock: the backoff
// sequence, the window's end (giveUp), success stops the retries, and a second drop after a success starts again.
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../actors/ports.ts';
import { createSimulatedClock, type ManualClock } from '../../../adapters/clock.ts';
import {
  backoffDelay,
  formatLeft,
  RECONNECT_GAVE_UP,
  ReconnectLoop,
  reconnectStatusLine,
  type ReconnectNotice,
  type ReconnectTarget,
} from '../../../adapters/launcher/reconnect.ts';

/** A fake session: notices are emitted by the test; `reconnect` and `giveUp` are recorded. */
class FakePlayer implements ReconnectTarget {
  readonly listeners = new Set<(n: ReconnectNotice) => void>();
  readonly reconnects: Connection[] = [];
  readonly gaveUp: string[] = [];
  on(listener: (n: ReconnectNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(n: ReconnectNotice): void {
    for (const l of [...this.listeners]) l(n);
  }
  /** Each attempt fails before the Welcome (the session says away again at once). */
  failAttempts = false;
  reconnect(conn: Connection): void {
    this.reconnects.push(conn);
    if (this.failAttempts) this.emit({ type: 'away', reason: 'closed before the Welcome' });
  }
  giveUp(reason: string): void {
    this.gaveUp.push(reason);
    this.emit({ type: 'ended', reason: 'giveUp', detail: reason });
  }
}

function fakeConn(id: number): Connection & { closed?: string } {
  const conn = {
    id,
    remoteAddress: '127.0.0.1',
    addressKey: '127.0.0.1',
    closed: undefined as string | undefined,
    onFrame: () => {},
    onViolation: () => {},
    onClose: () => {},
    write: () => {},
    markJoined: () => {},
    close(reason: string) {
      conn.closed ??= reason;
    },
    get closeReason() {
      return conn.closed;
    },
  };
  return conn;
}

/** Lets the loop's awaited connect() settle. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

function setup(o: { reachable?: () => boolean; windowMs?: number; random?: () => number } = {}) {
  const clock: ManualClock = createSimulatedClock();
  const player = new FakePlayer();
  const logs: { msg: string; [k: string]: unknown }[] = [];
  const connectTimes: number[] = [];
  let next = 1;
  const loop = new ReconnectLoop({
    player,
    clock,
    random: o.random ?? (() => 0.5),
    log: (e) => logs.push(e),
    ...(o.windowMs === undefined ? {} : { windowMs: o.windowMs }),
    connect: async () => {
      connectTimes.push(clock.now());
      return (o.reachable ?? (() => true))() ? fakeConn(next++) : undefined;
    },
  });
  /** Moves the clock by ms in 50 ms steps, letting each attempt's connect settle. */
  const advance = async (ms: number) => {
    for (let done = 0; done < ms; done += 50) {
      clock.increment(Math.min(50, ms - done));
      await settle();
    }
  };
  return { clock, player, logs, connectTimes, loop, advance };
}

describe('reconnect loop', () => {
  it('backs off 0.25, 0.5, 1, 2, 4, then 5 s capped, with jitter from the injected random', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((a) => backoffDelay(a, mid))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    // jitter: ×0.75 .. ×1.25, never past the cap
    expect(backoffDelay(1, () => 0)).toBe(188);
    expect(backoffDelay(3, () => 0.999)).toBe(1250);
    expect(backoffDelay(5, () => 0.999)).toBe(4998);
    expect(backoffDelay(6, () => 0.999)).toBe(5000);
    expect(backoffDelay(9, () => 0)).toBe(3750);
  });

  it('retries each failed attempt on that schedule (the attempts fail before the Welcome)', async () => {
    const { player, clock, connectTimes, advance, loop } = setup();
    player.failAttempts = true; // each new connection closes before the Welcome: away again at once
    player.emit({ type: 'away', reason: 'connection reset' });
    expect(loop.status()).toMatchObject({ state: 'waiting', attempt: 1, nextInMs: 250, leftMs: 300_000, drops: 1 });
    expect(loop.statusLine()).toBe('reconnecting: attempt 1, next in 1 s, 5:00 left');
    await advance(40_000);
    const gaps = connectTimes.map((t, i) => t - (i === 0 ? 0 : connectTimes[i - 1]!));
    expect(gaps).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000, 5000, 5000]);
    expect(player.reconnects).toHaveLength(11);
    expect(loop.status()).toMatchObject({ state: 'waiting', attempt: 12, attempts: 11, drops: 1, resumes: 0 });
    expect(clock.now()).toBe(40_000);
  });

  it('retries on a schedule when no endpoint is reached, logs each attempt, and gives up when the window ends', async () => {
    const { player, connectTimes, advance, logs, loop } = setup({ reachable: () => false, windowMs: 30_000 });
    player.emit({ type: 'away', reason: 'connection reset' });
    await advance(29_950);
    // 0.25, 0.75, 1.75, 3.75, 7.75, 12.75, 17.75, 22.75, 27.75
    expect(connectTimes).toEqual([250, 750, 1750, 3750, 7750, 12750, 17750, 22750, 27750]);
    expect(player.gaveUp).toEqual([]);
    expect(loop.statusLine()).toBe('reconnecting: attempt 10, next in 3 s, 0:01 left');
    await advance(100);
    expect(player.gaveUp).toEqual([RECONNECT_GAVE_UP]);
    expect(loop.status().state).toBe('gaveUp');
    expect(logs.filter((l) => l.msg === 'reconnecting')).toHaveLength(9);
    expect(logs.filter((l) => l.msg === 'gave up')).toHaveLength(1);
    await advance(20_000);
    expect(connectTimes).toHaveLength(9); // nothing after the end
  });

  it('a Welcome stops the retries; a second drop after it starts again with a fresh window', async () => {
    const { player, connectTimes, advance, logs, loop, clock } = setup();
    player.emit({ type: 'welcomed', you: 3 }); // the session's first Welcome: nothing to do
    expect(loop.status().state).toBe('idle');
    player.emit({ type: 'away', reason: 'reset' });
    await advance(300); // attempt 1 at 250 ms
    expect(player.reconnects).toHaveLength(1);
    expect(loop.status().state).toBe('handshaking');
    player.emit({ type: 'away', reason: 'closed before the Welcome' });
    await advance(500); // attempt 2 at 750 ms
    expect(player.reconnects).toHaveLength(2);
    player.emit({ type: 'resumed', you: 3, caughtUp: true });
    expect(loop.status()).toMatchObject({ state: 'idle', drops: 1, resumes: 1, attempts: 2 });
    expect(loop.statusLine()).toBeUndefined();
    expect(logs.find((l) => l.msg === 'reconnected')).toMatchObject({ attempts: 2, resumed: true, caughtUp: true, you: 3 });
    await advance(400_000); // no more attempts, no give-up: the window ended with the episode
    expect(connectTimes).toHaveLength(2);
    expect(player.gaveUp).toEqual([]);

    // second drop: attempt 1 again after 0.25 s, the window counted from this drop
    const t0 = clock.now();
    player.emit({ type: 'away', reason: 'reset again' });
    expect(loop.status()).toMatchObject({ state: 'waiting', attempt: 1, leftMs: 300_000, drops: 2 });
    await advance(250);
    expect(connectTimes.at(-1)).toBe(t0 + 250);
    // a plain join (the host did not know us any more) also ends the episode, with the new id
    player.emit({ type: 'welcomed', you: 7 });
    expect(loop.status()).toMatchObject({ state: 'idle', drops: 2, resumes: 2 });
    expect(logs.filter((l) => l.msg === 'reconnected').at(-1)).toMatchObject({ resumed: false, you: 7 });
  });

  it('an end of the session (left, Kicked) stops the loop; a connection made after the end is closed', async () => {
    const clock = createSimulatedClock();
    const player = new FakePlayer();
    let release: (c: Connection) => void = () => {};
    const conn = fakeConn(9);
    const loop = new ReconnectLoop({
      player,
      clock,
      random: () => 0.5,
      log: () => {},
      connect: () => new Promise<Connection>((r) => (release = r)),
    });
    player.emit({ type: 'away', reason: 'reset' });
    clock.increment(250);
    expect(loop.status().state).toBe('connecting');
    player.emit({ type: 'ended', reason: 'left' });
    release(conn);
    await settle();
    expect(conn.closed).toBe('reconnect over');
    expect(player.reconnects).toHaveLength(0);
    expect(loop.status().state).toBe('ended');
  });

  it('formats the status line', () => {
    expect(formatLeft(291_000)).toBe('4:51');
    expect(formatLeft(0)).toBe('0:00');
    expect(reconnectStatusLine({ state: 'waiting', attempt: 3, nextInMs: 2000, leftMs: 291_000, drops: 1, resumes: 0, attempts: 2 })).toBe(
      'reconnecting: attempt 3, next in 2 s, 4:51 left',
    );
    expect(reconnectStatusLine({ state: 'idle', attempt: 0, drops: 0, resumes: 0, attempts: 0 })).toBeUndefined();
  });
});

