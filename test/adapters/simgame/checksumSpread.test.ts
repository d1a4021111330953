// Spread full rounds on the game's side (wire-protocol.txt "Spread full rounds", "Chunk size and detail"): the mod's
// checksum module (mod/feverlink3_checksum.lua) reads the heavy lanes of the simulated world
// (adapters/simgame/world/checksumLanes.ts) chunk by chunk, each chunk at its exact step (its landing mark), and
// reports when the last chunk was read, with the cost measured on the wall clock it is given. Driven step by step
// (adapters/simgame/checksumDriver.ts) and once through a whole session (to_game.log → from_game.log).
import { afterEach, describe, expect, it } from 'vitest';
import { ChecksumDriver, type DrivenReport } from '../../../adapters/simgame/checksumDriver.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { checksumLanes, heavyKey } from '../../../adapters/simgame/world/checksumLanes.ts';
import { createBigWorld, heavyEntityCount } from '../../../adapters/simgame/world/create.ts';
import { STEP } from '../../../adapters/simgame/world/types.ts';
import { chunkFor, createChunkSizing, recordCost, resize, MAX_CHUNK, MIN_CHUNK } from '../../../machines/rules/checksumChunks.ts';
import { compareRound, type RoundReport } from '../../../machines/rules/checksumCompare.ts';
import { makeSessionFolder } from '../../mod/support/sessionFolder.ts';
import { manualClock, REAL_MOD, tempDir } from './support.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** `count` drivers over equal worlds of about `entities` heavy entities. */
async function drivers(count: number, entities: number, wallMs?: () => number): Promise<ChecksumDriver[]> {
  const out: ChecksumDriver[] = [];
  for (let id = 0; id < count; id++) {
    const dir = tempDir();
    const d = await ChecksumDriver.create({ world: createBigWorld(3, entities), modDir: REAL_MOD, sessionDir: dir.dir, id, ...(wallMs ? { wallMs } : {}) });
    cleanups.push(() => d.close(), () => dir.cleanup());
    out.push(d);
  }
  return out;
}

const asRound = (reports: DrivenReport[][], n: number): RoundReport[] =>
  reports.map((r, game) => ({ game, ...r.find((x) => x.n === n)! }));

/** The step each kept key of part `part` was read at (from the detail dump), as a set. */
function stepsOf(dump: string, part: string): number[] {
  const steps = new Set<number>();
  for (const line of dump.split('\n')) {
    const m = new RegExp(`^${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\t.*\\t@(\\d+)$`).exec(line);
    if (m) steps.add(Number(m[1]));
  }
  return [...steps].sort((a, b) => a - b);
}

describe('a spread full round read in chunks at their steps', () => {
  it('equal worlds give equal parts, read chunk by chunk at the same landing steps, reported after the last chunk', async () => {
    const games = await drivers(2, 600);
    const total = heavyEntityCount(games[0]!.game.world);
    for (const g of games) g.step(5);
    const at = games[0]!.game.world.time; // 1 000
    const whole = checksumLanes(games[0]!.game.world);
    for (const g of games) expect(g.request({ n: 1, at, paused: false, spread: 2, chunk: 50, detail: true })).toBeUndefined();
    const chunks = Math.ceil(total / 50);
    // Nothing before the last chunk's step: at + chunks * 2 steps.
    for (const g of games) g.step(chunks * 2);
    expect(games.map((g) => g.reports())).toEqual([[], []]);
    for (const g of games) g.step(1); // beforeStep(at + chunks·2·STEP): the last chunk lands
    const reports = games.map((g) => g.reports());
    expect(reports.map((r) => r.length)).toEqual([1, 1]);
    expect(reports.map((r) => r[0]!.time)).toEqual([at, at]);
    expect(reports[0]![0]!.parts).toEqual(reports[1]![0]!.parts);
    // No town grew during the round: the chunked parts are the parts of a round hashed whole at `at`.
    expect(reports[0]![0]!.parts).toEqual(whole);
    expect(compareRound({ at, full: true }, asRound(reports, 1))).toMatchObject({ kind: 'compared', differences: [] });
    // The landing marks: the chunks of the heavy lanes were read at at + k·2 steps, k = 1..chunks, the same on both.
    const dumps = games.map((g) => g.dumpText(1));
    expect(dumps[0]).toContain(`complete: detail round 1 (at ${at}, last read at ${at + chunks * 2 * STEP}, chunks of 50 every 2 steps)`);
    const landed = new Set(['constructions', 'edges', 'nodeConfigs'].flatMap((p) => stepsOf(dumps[0]!, p)));
    expect([...landed].every((t) => (t - at) % (2 * STEP) === 0 && t > at && t <= at + chunks * 2 * STEP)).toBe(true);
    expect(landed.size).toBeGreaterThanOrEqual(chunks - 1); // the towns' lanes hold one key each
    expect(dumps[1]!.split('\n').slice(2)).toEqual(dumps[0]!.split('\n').slice(2)); // the same keys at the same steps
  });

  it('what an action builds during the round is read at the same step on every game', async () => {
    const games = await drivers(2, 400);
    const at = 2_000;
    for (const g of games) g.step(at / STEP);
    for (const g of games) g.request({ n: 1, at, paused: false, spread: 1, chunk: 50 });
    for (const g of games) g.step(3);
    // An action stamped mid-round on both games: a road that moves the towns' graph.
    for (const g of games) {
      // splits the first edge of the road grid: that edge is gone before its chunk, two new edges and nodes appear
      const r = g.game.apply({ type: 'buildRoad', from: { x: -8_950, y: 5_000 }, to: { x: -8_950, y: 5_050 } });
      expect(r.ok).toBe(true);
    }
    for (const g of games) g.step(20);
    const reports = games.map((g) => g.reports());
    expect(reports[0]![0]!.parts).toEqual(reports[1]![0]!.parts);
  });

  it('a world that differs during the round, before its entity’s chunk is read, still differs', async () => {
    const games = await drivers(2, 400);
    for (const g of games) g.request({ n: 1, at: 0, paused: false, spread: 1, chunk: 50 });
    for (const g of games) g.step(2); // the first chunk has been read
    // game 1: the edge whose key sorts last (read in the edges lane's last chunk) changes hands
    const world = games[1]!.game.world;
    const last = [...world.edges.values()].map((e) => ({ e, key: heavyKey(world, 'edges', e.id)! })).sort((a, b) => (a.key < b.key ? 1 : -1))[0]!.e;
    last.owner = last.owner === 'town' ? 'player' : 'town';
    for (const g of games) g.step(20);
    const compared = compareRound({ at: 0, full: true }, asRound(games.map((g) => g.reports()), 1));
    expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual(['edges']);
  });

  it('a big world reads more per chunk: never more than MAX_CHUNKS chunks', async () => {
    const [g] = await drivers(1, 900);
    const total = heavyEntityCount(g!.game.world);
    g!.request({ n: 1, at: 0, paused: false, spread: 1, chunk: 10 });
    g!.step(21);
    const [report] = g!.reports();
    const size = Math.ceil(total / 20);
    expect(report!.cost!.chunk).toBe(size);
    expect(Math.ceil(total / size)).toBeLessThanOrEqual(20);
  });

  it('a round seen after its step reads late and reports at plus the lateness (time_skew on the host)', async () => {
    const [g] = await drivers(1, 200);
    g!.step(10);
    g!.request({ n: 1, at: 1_000, paused: false, spread: 1, chunk: 50 });
    g!.step(10);
    const [report] = g!.reports();
    // started at 2 000 (late by 1 000), every chunk due by then read at once: time = at + 1 000
    expect(report!.time).toBe(2_000);
    expect(compareRound({ at: 1_000, full: true }, [{ game: 0, ...report! }, { game: 1, ...report!, time: 1_000 }]).kind).toBe('time_skew');
  });

  it('light, paused and unspread rounds are hashed whole, without cost', async () => {
    const [g] = await drivers(1, 200);
    g!.request({ n: 1, at: 0, paused: false });
    g!.request({ n: 2, at: 200, paused: false, full: false, spread: 1 });
    g!.step(3);
    g!.request({ n: 3, at: g!.game.world.time, paused: true });
    g!.standing();
    const reports = g!.reports();
    expect(reports.map((r) => [r.n, r.cost])).toEqual([[1, undefined], [2, undefined], [3, undefined]]);
    expect(Object.keys(reports[1]!.parts)).not.toContain('edges');
    expect(Object.keys(reports[1]!.parts)).toContain('freeq');
  });
});

describe('the reported cost of a spread round', () => {
  it('is measured on the wall clock around each chunk: a clock that moves 1 ms a reading gives the exact figures', async () => {
    let wall = 0;
    const [g] = await drivers(1, 230, () => (wall += 1));
    const total = heavyEntityCount(g!.game.world);
    g!.request({ n: 1, at: 0, paused: false, spread: 1, chunk: 50 });
    g!.step(Math.ceil(total / 50) + 1);
    const [report] = g!.reports();
    const chunks = Math.ceil(total / 50);
    const lastChunk = total - (chunks - 1) * 50;
    // each chunk took 1 ms: the costliest (the last of the dearest, the smallest) per entity, or the average
    const entityNs = Math.round(Math.max(1e6 / lastChunk, (chunks * 1e6) / total));
    expect(report!.cost).toEqual({ entityNs, stepMaxUs: 1_000, chunk: 50 });
  });

  it('on the real clock: positive figures the host sizes the next chunk from', async () => {
    const games = await drivers(2, 1_000);
    for (const g of games) g.request({ n: 1, at: 0, paused: false, spread: 1 });
    for (const g of games) g.step(8);
    const reports = games.map((g) => g.reports()[0]!);
    for (const r of reports) {
      expect(r.cost!.entityNs).toBeGreaterThan(0);
      expect(r.cost!.stepMaxUs).toBeGreaterThan(0);
      expect(r.cost!.chunk).toBe(200);
    }
    let sizing = createChunkSizing();
    for (const [game, r] of reports.entries()) sizing = recordCost(sizing, game, r.cost!.entityNs);
    const sized = resize(sizing, [0, 1]);
    const dearest = Math.max(...reports.map((r) => r.cost!.entityNs));
    expect(sized.sizing.chunk).toBe(chunkFor(dearest, 200));
    expect(sized.sizing.chunk).toBeGreaterThanOrEqual(MIN_CHUNK);
    expect(sized.sizing.chunk).toBeLessThanOrEqual(MAX_CHUNK);
  });
});

describe('a spread round through a whole session (to_game.log → from_game.log)', () => {
  it('both games report the same parts at at, after their last chunk, with a cost', async () => {
    const clock = manualClock();
    const games: { game: SimGame; folder: ReturnType<typeof makeSessionFolder> }[] = [];
    for (const id of [0, 1]) {
      const folder = makeSessionFolder(id, { start: '1:0' });
      const game = new SimGame({ world: createBigWorld(9, 500), now: clock.now, savesDir: folder.dir, log: () => undefined });
      // the mod measures chunk costs on the real wall clock; the game's frames run on the manual one
      const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: folder.dir }, engine: game, wallMs: () => performance.now() });
      game.attach(host);
      cleanups.push(() => host.close(), () => folder.cleanup());
      games.push({ game, folder });
    }
    for (const [id, g] of games.entries()) g.folder.send('PeerClock', { from: 1 - id, t: 0, ahead: 4, safe: 10_000_000 });
    for (const g of games) g.game.frame();
    for (const g of games) g.folder.send('Session', { started: true, speed: 1, lead: 2 });
    for (const g of games) g.folder.send('ChecksumRequest', { n: 1, at: 1_000, paused: false, spread: 2, chunk: 100 });
    const total = heavyEntityCount(games[0]!.game.world);
    const chunks = Math.ceil(total / 100);
    const last = 1_000 + chunks * 2 * STEP;
    for (let i = 0; i < (last + 2_000) / 20; i++) {
      clock.advance(20);
      for (const g of games) g.game.frame();
    }
    const reports = games.map((g, game) => g.folder.outOf('ChecksumReport').map((r) => ({ game, ...(r as Omit<RoundReport, 'game'>) })));
    expect(reports.map((r) => r.length)).toEqual([1, 1]);
    expect(reports.map((r) => r[0]!.time)).toEqual([1_000, 1_000]);
    expect(compareRound({ at: 1_000, full: true }, reports.map((r) => r[0]!))).toMatchObject({ kind: 'compared', differences: [] });
    for (const r of reports) {
      const cost = (r[0] as unknown as DrivenReport).cost!;
      expect(cost.chunk).toBe(100);
      expect(cost.entityNs).toBeGreaterThan(0);
    }
    expect(games[0]!.folder.modLog()).toContain(`checksum round 1 read at 1000 in ${chunks} chunks of 100 every 2 steps, the last at ${last}`);
  }, 30_000);
});
