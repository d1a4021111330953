// createWorld: a new simulated world from a seed alone (towns with a street cross each, a bus line
// with one bus in the first town, money and a loan), so `--make-save FILE --seed N` is reproducible.
// The save's own line and vehicle carry `s:<id>` keys (architecture.txt §6).
import { allocateId } from './freeIds.ts';
import { buildEdge, planEdge } from './graph.ts';
import { dist2 } from './geometry.ts';
import { hashInts, Rng } from './rng.ts';
import type { Point, World } from './types.ts';

const TOWN_NAMES = [
  'Aldbury', 'Brenford', 'Calloway', 'Dunmere', 'Eastwick', 'Fairholt', 'Glenrock', 'Harrowgate',
  'Ironbridge', 'Kestrel', 'Longmead', 'Marlow', 'Northam', 'Oakridge', 'Pemberton', 'Redcliff',
] as const;

/** Starting balance and loan of a new world. */
export const START_MONEY = 5_000_000;
export const START_LOAN = 2_000_000;

/** An empty world (no towns): the base of createWorld and of tests. */
export function emptyWorld(seed: number): World {
  return {
    seed: seed >>> 0,
    time: 0,
    money: START_MONEY,
    loan: START_LOAN,
    ids: { next: 1, free: [] },
    nodes: new Map(),
    edges: new Map(),
    constructions: new Map(),
    lines: new Map(),
    vehicles: new Map(),
    towns: new Map(),
  };
}

function road(world: World, a: Point, b: Point): void {
  const plan = planEdge(world, 'road', 'town', a, b);
  if (!('ok' in plan)) buildEdge(world, plan);
}

/** A new world, the same for the same seed. */
export function createWorld(seed: number): World {
  const world = emptyWorld(seed);
  const rng = new Rng(hashInts(world.seed, 0x5eed));
  const count = 3 + rng.int(3);
  const names = [...TOWN_NAMES];
  const centres: Point[] = [];
  for (let tries = 0; centres.length < count && tries < 200; tries++) {
    const p = { x: rng.range(-300_000, 300_000), y: rng.range(-300_000, 300_000) };
    if (centres.every((c) => dist2(c, p) >= 100_000 * 100_000)) centres.push(p);
  }
  for (const c of centres) {
    const name = names.splice(rng.int(names.length), 1)[0]!;
    const town = { id: allocateId(world.ids), name, x: c.x, y: c.y, population: rng.range(200, 1_200), visitors: 0 };
    world.towns.set(town.id, town);
    for (const [dx, dy] of [[1, 0], [0, 1], [-1, 0], [0, -1]] as const) {
      const arm = rng.range(2_000, 5_000);
      road(world, c, { x: c.x + dx * arm, y: c.y + dy * arm });
    }
  }
  const first = centres[0];
  if (first !== undefined) {
    const file = 'station/street/bus_stop.con';
    const stops = [
      { id: allocateId(world.ids), file, x: first.x + 1_000, y: first.y + 500, rot: 0, stock: 0 },
      { id: allocateId(world.ids), file, x: first.x - 1_500, y: first.y - 2_500, rot: 90, stock: 0 },
    ];
    for (const s of stops) world.constructions.set(s.id, s);
    const lineId = allocateId(world.ids);
    world.lines.set(lineId, { id: lineId, key: `s:${lineId}`, kind: 'road', stops: stops.map((s) => s.id) });
    const busId = allocateId(world.ids);
    const model = 'vehicle/bus/city_bus.mdl';
    world.vehicles.set(busId, { id: busId, key: `s:${busId}`, line: lineId, model, leg: 1, progress: 0, onboard: 0 });
  }
  return world;
}

/** The heavy lanes' entities of a world: what a spread checksum round reads in chunks. */
export function heavyEntityCount(world: World): number {
  return world.edges.size + world.nodes.size + world.constructions.size + world.towns.size;
}

/**
 * A world of at least `entities` heavy-lane entities (spread checksum rounds' benches and tests): createWorld(seed),
 * then rows of town roads (100 m apart, nodes every 100 m) north of the towns until the count is reached.
 */
export function createBigWorld(seed: number, entities: number): World {
  const world = createWorld(seed);
  const SPACING = 10_000;
  const ROW_NODES = 150;
  for (let row = 0; heavyEntityCount(world) < entities && row < 150; row++) {
    const y = 500_000 + row * SPACING;
    for (let i = 0; i + 1 < ROW_NODES && heavyEntityCount(world) < entities; i++) {
      const x = -900_000 + i * SPACING;
      road(world, { x, y }, { x: x + SPACING, y });
    }
  }
  return world;
}
