// Detail keys for the repair dump (wire-protocol.txt "Chunk size and detail"): a round with `detail` keeps every
// chunk's itemised keys in the mod's Lua state, and at a repair each game writes detail_s<sync>_<time>_<player>.txt
// in its session folder (mod/feverlink3_checksum.lua `dump`); the two dumps of games whose worlds differ name the part
// and the entity that differ. Without a detail round the dump is this state's keys read then, said partial.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChecksumDriver } from '../../../adapters/simgame/checksumDriver.ts';
import { createBigWorld } from '../../../adapters/simgame/world/create.ts';
import { compareRound } from '../../../machines/rules/checksumCompare.ts';
import { REAL_MOD, tempDir } from './support.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function twoDrivers(entities: number): Promise<{ games: ChecksumDriver[]; dirs: string[] }> {
  const games: ChecksumDriver[] = [];
  const dirs: string[] = [];
  for (const id of [0, 1]) {
    const dir = tempDir();
    const d = await ChecksumDriver.create({ world: createBigWorld(11, entities), modDir: REAL_MOD, sessionDir: dir.dir, id });
    cleanups.push(() => d.close(), () => dir.cleanup());
    games.push(d);
    dirs.push(dir.dir);
  }
  return { games, dirs };
}

/** The lines of dump `a` that dump `b` does not have (the header lines left out; `keysOnly`: steps ignored). */
const only = (a: string, b: string, keysOnly = false): string[] => {
  const strip = (line: string): string => (keysOnly ? line.replace(/\t@\d+$/, '') : line);
  const other = new Set(b.split('\n').map(strip));
  return a.split('\n').slice(2).map(strip).filter((line) => line !== '' && !other.has(line));
};

describe('detail keys kept for the repair dump', () => {
  it('one edge changed: the round names edges, and the two dumps name that edge', async () => {
    const { games, dirs } = await twoDrivers(500);
    const edge = [...games[1]!.game.world.edges.values()][7]!;
    edge.owner = edge.owner === 'town' ? 'player' : 'town';
    for (const g of games) g.request({ n: 1, at: 0, paused: false, spread: 1, chunk: 50, detail: true });
    for (const g of games) g.step(15);
    const reports = games.map((g, game) => ({ game, ...g.reports()[0]! }));
    const compared = compareRound({ at: 0, full: true }, reports);
    expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual(['edges']);

    // At the repair (resync 4), every game writes its dump to its session folder.
    const names = games.map((g) => g.dump(4));
    const t = games[0]!.game.world.time;
    expect(names).toEqual([`detail_s4_${t}_0.txt`, `detail_s4_${t}_1.txt`]);
    const texts = names.map((name, i) => readFileSync(join(dirs[i]!, name!), 'utf8'));
    expect(texts[0]!.split('\n')[0]).toBe(`FeverLink3 checksum detail: sync 4, player 0, t ${t}`);
    expect(texts[0]!.split('\n')[1]).toMatch(/^complete: detail round 1 \(at 0, last read at \d+, chunks of 50 every 1 steps\)$/);
    // The differing keys: the edges part's hash and the one edge, its owner changed. (Its key sorts elsewhere in the
    // lane's list, so a few edges around it were read a chunk earlier or later on one game: their steps differ.)
    const mine = only(texts[0]!, texts[1]!, true);
    const theirs = only(texts[1]!, texts[0]!, true);
    expect(mine).toHaveLength(2);
    expect(theirs).toHaveLength(2);
    expect(mine[0]).toMatch(/^part edges [0-9a-f]{8}$/);
    const [keyMine, keyTheirs] = [mine[1]!, theirs[1]!].map((l) => l.split('\t'));
    expect([keyMine![0], keyTheirs![0]]).toEqual(['edges', 'edges']);
    expect(keyMine![1]!.replace(/ (town|player) /, ' _ ')).toBe(keyTheirs![1]!.replace(/ (town|player) /, ' _ ')); // the same edge
    expect(keyMine![1]).not.toBe(keyTheirs![1]);
    // every other lane was read at the same steps on both games
    const otherLanes = (text: string) => text.split('\n').slice(2).filter((l) => !l.startsWith('edges') && !l.startsWith('part edges'));
    expect(otherLanes(texts[0]!)).toEqual(otherLanes(texts[1]!));
    expect(readFileSync(join(dirs[0]!, 'mod.log'), 'utf8')).toContain(`checksum detail dump written: ${names[0]}`);
  });

  it('a bus that moved on: the light part vehicles and its key are named', async () => {
    const { games } = await twoDrivers(100);
    [...games[1]!.game.world.vehicles.values()][0]!.progress += 1;
    for (const g of games) g.request({ n: 1, at: 0, paused: false, spread: 1, detail: true });
    for (const g of games) g.step(3);
    const compared = compareRound({ at: 0, full: true }, games.map((g, game) => ({ game, ...g.reports()[0]! })));
    expect(compared.kind === 'compared' && compared.differences.map((d) => d.part)).toEqual(['vehicles']);
    const [a, b] = games.map((g) => g.dumpText(1));
    const differing = only(a!, b!);
    expect(differing[0]).toMatch(/^part vehicles /);
    expect(differing[1]).toMatch(/^vehicles\ts:\d+ s:\d+ vehicle\/bus\/city_bus\.mdl \d+ \d+\t@0$/);
  });

  it('without a detail round the dump is this state’s keys read at the repair, said partial', async () => {
    const { games, dirs } = await twoDrivers(100);
    games[0]!.step(4);
    const name = games[0]!.dump(2);
    expect(name).toBe('detail_s2_800_0.txt');
    const text = readFileSync(join(dirs[0]!, name!), 'utf8');
    expect(text.split('\n')[1]).toBe('partial: no detail round; the keys of this state read at t 800');
    expect(text).toMatch(/\nedges\t.+\t@800\n/);
    expect(text).toMatch(/\npart freeq [0-9a-f]{8}\n/);
    expect(existsSync(join(dirs[1]!, name!))).toBe(false);
    expect(games[0]!.reports()).toEqual([]); // a dump sends no report
  });

  it('a round without detail keeps no keys: a later dump is partial', async () => {
    const { games } = await twoDrivers(100);
    games[0]!.request({ n: 1, at: 0, paused: false, spread: 1 });
    games[0]!.step(3);
    expect(games[0]!.dumpText(1).split('\n')[1]).toMatch(/^partial: /);
  });
});
