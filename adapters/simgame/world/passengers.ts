// Passengers in the simulated world: what the spec's checksum parts stocks, onboard and persons cover (wire-protocol
// "Resync policy": drift parts; world/checksumLanes.ts hashes them). Persons of the towns near a station wait there
// (a station's stock), a vehicle that reaches a stop lets its passengers off into the town nearest to the stop (that
// town's visitors) and takes as many waiting ones as it carries (its onboard), and visitors go home over time. Integers
// only, in the world's own iteration order, so equal worlds stay equal (architecture.txt §7).
import { dist2, comparePoints } from './geometry.ts';
import { CATCHMENT_CM, CONSTRUCTIONS, VEHICLES, type Construction, type Point, type Town, type Vehicle, type World } from './types.ts';

/** The most passengers one station holds. */
export const STOCK_MAX = 500;
/** Each town within the catchment adds one waiting passenger per this many inhabitants at each gathering. */
export const PERSONS_PER_PASSENGER = 100;

const inCatchment = (town: Town, at: Point): boolean => dist2(town, at) <= CATCHMENT_CM * CATCHMENT_CM;

/** The town nearest to `at` within the catchment (ties: the smaller position, then the name), or undefined. */
export function townNear(world: World, at: Point): Town | undefined {
  let best: Town | undefined;
  for (const town of world.towns.values()) {
    if (!inCatchment(town, at)) continue;
    if (best === undefined) {
      best = town;
      continue;
    }
    const d = dist2(town, at) - dist2(best, at);
    if (d < 0 || (d === 0 && (comparePoints(town, best) || (town.name < best.name ? -1 : 1)) < 0)) best = town;
  }
  return best;
}

/** Persons of the towns near each station come to wait there (booked with the maintenance, every 5 game-s). */
export function gatherAtStations(world: World): void {
  for (const c of world.constructions.values()) {
    if (!isStation(c)) continue;
    let arriving = 0;
    for (const town of world.towns.values()) if (inCatchment(town, c)) arriving += Math.floor(town.population / PERSONS_PER_PASSENGER);
    c.stock = Math.min(STOCK_MAX, c.stock + arriving);
  }
}

/** A vehicle at a stop: its passengers alight into the town nearest to the stop, then the waiting ones board. */
export function exchangePassengers(world: World, v: Vehicle, stop: Construction): void {
  const town = townNear(world, stop);
  if (town !== undefined) town.visitors += v.onboard;
  const boarding = Math.min(VEHICLES[v.model]?.capacity ?? 0, stop.stock);
  stop.stock -= boarding;
  v.onboard = boarding;
}

/** Half of every town's visitors (rounded up) go home (booked with the growth, every 10 game-s). */
export function visitorsGoHome(world: World): void {
  for (const town of world.towns.values()) town.visitors = Math.floor(town.visitors / 2);
}

/** A construction passengers wait at (a stop of some line kind; a depot is none). */
export function isStation(c: Construction): boolean {
  return (CONSTRUCTIONS[c.file]?.stop ?? null) !== null;
}
