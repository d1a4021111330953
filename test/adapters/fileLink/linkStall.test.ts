// The launcher loses no line for its game: a failed append to to_game.log is kept and retried on the injected clock
// (no real sleeps drive it), reported as a stalled link with its reason, and written in order once appends work
// again; the backlog is bounded (over it the link fails with a reason); a session folder that cannot be opened
// rejects with a GameLinkOpenError. Real files in a temp session folder; the failing writes come through the
// line writer's append seam (root ignores chmod), as a real ENOSPC from /dev/full where the system has one.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedClock, type ManualClock } from '../../../adapters/clock.ts';
import {
  GameLinkOpenError,
  LinkSendError,
  openGameLink,
  type GameLink,
  type GameLinkOptions,
  type LinkNotice,
} from '../../../adapters/fileLink/gameLink.ts';
import { nodeAppendFs, type AppendFs } from '../../../adapters/fileLink/lineWriter.ts';
import { makeTempDir, removeTempDir, seededRandom, sleep, waitFor } from './helpers.ts';

let root: string;
const links: GameLink[] = [];
beforeEach(async () => {
  root = await makeTempDir('fl3-stall-');
});
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close().catch(() => undefined)));
  await removeTempDir(root);
});

const player = { name: 'Bob', id: 2, role: 'player' } as const;

/** A real ENOSPC from the kernel (/dev/full), or a made-up one where there is no /dev/full. */
async function diskFull(): Promise<Error> {
  if (existsSync('/dev/full')) {
    const full = await open('/dev/full', 'w');
    try {
      await full.write(Buffer.from('x'));
    } catch (error) {
      return error as Error;
    } finally {
      await full.close();
    }
  }
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** The real append file system with a switch: `ok`, `fail` (nothing written) or `half` (half written, then fail). */
function faultyFs(): { fs: AppendFs; mode: 'ok' | 'fail' | 'half'; writes: number; failures: number } {
  const state = {
    mode: 'ok' as 'ok' | 'fail' | 'half',
    writes: 0,
    failures: 0,
    fs: undefined as unknown as AppendFs,
  };
  state.fs = {
    async open(path, flags) {
      const real = await nodeAppendFs.open(path, flags);
      return {
        ...real,
        async write(buffer, offset, length, position) {
          state.writes++;
          if (state.mode === 'ok') return real.write(buffer, offset, length, position);
          state.failures++;
          if (state.mode === 'half') await real.write(buffer, offset, Math.max(1, Math.floor(length / 2)), null);
          throw await diskFull();
        },
      };
    },
  };
  return state;
}

async function openLink(dir: string, options: GameLinkOptions) {
  const link = await openGameLink(dir, player, { pollMs: 5, watch: false, ...options });
  links.push(link);
  const notices: LinkNotice[] = [];
  link.notices.subscribe((n) => notices.push(n));
  return { link, notices };
}

const line = (i: number) => `Action\t{"i":${i}}\n`;
const toGame = (dir: string) => readFileSync(join(dir, 'to_game.log'), 'utf8');

describe('to_game.log appends that fail', () => {
  let clock: ManualClock;
  beforeEach(() => {
    clock = createSimulatedClock();
  });

  it('keeps the lines, retries on the clock, reports stalled with the reason, then writes all in order', async () => {
    const dir = join(root, 's');
    const faults = faultyFs();
    const { link, notices } = await openLink(dir, { clock, appendFs: faults.fs });
    await link.send('Action', { i: 1 });
    expect(link.status()).toMatchObject({ state: 'open', pendingLines: 0, writtenLines: 1 });

    faults.mode = 'half'; // disk full half-way through the write: the torn half is cut
    const results: Promise<void>[] = [];
    results.push(link.send('Action', { i: 2 }));
    results.push(link.sendBatch([{ kind: 'Action', payload: { i: 3 } }, { kind: 'Action', payload: { i: 4 } }]));
    await waitFor(() => link.status().state === 'stalled', 'the stall');
    expect(notices).toEqual([expect.objectContaining({ type: 'link.stalled', file: 'to_game.log', attempts: 1, pendingLines: 3 })]);
    const stalled = notices[0] as Extract<LinkNotice, { type: 'link.stalled' }>;
    expect(stalled.reason).toMatch(/ENOSPC/);
    expect(link.status()).toMatchObject({ state: 'stalled', pendingLines: 3, failedAttempts: 1, stalledSince: 0 });
    expect(link.status().reason).toMatch(/ENOSPC/);
    expect(toGame(dir)).toBe(line(1));

    // No real time drives the retries: nothing happens until the clock moves.
    await sleep(60);
    expect(faults.writes).toBe(2);
    clock.increment(49);
    await sleep(10);
    expect(faults.writes).toBe(2);
    clock.increment(1); // the first pause is 50 ms
    await waitFor(() => link.status().failedAttempts === 2, 'the second attempt');
    expect(toGame(dir)).toBe(line(1));

    // More lines while stalled: kept behind the first ones.
    for (let i = 5; i <= 104; i++) results.push(link.send('Action', { i }));
    faults.mode = 'fail';
    clock.increment(100); // then 100 ms
    await waitFor(() => link.status().failedAttempts === 3, 'the third attempt');
    expect(link.status()).toMatchObject({ state: 'stalled', pendingLines: 103 });
    expect(notices.filter((n) => n.type === 'link.stalled')).toHaveLength(1); // reported once, not per attempt

    faults.mode = 'ok';
    clock.increment(200);
    await Promise.all(results);
    expect(toGame(dir)).toBe(Array.from({ length: 104 }, (_, i) => line(i + 1)).join(''));
    expect(link.status()).toMatchObject({ state: 'open', pendingLines: 0, failedAttempts: 0, writtenLines: 104 });
    expect(notices.at(-1)).toEqual({ type: 'link.recovered', file: 'to_game.log', attempts: 3, stalledMs: 350, lines: 103 });
    expect(link.toGamePosition().offset).toBe(Buffer.byteLength(toGame(dir)));
  });

  it('backs off up to retryMaxMs and reports a long stall again every stallReportMs', async () => {
    const dir = join(root, 'long');
    const faults = faultyFs();
    const { link, notices } = await openLink(dir, {
      clock,
      appendFs: faults.fs,
      sendLimits: { retryFirstMs: 10, retryMaxMs: 80, stallReportMs: 1000 },
    });
    faults.mode = 'fail';
    const sent = link.send('Action', { i: 1 });
    await waitFor(() => link.status().failedAttempts === 1, 'the first failure');
    const waits = [10, 20, 40, 80, 80, 80];
    for (const [k, ms] of waits.entries()) {
      clock.increment(ms - 1);
      await sleep(5);
      expect(link.status().failedAttempts).toBe(k + 1);
      clock.increment(1);
      await waitFor(() => link.status().failedAttempts === k + 2, `attempt ${k + 2}`);
    }
    // 310 ms so far; run on to 2 s of stall: reported again at about 1 s and 2 s, not at every attempt
    while (clock.now() < 2100) {
      const before = link.status().failedAttempts;
      clock.increment(80);
      await waitFor(() => link.status().failedAttempts === before + 1, 'one more attempt');
    }
    expect(notices.filter((n) => n.type === 'link.stalled')).toHaveLength(3);
    faults.mode = 'ok';
    clock.increment(80);
    await sent;
    expect(toGame(dir)).toBe(line(1));
  });

  it('fails the link with a reason when the backlog goes over its bound; later sends reject at once', async () => {
    const dir = join(root, 'over');
    const faults = faultyFs();
    const { link, notices } = await openLink(dir, { clock, appendFs: faults.fs, sendLimits: { maxPendingLines: 10 } });
    faults.mode = 'fail';
    const kept = Array.from({ length: 10 }, (_, i) => link.send('Action', { i }).then(() => 'written', (e: unknown) => e));
    await waitFor(() => link.status().state === 'stalled', 'the stall');
    const over = link.send('Action', { i: 10 });
    await expect(over).rejects.toBeInstanceOf(LinkSendError);
    for (const outcome of await Promise.all(kept)) expect(outcome).toMatchObject({ name: 'LinkSendError', code: 'failed' });
    const failed = notices.find((n) => n.type === 'link.failed');
    expect(failed).toMatchObject({ type: 'link.failed', lostLines: 10 });
    expect((failed as { reason: string }).reason).toMatch(/to_game.log backlog over 10 lines .*ENOSPC/);
    expect(link.status()).toMatchObject({ state: 'failed', pendingLines: 0 });
    await expect(link.send('Action', { i: 11 })).rejects.toMatchObject({ code: 'failed' });
  });

  it('bounds the backlog by bytes too', async () => {
    const dir = join(root, 'bytes');
    const faults = faultyFs();
    const { link, notices } = await openLink(dir, { clock, appendFs: faults.fs, sendLimits: { maxPendingBytes: 1000 } });
    faults.mode = 'fail';
    const first = link.send('Chat', { text: 'x'.repeat(500) }).then(() => 'written', (e: unknown) => e);
    await waitFor(() => link.status().state === 'stalled', 'the stall');
    await expect(link.send('Chat', { text: 'y'.repeat(500) })).rejects.toMatchObject({ code: 'failed' });
    expect(await first).toMatchObject({ code: 'failed' });
    expect(notices.map((n) => n.type)).toEqual(['link.stalled', 'link.failed']);
  });

  it('close while stalled makes one last attempt, then rejects what is left and says how many lines', async () => {
    const dir = join(root, 'close');
    const faults = faultyFs();
    const { link, notices } = await openLink(dir, { clock, appendFs: faults.fs });
    faults.mode = 'fail';
    const sends = [link.send('Action', { i: 1 }), link.send('Action', { i: 2 })];
    const outcomes = sends.map((p) => p.then(() => 'written', (e: unknown) => e));
    await waitFor(() => link.status().state === 'stalled', 'the stall');
    await link.close();
    for (const outcome of await Promise.all(outcomes)) expect(outcome).toMatchObject({ name: 'LinkSendError', code: 'closed' });
    expect(notices.at(-1)).toMatchObject({ type: 'link.closed', lostLines: 2 });
    expect(faults.writes).toBe(2); // the first attempt and the last one at close

    // The same with a disk that came back: the last attempt writes everything.
    const dir2 = join(root, 'close2');
    const faults2 = faultyFs();
    const second = await openLink(dir2, { clock, appendFs: faults2.fs });
    faults2.mode = 'fail';
    const sends2 = [second.link.send('Action', { i: 1 }), second.link.send('Action', { i: 2 })];
    await waitFor(() => second.link.status().state === 'stalled', 'the stall');
    faults2.mode = 'ok';
    await second.link.close();
    await Promise.all(sends2);
    expect(toGame(dir2)).toBe(line(1) + line(2));
  });

  it('random failures under a stream of sends: every line once, in order (seeded)', async () => {
    const seed = 20261018;
    const random = seededRandom(seed);
    const dir = join(root, 'random');
    const faults = faultyFs();
    const { link } = await openLink(dir, { clock, appendFs: faults.fs });
    const sends: Promise<void>[] = [];
    let i = 0;
    for (let round = 0; round < 60; round++) {
      const r = random();
      faults.mode = r < 0.2 ? 'fail' : r < 0.35 ? 'half' : 'ok';
      const n = 1 + Math.floor(random() * 8);
      for (let k = 0; k < n; k++) sends.push(link.send('Action', { i: ++i }));
      await sleep(1);
      clock.increment(2000);
      await sleep(1);
    }
    faults.mode = 'ok';
    for (let k = 0; k < 1000 && link.status().pendingLines > 0; k++) {
      clock.increment(2000);
      await sleep(2);
    }
    await Promise.all(sends);
    expect(toGame(dir), `seed ${seed}`).toBe(Array.from({ length: i }, (_, k) => line(k + 1)).join(''));
    expect(faults.failures, `seed ${seed}`).toBeGreaterThan(0);
  });
});

describe('a session folder that cannot be opened', () => {
  it('rejects with GameLinkOpenError "cannot open the session folder <dir>: …" when the folder cannot be made', async () => {
    writeFileSync(join(root, 'file'), 'not a folder');
    const dir = join(root, 'file', 'session');
    const error = await openGameLink(dir, player).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameLinkOpenError);
    expect((error as GameLinkOpenError).message).toMatch(
      new RegExp(`^cannot open the session folder ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: create the folder: ENOTDIR`),
    );
    expect((error as GameLinkOpenError).message).not.toContain('\n');
    expect((error as GameLinkOpenError).step).toBe('create the folder');
  });

  it('rejects with GameLinkOpenError when to_game.log cannot be replaced (a folder under its name)', async () => {
    const dir = join(root, 'blocked');
    mkdirSync(join(dir, 'to_game.log'), { recursive: true });
    const error = await openGameLink(dir, player).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameLinkOpenError);
    expect((error as GameLinkOpenError).step).toBe('replace to_game.log');
    expect((error as Error).message).toMatch(/^cannot open the session folder .*: replace to_game.log: /);
  });

  it('rejects with GameLinkOpenError when identity.txt cannot be written (a folder under its name)', async () => {
    const dir = join(root, 'noid');
    mkdirSync(join(dir, 'identity.txt'), { recursive: true });
    const error = await openGameLink(dir, player).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameLinkOpenError);
    expect((error as Error).message).toMatch(/^cannot open the session folder .*: (read|write) identity.txt: /);
  });
});
