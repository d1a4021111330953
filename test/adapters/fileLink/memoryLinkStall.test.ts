// The in-memory link loses no line for its game, as the file one (linkStall.test.ts): a failed append to
// to_game.log is kept and retried on the simulated clock, reported as stalled with its reason, written in order once
// appends work again; the backlog is bounded. The failures come through the MemoryFs's fault hook (whole, or half a
// write then ENOSPC); nothing waits for real time.
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedClock, type ManualClock } from '../../../adapters/clock.ts';
import { LinkSendError, type GameLink, type LinkNotice } from '../../../adapters/fileLink/gameLink.ts';
import { fsError, MemoryFs } from '../../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameLink, type MemoryGameLinkOptions } from '../../../adapters/fileLink/memoryLink.ts';
import { seededRandom } from '../../../adapters/transport/memorySocket.ts';
import { settle } from '../../../adapters/transport/memoryDriver.ts';

const player = { name: 'Bob', id: 2, role: 'player' } as const;
const line = (i: number) => `Action\t{"i":${i}}\n`;

/** A MemoryFs whose to_game.log appends follow `mode`: ok, fail (nothing written), half (half written, then fail). */
function faultyFs() {
  const fs = new MemoryFs();
  const state = { fs, mode: 'ok' as 'ok' | 'fail' | 'half', writes: 0, failures: 0 };
  fs.fault = (op) => {
    if (op !== 'append') return undefined;
    state.writes++;
    if (state.mode === 'ok') return undefined;
    state.failures++;
    const error = fsError('ENOSPC', 'write', '/s/to_game.log');
    return state.mode === 'half' ? { error, partial: 'half' } : error;
  };
  return state;
}

async function openLink(fs: MemoryFs, dir: string, options: MemoryGameLinkOptions) {
  const link: GameLink = await openMemoryGameLink(fs, dir, player, options);
  const notices: LinkNotice[] = [];
  link.notices.subscribe((n) => notices.push(n));
  return { link, notices };
}

/** Lets the appends (promise chains on a microtask each) run to the end. */
async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await settle();
}

describe('to_game.log appends that fail, in memory', () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = createSimulatedClock();
  });

  it('keeps the lines, retries on the clock, reports stalled with the reason, then writes all in order', async () => {
    const faults = faultyFs();
    const { link, notices } = await openLink(faults.fs, '/s', { clock });
    const toGame = () => faults.fs.readText('/s/to_game.log');
    await link.send('Action', { i: 1 });
    expect(link.status()).toMatchObject({ state: 'open', pendingLines: 0, writtenLines: 1 });

    faults.mode = 'half';
    const results: Promise<void>[] = [];
    results.push(link.send('Action', { i: 2 }));
    results.push(link.sendBatch([{ kind: 'Action', payload: { i: 3 } }, { kind: 'Action', payload: { i: 4 } }]));
    await flush();
    expect(link.status().state).toBe('stalled');
    expect(notices).toEqual([expect.objectContaining({ type: 'link.stalled', file: 'to_game.log', attempts: 1, pendingLines: 3 })]);
    expect((notices[0] as { reason: string }).reason).toMatch(/ENOSPC/);
    expect(link.status()).toMatchObject({ state: 'stalled', pendingLines: 3, failedAttempts: 1, stalledSince: 0 });
    expect(toGame()).toBe(line(1)); // the torn half was cut

    await flush();
    expect(faults.writes).toBe(2);
    clock.increment(49);
    await flush();
    expect(faults.writes).toBe(2);
    clock.increment(1); // the first pause is 50 ms
    await flush();
    expect(link.status().failedAttempts).toBe(2);
    expect(toGame()).toBe(line(1));

    for (let i = 5; i <= 104; i++) results.push(link.send('Action', { i }));
    faults.mode = 'fail';
    clock.increment(100);
    await flush();
    expect(link.status()).toMatchObject({ state: 'stalled', pendingLines: 103, failedAttempts: 3 });
    expect(notices.filter((n) => n.type === 'link.stalled')).toHaveLength(1);

    faults.mode = 'ok';
    clock.increment(200);
    await Promise.all(results);
    expect(toGame()).toBe(Array.from({ length: 104 }, (_, i) => line(i + 1)).join(''));
    expect(link.status()).toMatchObject({ state: 'open', pendingLines: 0, failedAttempts: 0, writtenLines: 104 });
    expect(notices.at(-1)).toEqual({ type: 'link.recovered', file: 'to_game.log', attempts: 3, stalledMs: 350, lines: 103 });
    expect(link.toGamePosition().offset).toBe(Buffer.byteLength(toGame()!));
    await link.close();
  });

  it('backs off up to retryMaxMs and reports a long stall again every stallReportMs', async () => {
    const faults = faultyFs();
    const { link, notices } = await openLink(faults.fs, '/s', {
      clock,
      sendLimits: { retryFirstMs: 10, retryMaxMs: 80, stallReportMs: 1000 },
    });
    faults.mode = 'fail';
    const sent = link.send('Action', { i: 1 });
    await flush();
    expect(link.status().failedAttempts).toBe(1);
    for (const [k, ms] of [10, 20, 40, 80, 80, 80].entries()) {
      clock.increment(ms - 1);
      await flush();
      expect(link.status().failedAttempts).toBe(k + 1);
      clock.increment(1);
      await flush();
      expect(link.status().failedAttempts).toBe(k + 2);
    }
    while (clock.now() < 2100) {
      clock.increment(80);
      await flush();
    }
    expect(notices.filter((n) => n.type === 'link.stalled')).toHaveLength(3);
    faults.mode = 'ok';
    clock.increment(80);
    await sent;
    expect(faults.fs.readText('/s/to_game.log')).toBe(line(1));
    await link.close();
  });

  it('fails the link with a reason when the backlog goes over its bound, in lines or bytes', async () => {
    const faults = faultyFs();
    const { link, notices } = await openLink(faults.fs, '/s', { clock, sendLimits: { maxPendingLines: 10 } });
    faults.mode = 'fail';
    const kept = Array.from({ length: 10 }, (_, i) => link.send('Action', { i }).then(() => 'written', (e: unknown) => e));
    await flush();
    await expect(link.send('Action', { i: 10 })).rejects.toBeInstanceOf(LinkSendError);
    for (const outcome of await Promise.all(kept)) expect(outcome).toMatchObject({ name: 'LinkSendError', code: 'failed' });
    const failed = notices.find((n) => n.type === 'link.failed');
    expect(failed).toMatchObject({ type: 'link.failed', lostLines: 10 });
    expect((failed as { reason: string }).reason).toMatch(/to_game.log backlog over 10 lines .*ENOSPC/);
    await expect(link.send('Action', { i: 11 })).rejects.toMatchObject({ code: 'failed' });
    await link.close();

    const bytes = faultyFs();
    const second = await openLink(bytes.fs, '/s', { clock, sendLimits: { maxPendingBytes: 1000 } });
    bytes.mode = 'fail';
    const first = second.link.send('Chat', { text: 'x'.repeat(500) }).then(() => 'written', (e: unknown) => e);
    await flush();
    await expect(second.link.send('Chat', { text: 'y'.repeat(500) })).rejects.toMatchObject({ code: 'failed' });
    expect(await first).toMatchObject({ code: 'failed' });
    expect(second.notices.map((n) => n.type)).toEqual(['link.stalled', 'link.failed']);
    await second.link.close();
  });

  it('close while stalled makes one last attempt, then rejects what is left; a disk that came back gets it all', async () => {
    const faults = faultyFs();
    const { link, notices } = await openLink(faults.fs, '/s', { clock });
    faults.mode = 'fail';
    const outcomes = [link.send('Action', { i: 1 }), link.send('Action', { i: 2 })].map((p) => p.then(() => 'written', (e: unknown) => e));
    await flush();
    await link.close();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toMatchObject({ name: 'LinkSendError', code: 'closed' });
    expect(notices.at(-1)).toMatchObject({ type: 'link.closed', lostLines: 2 });
    expect(faults.writes).toBe(2);

    const back = faultyFs();
    const second = await openLink(back.fs, '/s', { clock });
    back.mode = 'fail';
    const sends = [second.link.send('Action', { i: 1 }), second.link.send('Action', { i: 2 })];
    await flush();
    back.mode = 'ok';
    await second.link.close();
    await Promise.all(sends);
    expect(back.fs.readText('/s/to_game.log')).toBe(line(1) + line(2));
  });

  it('random failures under a stream of sends: every line once, in order (seeded)', async () => {
    const seed = 20261018;
    const random = seededRandom(seed);
    const faults = faultyFs();
    const { link } = await openLink(faults.fs, '/s', { clock });
    const sends: Promise<void>[] = [];
    let i = 0;
    for (let round = 0; round < 60; round++) {
      const r = random();
      faults.mode = r < 0.2 ? 'fail' : r < 0.35 ? 'half' : 'ok';
      const n = 1 + Math.floor(random() * 8);
      for (let k = 0; k < n; k++) sends.push(link.send('Action', { i: ++i }));
      await flush();
      clock.increment(2000);
      await flush();
    }
    faults.mode = 'ok';
    for (let k = 0; k < 1000 && link.status().pendingLines > 0; k++) {
      clock.increment(2000);
      await flush();
    }
    await Promise.all(sends);
    expect(faults.fs.readText('/s/to_game.log'), `seed ${seed}`).toBe(Array.from({ length: i }, (_, k) => line(k + 1)).join(''));
    expect(faults.failures, `seed ${seed}`).toBeGreaterThan(0);
    await link.close();
  });
});
