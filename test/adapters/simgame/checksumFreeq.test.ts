// The freeq part over the simulated world's free-id queue (wire-protocol.txt "The free-id queue part freeq";
// adapters/simgame/world/freeIds.ts): freeq = <epoch>|<n>:<h>|… with a mark every 1024 ops, the newest three, reported
// by the mod in every round; the host compares it at the newest common n (machines/rules/checksumCompare.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { ChecksumDriver } from '../../../adapters/simgame/checksumDriver.ts';
import { allocateId, freeId, freeqOps, freeqPart, FREEQ_EVERY } from '../../../adapters/simgame/world/freeIds.ts';
import { cloneWorld } from '../../../adapters/simgame/world/save.ts';
import { createWorld, emptyWorld } from '../../../adapters/simgame/world/create.ts';
import type { IdQueue, World } from '../../../adapters/simgame/world/types.ts';
import { compareRound, parseFreeq, type RoundReport } from '../../../machines/rules/checksumCompare.ts';
import { REAL_MOD, tempDir } from './support.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

/** `count` ops on the queue: builds and removals, the same sequence for the same `salt`. */
function churn(ids: IdQueue, count: number, salt = 0): void {
  const held: number[] = [];
  for (let i = 0; i < count; i++) {
    if (held.length > 3 && (i + salt) % 3 === 0) freeId(ids, held.shift()!);
    else held.push(allocateId(ids));
  }
}

async function drivers(worlds: World[]): Promise<ChecksumDriver[]> {
  const out: ChecksumDriver[] = [];
  for (const [id, world] of worlds.entries()) {
    const dir = tempDir();
    const d = await ChecksumDriver.create({ world, modDir: REAL_MOD, sessionDir: dir.dir, id });
    cleanups.push(() => d.close(), () => dir.cleanup());
    out.push(d);
  }
  return out;
}

function round(games: ChecksumDriver[], n: number): RoundReport[] {
  const at = games[0]!.game.world.time;
  for (const g of games) g.request({ n, at, paused: false, spread: 1 });
  for (const g of games) g.step(2);
  return games.map((g, game) => ({ game, ...g.reports().find((r) => r.n === n)! }));
}

describe('freeq over the simulated free-id queue', () => {
  it('is <epoch> alone before the first mark, then the newest three marks, one every 1024 ops', () => {
    const w = emptyWorld(1);
    expect(freeqPart(w.ids)).toMatch(/^[0-9a-f]{8}$/);
    churn(w.ids, FREEQ_EVERY - 1);
    expect(parseFreeq(freeqPart(w.ids))!.marks.size).toBe(0);
    churn(w.ids, 1);
    expect([...parseFreeq(freeqPart(w.ids))!.marks.keys()]).toEqual([1024]);
    churn(w.ids, 4 * FREEQ_EVERY);
    expect([...parseFreeq(freeqPart(w.ids))!.marks.keys()]).toEqual([3072, 4096, 5120]);
    expect(freeqOps(w.ids)).toBe(5 * FREEQ_EVERY);
  });

  it('equal worlds with the same id stream report equal freeq; the host compares it and finds no difference', async () => {
    const games = await drivers([createWorld(4), createWorld(4)]);
    for (const g of games) churn(g.game.world.ids, 2_100);
    const reports = round(games, 1);
    expect(reports[0]!.parts.freeq).toBe(reports[1]!.parts.freeq);
    expect([...parseFreeq(reports[0]!.parts.freeq)!.marks.keys()]).toEqual([1024, 2048]);
    const compared = compareRound({ at: reports[0]!.time, full: true }, reports);
    expect(compared).toMatchObject({ kind: 'compared', differences: [] });
    expect(compared.kind === 'compared' && compared.freeqLeftOut).toBeUndefined();
  });

  it('one extra id handed out on one game: freeq differs at the newest common n (and ids too)', async () => {
    const games = await drivers([createWorld(4), createWorld(4)]);
    for (const g of games) churn(g.game.world.ids, 1_500);
    allocateId(games[1]!.game.world.ids); // one game hands out one id more
    for (const g of games) churn(g.game.world.ids, 1_200, 1);
    const reports = round(games, 1);
    const compared = compareRound({ at: reports[0]!.time, full: true }, reports);
    expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual(['freeq', 'ids']);
    // game 1 is one op ahead, so its marks fall elsewhere in the stream: compared at 2048, which both name
    const freeq = compared.kind === 'compared' ? compared.differences[0]!.groups.map((g) => String(g.value)) : [];
    expect(freeq.every((v) => v.includes('|2048:'))).toBe(true);
  });

  it('the same ids in another order: ids may agree again, freeq does not', async () => {
    const games = await drivers([createWorld(4), createWorld(4)]);
    for (const [i, g] of games.entries()) {
      const ids = g.game.world.ids;
      const a = allocateId(ids);
      const b = allocateId(ids);
      // freed in another order, then taken again: the queue ends equal, the stream differs
      if (i === 0) { freeId(ids, a); freeId(ids, b); } else { freeId(ids, b); freeId(ids, a); }
      allocateId(ids);
      allocateId(ids);
      churn(ids, FREEQ_EVERY);
    }
    const reports = round(games, 1);
    const compared = compareRound({ at: reports[0]!.time, full: true }, reports);
    expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual(['freeq']);
  });

  it('left out before any common mark, and between a running world and a loaded one (another epoch)', async () => {
    const base = createWorld(4);
    const games = await drivers([base, cloneWorld(base), cloneWorld(base)]);
    let reports = round(games, 1);
    expect(compareRound({ at: reports[0]!.time, full: true }, reports)).toMatchObject({ kind: 'compared', differences: [], freeqLeftOut: 'another epoch' });
    // the two loaded worlds share their epoch; before 1024 ops they have no mark
    reports = reports.slice(1).map((r, game) => ({ ...r, game }));
    expect(compareRound({ at: reports[0]!.time, full: true }, reports)).toMatchObject({ kind: 'compared', freeqLeftOut: 'no common n' });
    for (const g of games) churn(g.game.world.ids, FREEQ_EVERY);
    const again = round(games, 2).slice(1).map((r, game) => ({ ...r, game }));
    const compared = compareRound({ at: again[0]!.time, full: true }, again);
    expect(compared).toMatchObject({ kind: 'compared', differences: [] });
    expect(compared.kind === 'compared' && compared.freeqLeftOut).toBeUndefined();
  });
});
