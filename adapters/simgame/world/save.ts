// The simulated game's save format: versioned JSON holding the whole world, entities in the order
// the running world holds them, so a loaded world steps exactly like the one that was saved.
// A save read from disk is checked completely; a bad one gives a reason, never an exception.
import {
  CONSTRUCTIONS, EDGE_KINDS, MAX_LOAN, OWNERS, STEP, VEHICLES,
  type Construction, type Edge, type Line, type Town, type Vehicle, type World, type WorldNode,
} from './types.ts';

export const SAVE_FORMAT = 'feverlink3-simgame';
export const SAVE_VERSION = 1;

/** The world as JSON text (one line, UTF-8). */
export function serializeWorld(world: World): string {
  return JSON.stringify({
    format: SAVE_FORMAT,
    version: SAVE_VERSION,
    world: {
      seed: world.seed,
      time: world.time,
      money: world.money,
      loan: world.loan,
      ids: { next: world.ids.next, free: world.ids.free },
      nodes: [...world.nodes.values()],
      edges: [...world.edges.values()],
      constructions: [...world.constructions.values()],
      lines: [...world.lines.values()],
      vehicles: [...world.vehicles.values()],
      towns: [...world.towns.values()],
    },
  });
}

export type LoadResult = { ok: true; world: World } | { ok: false; reason: string };

class Bad extends Error {}

type Obj = Record<string, unknown>;
const obj = (v: unknown, what: string): Obj => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Bad(`${what}: expected an object`);
  return v as Obj;
};
const int = (v: unknown, what: string, min = Number.MIN_SAFE_INTEGER): number => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new Bad(`${what}: expected a whole number ≥ ${min}`);
  }
  return v;
};
const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 200) throw new Bad(`${what}: expected a string`);
  return v;
};
const list = (v: unknown, what: string): unknown[] => {
  if (!Array.isArray(v)) throw new Bad(`${what}: expected a list`);
  return v;
};
const oneOf = <T extends string>(v: unknown, allowed: Readonly<Record<string, T>>, what: string): T => {
  if (typeof v !== 'string' || !Object.hasOwn(allowed, v)) throw new Bad(`${what}: unknown value`);
  return v as T;
};
/** A count the first saves did not hold (passengers: world/passengers.ts): absent reads as 0, present is checked. */
const count = (v: unknown, what: string): number => (v === undefined ? 0 : int(v, what, 0));
const KEY = /^[A-Za-z0-9_.-]{1,40}:[0-9]{1,15}$/;

function readWorld(raw: unknown): World {
  const doc = obj(raw, 'save');
  if (doc.format !== SAVE_FORMAT) throw new Bad('not a simulated-game save');
  if (doc.version !== SAVE_VERSION) throw new Bad(`save version ${String(doc.version)} is not ${SAVE_VERSION}`);
  const w = obj(doc.world, 'world');
  const ids = obj(w.ids, 'ids');
  const world: World = {
    seed: int(w.seed, 'seed', 0),
    time: int(w.time, 'time', 0),
    money: int(w.money, 'money'),
    loan: int(w.loan, 'loan', 0),
    ids: { next: int(ids.next, 'ids.next', 1), free: list(ids.free, 'ids.free').map((v) => int(v, 'ids.free', 1)) },
    nodes: new Map(),
    edges: new Map(),
    constructions: new Map(),
    lines: new Map(),
    vehicles: new Map(),
    towns: new Map(),
  };
  if (world.seed > 0xffff_ffff) throw new Bad('seed: above 2^32');
  if (world.time % STEP !== 0) throw new Bad(`time: not a multiple of ${STEP}`);
  if (world.loan > MAX_LOAN) throw new Bad('loan: above the credit line');
  const used = new Set<number>();
  const claim = (v: unknown, what: string): number => {
    const id = int(v, `${what}.id`, 1);
    if (id >= world.ids.next) throw new Bad(`${what}: id ${id} was never handed out`);
    if (used.has(id)) throw new Bad(`${what}: id ${id} used twice`);
    used.add(id);
    return id;
  };
  for (const r of list(w.nodes, 'nodes')) {
    const o = obj(r, 'node');
    const n: WorldNode = { id: claim(o.id, 'node'), x: int(o.x, 'node.x'), y: int(o.y, 'node.y') };
    world.nodes.set(n.id, n);
  }
  for (const r of list(w.edges, 'edges')) {
    const o = obj(r, 'edge');
    const e: Edge = {
      id: claim(o.id, 'edge'), a: int(o.a, 'edge.a'), b: int(o.b, 'edge.b'),
      kind: oneOf(o.kind, EDGE_KINDS, 'edge.kind'), owner: oneOf(o.owner, OWNERS, 'edge.owner'),
    };
    if (!world.nodes.has(e.a) || !world.nodes.has(e.b)) throw new Bad(`edge ${e.id}: an end node is missing`);
    world.edges.set(e.id, e);
  }
  for (const r of list(w.constructions, 'constructions')) {
    const o = obj(r, 'construction');
    const c: Construction = {
      id: claim(o.id, 'construction'), file: str(o.file, 'construction.file'),
      x: int(o.x, 'construction.x'), y: int(o.y, 'construction.y'), rot: int(o.rot, 'construction.rot', 0),
      stock: count(o.stock, 'construction.stock'),
    };
    if (!Object.hasOwn(CONSTRUCTIONS, c.file) || c.rot > 359) {
      throw new Bad(`construction ${c.id}: bad file or rotation`);
    }
    world.constructions.set(c.id, c);
  }
  const keys = new Set<string>();
  const key = (v: unknown, what: string): string => {
    const k = str(v, what);
    if (!KEY.test(k) || keys.has(k)) throw new Bad(`${what}: bad or repeated key`);
    keys.add(k);
    return k;
  };
  for (const r of list(w.lines, 'lines')) {
    const o = obj(r, 'line');
    const l: Line = {
      id: claim(o.id, 'line'), key: key(o.key, 'line.key'), kind: oneOf(o.kind, EDGE_KINDS, 'line.kind'),
      stops: list(o.stops, 'line.stops').map((s) => int(s, 'line.stops')),
    };
    if (l.stops.length < 2) throw new Bad(`line ${l.key}: fewer than two stops`);
    for (const s of l.stops) {
      const c = world.constructions.get(s);
      if (c === undefined || CONSTRUCTIONS[c.file]?.stop !== l.kind) {
        throw new Bad(`line ${l.key}: stop ${s} is no ${l.kind} stop`);
      }
    }
    world.lines.set(l.id, l);
  }
  for (const r of list(w.vehicles, 'vehicles')) {
    const o = obj(r, 'vehicle');
    const v: Vehicle = {
      id: claim(o.id, 'vehicle'), key: key(o.key, 'vehicle.key'), line: int(o.line, 'vehicle.line'),
      model: str(o.model, 'vehicle.model'),
      leg: int(o.leg, 'vehicle.leg', 0),
      progress: int(o.progress, 'vehicle.progress', 0),
      onboard: count(o.onboard, 'vehicle.onboard'),
    };
    const line = world.lines.get(v.line);
    if (line === undefined || VEHICLES[v.model]?.kind !== line.kind || v.leg >= line.stops.length) {
      throw new Bad(`vehicle ${v.key}: bad line, model or leg`);
    }
    if (v.onboard > VEHICLES[v.model]!.capacity) throw new Bad(`vehicle ${v.key}: more passengers than it carries`);
    world.vehicles.set(v.id, v);
  }
  for (const r of list(w.towns, 'towns')) {
    const o = obj(r, 'town');
    const t: Town = {
      id: claim(o.id, 'town'), name: str(o.name, 'town.name'),
      x: int(o.x, 'town.x'), y: int(o.y, 'town.y'), population: int(o.population, 'town.population', 0),
      visitors: count(o.visitors, 'town.visitors'),
    };
    world.towns.set(t.id, t);
  }
  const free = new Set<number>();
  for (const id of world.ids.free) {
    if (id >= world.ids.next || used.has(id) || free.has(id)) {
      throw new Bad(`ids.free: ${id} is in use, repeated or never handed out`);
    }
    free.add(id);
  }
  return world;
}

/** Reads a save; a damaged or foreign file gives `{ ok: false, reason }`. */
export function deserializeWorld(text: string): LoadResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  try {
    return { ok: true, world: readWorld(raw) };
  } catch (e) {
    if (e instanceof Bad) return { ok: false, reason: e.message };
    throw e;
  }
}

/** A deep copy of a world (through the save format, so it is exactly what a load gives). */
export function cloneWorld(world: World): World {
  const r = deserializeWorld(serializeWorld(world));
  if (!r.ok) throw new Error(`cloneWorld: ${r.reason}`);
  return r.world;
}
