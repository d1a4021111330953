// step: the simulated world advances one step (200 game-ms): vehicles drive their lines and earn
// fares, maintenance and interest are booked, towns grow. Town growth draws from a generator seeded
// by (world seed, time, town), never from the order of earlier draws (architecture.txt §7 item 3).
// Passengers (the checksum parts stocks, onboard, persons; world/passengers.ts) gather at the stations, ride the
// vehicles and stay in the town where they alight until they go home.
import { planEdge, buildEdge } from './graph.ts';
import { dist2, length } from './geometry.ts';
import { hashInts, Rng } from './rng.ts';
import { exchangePassengers, gatherAtStations, visitorsGoHome } from './passengers.ts';
import { CATCHMENT_CM, STEP, VEHICLES, type Point, type Town, type Vehicle, type World } from './types.ts';

/** Maintenance is booked every this many steps (5 game-s). */
export const MAINTENANCE_EVERY = 25;
/** Towns grow and interest is booked every this many steps (10 game-s). */
export const GROWTH_EVERY = 50;

const MAINTENANCE = { edge: 5, construction: 50, vehicle: 150 } as const;

/** Eight directions as exact integer vectors (× 10 000), so no trigonometry decides a position. */
const DIRECTIONS: readonly (readonly [number, number])[] = [
  [10_000, 0], [7_071, 7_071], [0, 10_000], [-7_071, 7_071],
  [-10_000, 0], [-7_071, -7_071], [0, -10_000], [7_071, -7_071],
];

function stopPoint(world: World, id: number): Point {
  return world.constructions.get(id)!;
}

function fareBonus(world: World, at: Point): number {
  let bonus = 0;
  for (const town of world.towns.values()) {
    if (dist2(town, at) <= CATCHMENT_CM * CATCHMENT_CM) bonus += Math.floor(town.population / 20);
  }
  return bonus;
}

function drive(world: World, v: Vehicle): void {
  const line = world.lines.get(v.line)!;
  const type = VEHICLES[v.model]!;
  v.progress += type.speed;
  // At most one stop per stop count of the line per step: a leg is never shorter than 1 cm.
  for (let guard = 0; guard < line.stops.length; guard++) {
    const n = line.stops.length;
    const from = stopPoint(world, line.stops[(v.leg + n - 1) % n]!);
    const to = stopPoint(world, line.stops[v.leg % n]!);
    const leg = Math.max(1, Math.round(length(from, to)));
    if (v.progress < leg) return;
    v.progress -= leg;
    world.money += type.fare + fareBonus(world, to);
    exchangePassengers(world, v, world.constructions.get(line.stops[v.leg % n]!)!);
    v.leg = (v.leg + 1) % n;
  }
  v.progress = 0;
}

function grow(world: World, town: Town): void {
  const rng = new Rng(hashInts(world.seed, world.time, town.id));
  town.population += rng.int(6) + Math.floor(town.population / 1_000);
  if (!rng.chance(0.3)) return;
  // The town extends a street from one of its nodes (or its centre) in one of eight directions.
  const radius = 10_000 + town.population * 20;
  const candidates: Point[] = [];
  for (const node of world.nodes.values()) if (dist2(node, town) <= radius * radius) candidates.push(node);
  const start = candidates.length > 0 ? rng.pick(candidates) : town;
  const [dx, dy] = rng.pick(DIRECTIONS);
  const len = rng.range(2_000, 6_000);
  const end = { x: start.x + Math.round((dx * len) / 10_000), y: start.y + Math.round((dy * len) / 10_000) };
  const plan = planEdge(world, 'road', 'town', start, end);
  if (!('ok' in plan)) buildEdge(world, plan);
}

/** Advances the world by one step: from `world.time` to `world.time + STEP`. */
export function step(world: World): void {
  const n = world.time / STEP;
  for (const v of world.vehicles.values()) drive(world, v);
  if (n % MAINTENANCE_EVERY === MAINTENANCE_EVERY - 1) {
    gatherAtStations(world);
    world.money -= world.edges.size * MAINTENANCE.edge + world.constructions.size * MAINTENANCE.construction +
      world.vehicles.size * MAINTENANCE.vehicle;
  }
  if (n % GROWTH_EVERY === GROWTH_EVERY - 1) {
    world.money -= Math.ceil(world.loan / 2_000);
    visitorsGoHome(world);
    for (const town of world.towns.values()) grow(world, town);
  }
  world.time += STEP;
}
