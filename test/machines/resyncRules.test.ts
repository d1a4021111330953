// The resync round's pure rules (machines/rules/resyncChunks.ts, resyncRound.ts): the spec's bounds (1 byte to
// 512 MiB, 1..2048 chunks of exactly 256 KiB), the receiving side's checks in order, the progress line, the repair
// source's choice and the names a failure reason gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkChunk, chunkLength, chunkPlan, CHUNK_BYTES, holdTransfer, MAX_SAVE_BYTES, progressBar, transferProgress } from '../../machines/rules/resyncChunks.ts';
import { autoResyncFromEnv, chooseSource, helloAwaited, namesOf, reloadModesFromEnv, resyncSaveName } from '../../machines/rules/resyncRound.ts';

const SHA = 'ab'.repeat(32);
const chunk = (over: Partial<{ id: number; index: number; count: number; sha256: string; data: Uint8Array }> = {}) => ({
  id: 1,
  index: 0,
  count: 2,
  sha256: SHA,
  data: new Uint8Array(CHUNK_BYTES),
  ...over,
});

describe('chunk bounds', () => {
  it('count = ceil(len / 256 KiB) from 1 byte to 512 MiB; nothing else is sent', () => {
    expect(chunkPlan(1)).toEqual({ ok: true, count: 1 });
    expect(chunkPlan(CHUNK_BYTES)).toEqual({ ok: true, count: 1 });
    expect(chunkPlan(CHUNK_BYTES + 1)).toEqual({ ok: true, count: 2 });
    expect(chunkPlan(MAX_SAVE_BYTES)).toEqual({ ok: true, count: 2048 });
    expect(chunkPlan(0).ok).toBe(false);
    expect(chunkPlan(MAX_SAVE_BYTES + 1).ok).toBe(false);
    expect(chunkPlan(1.5).ok).toBe(false);
  });

  it('every chunk but the last is exactly 256 KiB and they add up to the file', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_SAVE_BYTES }), (bytes) => {
        const plan = chunkPlan(bytes);
        if (!plan.ok) return false;
        let sum = 0;
        for (const i of [0, plan.count - 2, plan.count - 1].filter((i) => i >= 0)) {
          const len = chunkLength(bytes, i);
          expect(len).toBeGreaterThanOrEqual(1);
          expect(len).toBeLessThanOrEqual(CHUNK_BYTES);
          if (i < plan.count - 1) expect(len).toBe(CHUNK_BYTES);
        }
        sum = (plan.count - 1) * CHUNK_BYTES + chunkLength(bytes, plan.count - 1);
        return sum === bytes;
      }),
    );
  });
});

describe('receiving side checks', () => {
  it('in the spec\'s order, with the reasons', () => {
    expect(checkChunk(undefined, chunk({ sha256: 'AB'.repeat(32) }))).toEqual({ verdict: 'accept', fresh: true });
    expect(checkChunk(undefined, chunk({ sha256: 'ab' }))).toMatchObject({ verdict: 'refuse', why: 'sha256' });
    expect(checkChunk(undefined, chunk({ count: 0 }))).toMatchObject({ why: 'count' });
    expect(checkChunk(undefined, chunk({ count: 2049 }))).toMatchObject({ why: 'count' });
    expect(checkChunk(undefined, chunk({ index: 2 }))).toMatchObject({ why: 'index' });
    expect(checkChunk(undefined, chunk({ index: 1, data: new Uint8Array(CHUNK_BYTES + 1) }))).toMatchObject({ why: 'size' });
    expect(checkChunk(undefined, chunk({ index: 1, data: new Uint8Array(0) }))).toMatchObject({ why: 'size' });
    expect(checkChunk(undefined, chunk({ index: 0, data: new Uint8Array(5) }))).toMatchObject({ why: 'size' });
    expect(checkChunk(undefined, chunk({ index: 1, data: new Uint8Array(5) }))).toEqual({ verdict: 'accept', fresh: true });
    const held = holdTransfer(chunk());
    held.have[0] = 1;
    expect(checkChunk(held, chunk())).toEqual({ verdict: 'duplicate' });
    expect(checkChunk(held, chunk({ index: 1, count: 3 }))).toMatchObject({ why: 'another count' });
    expect(checkChunk(held, chunk({ index: 1, sha256: 'cd'.repeat(32) }))).toMatchObject({ why: 'another sha256' });
    expect(checkChunk(held, chunk({ index: 1 }))).toEqual({ verdict: 'accept', fresh: false });
    expect(checkChunk(held, chunk({ id: 2, count: 9 }))).toEqual({ verdict: 'accept', fresh: true });
  });
});

describe('progress', () => {
  it('rate and time left, and the terminal bar', () => {
    const p = transferProgress(100 * 1_048_576, 200 * 1_048_576, 2_000);
    expect(p.bytesPerSecond).toBe(50 * 1_048_576);
    expect(p.secondsLeft).toBe(2);
    expect(progressBar(p, 10)).toBe('[#####.....] 50% 100.0/200.0 MiB 50.0 MiB/s 0:02 left');
    expect(progressBar(transferProgress(0, 10, 0), 4)).toBe('[....] 0% 0.0/0.0 MiB 0.0 MiB/s --:-- left');
  });
});

describe('repair source and names', () => {
  const players = [
    { id: 1, name: 'alice', capable: false },
    { id: 2, name: 'bob', capable: true },
    { id: 3, name: 'carol', capable: true },
  ];
  const all = [1, 2, 3];
  it('the host unless marked; then the first unmarked capable player; else the host with a warning', () => {
    expect(chooseSource(players, [], true, all)).toEqual({ source: 0 });
    expect(chooseSource(players, [0], true, all)).toEqual({ source: 2 });
    expect(chooseSource(players, [0, 2], true, all)).toEqual({ source: 3 });
    expect(chooseSource(players, [0, 2, 3], true, all).warning).toMatch(/no unmarked player can send/);
    expect(chooseSource(players, [0, 1, 2, 3], true, all).warning).toMatch(/every game is marked/);
    expect(chooseSource([], [0], true, []).warning).toMatch(/no player is connected/);
    expect(chooseSource(players, [0], false, all)).toMatchObject({ source: 0, warning: expect.stringMatching(/does not reload/) });
  });
  it('only a player ready in the session’s world: never an outsider (simulator seed 53), never a game that has not said Hello', () => {
    // bob (2) is an outsider or has not said Hello yet: either way it is not in the session's world
    expect(chooseSource(players, [0], true, [1, 3])).toEqual({ source: 3 });
    expect(chooseSource(players, [0, 1], true, [1])).toMatchObject({ source: 0, warning: expect.stringMatching(/no unmarked player is ready in the session's world/) });
    expect(chooseSource(players, [0, 1, 3], true, [1, 3]).warning).toMatch(/no unmarked player is ready in the session's world/);
    expect(chooseSource(players, [0], true, []).warning).toMatch(/no unmarked player is ready in the session's world/);
  });
  it('names, hellos, file names', () => {
    expect(namesOf([0, 3, 9], players)).toBe("the host's game, carol, player 9");
    expect(helloAwaited([1, 2], true, [2])).toEqual([0, 1]);
    expect(helloAwaited([1, 2], false, [])).toEqual([1, 2]);
    expect(resyncSaveName(4)).toBe('feverlink3-resync-4');
  });
  it('reload modes: both on unless the environment says 0', () => {
    expect(reloadModesFromEnv({})).toEqual({ hostReloads: true, hostLoadsEarly: true });
    expect(reloadModesFromEnv({ FEVERLINK3_HOST_RELOAD: '0' })).toEqual({ hostReloads: false, hostLoadsEarly: true });
    expect(reloadModesFromEnv({ FEVERLINK3_HOST_LOAD_EARLY: '0', FEVERLINK3_HOST_RELOAD: '1' })).toEqual({ hostReloads: true, hostLoadsEarly: false });
  });
  it('autoResync: on unless the environment says 0', () => {
    expect(autoResyncFromEnv({})).toBe(true);
    expect(autoResyncFromEnv({ FEVERLINK3_AUTO_RESYNC: '1' })).toBe(true);
    expect(autoResyncFromEnv({ FEVERLINK3_AUTO_RESYNC: ' 0\n' })).toBe(false);
  });
});
