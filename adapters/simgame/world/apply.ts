// applyCommand: one command applied to the simulated world, deterministically. Everything the
// command names is resolved and checked first; a refusal changes nothing (architecture.txt §6:
// "an action that fails the check is refused, never applied to whatever shares the id").
import { decodeCommand, refuse, type ApplyResult, type Decoded, type Refusal } from './commands.ts';
import { allocateId, freeId } from './freeIds.ts';
import { dist2, comparePoints } from './geometry.ts';
import { buildEdge, findEdge, planEdge, removeEdge } from './graph.ts';
import {
  BULLDOZE_COST, CONSTRUCTIONS, CONSTRUCTION_SPACING_CM, LOAN_UNIT, MAX_LOAN, MAX_SPEND, NODE_MATCH_CM, VEHICLES,
  type Construction, type Line, type Point, type Vehicle, type World,
} from './types.ts';

const OK: ApplyResult = { ok: true };

/** A construction is hit by a bulldozer click within this distance of its position. */
const CONSTRUCTION_HIT_CM = 500;

const metres = (p: Point): string => `(${p.x / 100}, ${p.y / 100})`;

/** What a key is bound to in this world. */
export type Bound = { kind: 'line'; line: Line } | { kind: 'vehicle'; vehicle: Vehicle } | undefined;

/** Resolves an entity key (`<sender>:<seq>` or `s:<id>`) to the line or vehicle bound to it. */
export function findByKey(world: World, key: string): Bound {
  for (const line of world.lines.values()) if (line.key === key) return { kind: 'line', line };
  for (const vehicle of world.vehicles.values()) if (vehicle.key === key) return { kind: 'vehicle', vehicle };
  return undefined;
}

/** The construction nearest to `p` within `radius` cm (ties: the smallest position). */
export function constructionNear(world: World, p: Point, radius: number): Construction | undefined {
  let best: Construction | undefined;
  let bestD = radius * radius;
  for (const c of world.constructions.values()) {
    const d = dist2(c, p);
    if (d > bestD) continue;
    if (best === undefined || d < bestD || comparePoints(c, best) < 0) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

function charge(world: World, cost: number, what: string): Refusal | null {
  if (world.money >= cost) return null;
  return refuse('company', `not enough money for ${what} (${cost} needed, ${world.money} held)`);
}

function bulldoze(world: World, at: Point): ApplyResult {
  const c = constructionNear(world, at, CONSTRUCTION_HIT_CM);
  if (c !== undefined) {
    for (const line of world.lines.values()) {
      if (line.stops.includes(c.id)) {
        return refuse('engine', `construction at ${metres(c)} is a stop of line ${line.key}`);
      }
    }
    const poor = charge(world, BULLDOZE_COST, 'bulldozing');
    if (poor) return poor;
    world.constructions.delete(c.id);
    freeId(world.ids, c.id);
    world.money -= BULLDOZE_COST;
    return OK;
  }
  const edge = findEdge(world, at, null);
  if (edge === undefined) return refuse('engine', `nothing to bulldoze at ${metres(at)}`);
  const poor = charge(world, BULLDOZE_COST, 'bulldozing');
  if (poor) return poor;
  removeEdge(world, edge);
  world.money -= BULLDOZE_COST;
  return OK;
}

function buildConstruction(world: World, file: string, at: Point, rot: number): ApplyResult {
  const type = CONSTRUCTIONS[file];
  if (type === undefined) return refuse('engine', `unknown construction ${file}`);
  if (constructionNear(world, at, CONSTRUCTION_SPACING_CM)) {
    return refuse('engine', `too close to another construction at ${metres(at)}`);
  }
  const poor = charge(world, type.cost, file);
  if (poor) return poor;
  const c = { id: allocateId(world.ids), file, x: at.x, y: at.y, rot, stock: 0 };
  world.constructions.set(c.id, c);
  world.money -= type.cost;
  return OK;
}

function createLine(world: World, key: string, stops: readonly Point[]): ApplyResult {
  if (findByKey(world, key)) return refuse('engine', `key ${key} is bound already`);
  const ids: number[] = [];
  let kind: Line['kind'] | null = null;
  for (const [i, p] of stops.entries()) {
    const c = constructionNear(world, p, NODE_MATCH_CM);
    const type = c && CONSTRUCTIONS[c.file];
    const which = `stop ${i + 1}`;
    if (c === undefined || !type || type.stop === null) return refuse('engine', `${which}: no station at ${metres(p)}`);
    if (kind !== null && type.stop !== kind) return refuse('engine', `${which}: a ${type.stop} stop on a ${kind} line`);
    if (ids[ids.length - 1] === c.id) return refuse('engine', `${which}: the same station twice in a row`);
    kind = type.stop;
    ids.push(c.id);
  }
  if (ids[0] === ids[ids.length - 1]) return refuse('engine', 'the last stop is the first');
  const line = { id: allocateId(world.ids), key, kind: kind!, stops: ids };
  world.lines.set(line.id, line);
  return OK;
}

function buyVehicle(world: World, key: string, lineKey: string, model: string): ApplyResult {
  if (findByKey(world, key)) return refuse('engine', `key ${key} is bound already`);
  const bound = findByKey(world, lineKey);
  if (bound === undefined) return refuse('engine', `line ${lineKey} not found`);
  if (bound.kind !== 'line') return refuse('engine', `${lineKey} is a ${bound.kind}, not a line`);
  const type = VEHICLES[model];
  if (type === undefined) return refuse('engine', `unknown vehicle model ${model}`);
  if (type.kind !== bound.line.kind) {
    return refuse('engine', `a ${type.kind} vehicle on the ${bound.line.kind} line ${lineKey}`);
  }
  const poor = charge(world, type.cost, model);
  if (poor) return poor;
  const v = { id: allocateId(world.ids), key, line: bound.line.id, model, leg: 1, progress: 0, onboard: 0 };
  world.vehicles.set(v.id, v);
  world.money -= type.cost;
  return OK;
}

function sellVehicle(world: World, key: string): ApplyResult {
  const bound = findByKey(world, key);
  if (bound === undefined) return refuse('engine', `vehicle ${key} not found`);
  if (bound.kind !== 'vehicle') return refuse('engine', `${key} is a ${bound.kind}, not a vehicle`);
  world.vehicles.delete(bound.vehicle.id);
  freeId(world.ids, bound.vehicle.id);
  world.money += Math.floor((VEHICLES[bound.vehicle.model]?.cost ?? 0) / 2);
  return OK;
}

function money(world: World, cmd: Extract<Decoded, { amount: number }>): ApplyResult {
  const { amount } = cmd;
  if (cmd.type === 'spend') {
    if (amount > MAX_SPEND) return refuse('engine', `spend: at most ${MAX_SPEND} at once`);
    const poor = charge(world, amount, 'spending');
    if (poor) return poor;
    world.money -= amount;
    return OK;
  }
  if (amount % LOAN_UNIT !== 0) return refuse('engine', `loan amounts are multiples of ${LOAN_UNIT}`);
  if (cmd.type === 'takeLoan') {
    if (world.loan + amount > MAX_LOAN) return refuse('company', `the loan may not exceed ${MAX_LOAN}`);
    world.loan += amount;
    world.money += amount;
    return OK;
  }
  if (amount > world.loan) return refuse('company', `repaying ${amount}, the loan is ${world.loan}`);
  const poor = charge(world, amount, 'repaying');
  if (poor) return poor;
  world.loan -= amount;
  world.money -= amount;
  return OK;
}

/**
 * Applies one command (decoded JSON, as it travels) now. Never throws; on refusal the world is
 * unchanged and the result names the class (decode, engine, company) and why.
 */
export function applyCommand(world: World, raw: unknown): ApplyResult {
  const cmd = decodeCommand(raw);
  if ('ok' in cmd) return cmd;
  switch (cmd.type) {
    case 'buildRoad':
    case 'buildTrack': {
      const plan = planEdge(world, cmd.type === 'buildRoad' ? 'road' : 'track', 'player', cmd.from, cmd.to);
      if ('ok' in plan) return plan;
      const poor = charge(world, plan.cost, cmd.type === 'buildRoad' ? 'the road' : 'the track');
      if (poor) return poor;
      buildEdge(world, plan);
      world.money -= plan.cost;
      return OK;
    }
    case 'bulldoze':
      return bulldoze(world, cmd.at);
    case 'buildConstruction':
      return buildConstruction(world, cmd.file, cmd.at, cmd.rot);
    case 'createLine':
      return createLine(world, cmd.key, cmd.stops);
    case 'buyVehicle':
      return buyVehicle(world, cmd.key, cmd.line, cmd.model);
    case 'sellVehicle':
      return sellVehicle(world, cmd.vehicle);
    default:
      return money(world, cmd);
  }
}
