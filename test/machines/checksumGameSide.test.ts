// The game's side of checksum rounds (mod/feverlink3_checksum.lua over the simulated game, adapters/simgame/world/
// checksumLanes.ts): two games with the real mod, fed the same lines, report equal parts at the round's step; a
// divergence injected into one world is named by part by the host's comparison; a light round leaves the heavy lanes
// out; money is corrected by Authority; a paused round is read once the world stands at the pause.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SimGame } from '../../adapters/simgame/game.ts';
import { LuaHost } from '../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../adapters/simgame/world/create.ts';
import type { World } from '../../adapters/simgame/world/types.ts';
import { compareRound, type RoundReport } from '../../machines/rules/checksumCompare.ts';
import { REAL_MOD, manualClock } from '../adapters/simgame/support.ts';
import { makeSessionFolder, type SessionFolder } from '../mod/support/sessionFolder.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function twoGames(seed = 5) {
  const clock = manualClock();
  const games: { game: SimGame; folder: SessionFolder }[] = [];
  for (const id of [0, 1]) {
    const folder = makeSessionFolder(id, { start: '1:0' });
    const game = new SimGame({ world: createWorld(seed), now: clock.now, savesDir: folder.dir, log: () => undefined });
    const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: folder.dir }, engine: game, wallMs: clock.now });
    game.attach(host);
    cleanups.push(() => host.close(), () => folder.cleanup());
    games.push({ game, folder });
  }
  const send = (kind: string, payload: unknown) => {
    for (const g of games) g.folder.send(kind, payload);
  };
  const frames = (k: number) => {
    for (let i = 0; i < k; i++) {
      clock.advance(20);
      for (const g of games) g.game.frame();
    }
  };
  const reports = (n: number): RoundReport[] =>
    games.flatMap((g, id) =>
      g.folder.outOf('ChecksumReport').filter((r) => r.n === n).map((r) => ({ game: id, ...(r as Omit<RoundReport, 'game'>) })),
    );
  // Both games run together: each the other's peer, promising far ahead.
  for (const [id, g] of games.entries()) g.folder.send('PeerClock', { from: 1 - id, t: 0, ahead: 4, safe: 10_000_000 });
  games[0]!.game.frame();
  games[1]!.game.frame();
  send('Session', { started: true, speed: 1, lead: 2 });
  return { games, send, frames, reports };
}

describe('checksum rounds on the game side', () => {
  it('equal worlds report equal parts at the round’s step; an injected divergence is named by part', async () => {
    const h = await twoGames();
    h.send('ChecksumRequest', { n: 1, at: 2_000, paused: false, spread: 1 });
    h.frames(200);
    const first = h.reports(1);
    expect(first).toHaveLength(2);
    expect(first.map((r) => r.time)).toEqual([2_000, 2_000]);
    expect(Object.keys(first[0]!.parts)).toEqual(expect.arrayContaining(['money', 'loan', 'edges', 'constructions', 'nodeConfigs', 'ids', 'vehicles']));
    expect(Object.keys(first[0]!.parts).some((p) => p.startsWith('townBuildings:'))).toBe(true);
    expect(compareRound({ at: 2_000, full: true }, first)).toMatchObject({ kind: 'compared', differences: [] });

    // A divergence in game 1's world: a road changed hands (a heavy lane only).
    const edge = h.games[1]!.game.world.edges.values().next().value!;
    edge.owner = edge.owner === 'town' ? 'player' : 'town';
    const at = h.games[0]!.game.time() + 1_000;
    h.send('ChecksumRequest', { n: 2, at, paused: false, full: false });
    h.send('ChecksumRequest', { n: 3, at: at + 200, paused: false });
    h.frames(200);
    const light = compareRound({ at, full: false }, h.reports(2));
    expect(light).toMatchObject({ kind: 'compared', differences: [] }); // the light round has no heavy lane
    expect(Object.keys(h.reports(2)[0]!.parts)).not.toContain('constructions');
    const full = compareRound({ at: at + 200, full: true }, h.reports(3));
    expect(full.kind === 'compared' && full.differences.map((d) => d.part)).toEqual(['edges']);
  });

  it('money: the host game’s Authority values correct the other game at once, without a reload', async () => {
    const h = await twoGames();
    h.games[1]!.game.world.money -= 12_345;
    h.send('ChecksumRequest', { n: 1, at: 1_000, paused: false });
    h.frames(100);
    const reports = h.reports(1);
    const compared = compareRound({ at: 1_000, full: true }, reports);
    expect(compared).toMatchObject({ kind: 'compared', authorityDiffers: ['money'], differences: [{ part: 'money' }] });
    const hostMoney = reports[0]!.authority!.money!;
    h.games[1]!.folder.send('Authority', { n: 1, values: { money: hostMoney } });
    h.frames(5);
    expect(h.games[1]!.game.world.money).toBe(h.games[0]!.game.world.money);
    expect(h.games[1]!.folder.modLog()).toMatch(/authority of round 1: money /);
  });

  it('money: two paused rounds read before a correction; the second Authority does not correct it twice', async () => {
    // The simulator, seed 5255: both rounds read the world standing at one pause, then the Authority of the first
    // corrected it; the second round's values were read before that correction, so its difference is already made up.
    const h = await twoGames();
    h.games[1]!.game.world.money -= 12_345;
    h.send('Session', { started: true, speed: 1, lead: 2, pauseAt: 1_400 });
    h.send('ChecksumRequest', { n: 1, at: 1_400, paused: true });
    h.send('ChecksumRequest', { n: 2, at: 1_400, paused: true });
    h.frames(150);
    const hostMoney = h.reports(1)[0]!.authority!.money!;
    expect(h.reports(2).map((r) => r.authority!.money)).toEqual([hostMoney, hostMoney - 12_345]);
    h.games[1]!.folder.send('Authority', { n: 1, values: { money: hostMoney } });
    h.frames(5);
    expect(h.games[1]!.game.world.money).toBe(hostMoney);
    h.games[1]!.folder.send('Authority', { n: 2, values: { money: hostMoney } });
    h.frames(5);
    expect(h.games[1]!.game.world.money).toBe(hostMoney); // was hostMoney + 12 345: corrected twice
    expect(h.games[1]!.folder.modLog().match(/authority of round \d+: money /g)).toHaveLength(1);
  });

  it('a paused round is read once the world stands at the pause; a round read late reports its lateness', async () => {
    const h = await twoGames();
    h.send('Session', { started: true, speed: 1, lead: 2, pauseAt: 1_400 });
    h.send('ChecksumRequest', { n: 1, at: 1_400, paused: true });
    h.frames(150);
    expect(h.reports(1).map((r) => r.time)).toEqual([1_400, 1_400]);
    h.send('Session', { started: true, speed: 1, lead: 2 });
    h.frames(100);
    const t = h.games[0]!.game.time();
    h.games[0]!.folder.send('ChecksumRequest', { n: 2, at: t - 400, paused: false }); // already passed: read late
    h.frames(20);
    const [late] = h.games[0]!.folder.outOf('ChecksumReport').filter((r) => r.n === 2);
    expect(Number(late!.time)).toBeGreaterThan(t - 400);
  });
});

/** Divergences injected into one world, each with the part that must name it. */
const DIVERGENCES: { name: string; part: (w: World) => string; inject: (w: World) => void }[] = [
  { name: 'a road changes hands', part: () => 'edges', inject: (w) => { const e = [...w.edges.values()][0]!; e.owner = e.owner === 'town' ? 'player' : 'town'; } },
  { name: 'a construction turns', part: () => 'constructions', inject: (w) => { [...w.constructions.values()][0]!.rot += 90; } },
  { name: 'a bus moves on', part: () => 'vehicles', inject: (w) => { [...w.vehicles.values()][0]!.progress += 1; } },
  { name: 'a town grows', part: (w) => `townBuildings:${[...w.towns.values()][0]!.name}`, inject: (w) => { [...w.towns.values()][0]!.population += 1; } },
  { name: 'money', part: () => 'money', inject: (w) => { w.money -= 1; } },
  { name: 'the loan', part: () => 'loan', inject: (w) => { w.loan += 10_000; } },
  { name: 'the free-id queue', part: () => 'ids', inject: (w) => { w.ids.next += 1; } },
];

describe('a divergence injected at a random step (fast-check over world seeds)', () => {
  for (const divergence of DIVERGENCES) {
    it(`${divergence.name}: detected in the next round and named by its part`, async () => {
      const steps = new Set<number>();
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 5, max: 60 }), async (seed, frames) => {
          const h = await twoGames(seed);
          h.frames(frames); // the session runs a random number of steps
          const world = h.games[1]!.game.world;
          const part = divergence.part(world);
          divergence.inject(world);
          steps.add(world.time);
          const at = Math.max(h.games[0]!.game.time(), h.games[1]!.game.time()) + 200;
          h.send('ChecksumRequest', { n: 1, at, paused: false, spread: 1 });
          h.frames(40); // the round reads its chunk one step after at (spread 1), then reports
          const compared = compareRound({ at, full: true }, h.reports(1));
          expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual([part]);
          while (cleanups.length) cleanups.pop()!();
        }),
        { numRuns: 5, seed: 1010 },
      );
      expect(steps.size).toBeGreaterThanOrEqual(3); // injected at different steps
    }, 60_000);
  }
});
