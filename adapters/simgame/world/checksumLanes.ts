// The spec's checksum parts over the simulated world (wire-protocol.txt ChecksumReport 33, "Resync policy", "Light
// rounds", "Spread full rounds", "The free-id queue part freeq"): what the mod reports for a round through
// engine.checksum() (a round hashed whole) or engine.checksumLists() + engine.checksumRead() (a spread round read in
// chunks, mod/feverlink3_checksum.lua). Light lanes (money, loan, lines, script:towns, vehicles, and the passengers:
// onboard, persons, stocks — world/passengers.ts; none is a heavy part, spec "Light rounds") are one hash each; a
// heavy lane (constructions, edges, nodeConfigs, townBuildings:<town>) is the order-free sum of its entities' key
// hashes, so a chunked read gives the same part as a whole one. Keys are built from geometry and keys, never from
// entity ids (they differ between games); `ids` is the free-id queue itself and `freeq` its order trace
// (world/freeIds.ts).
// Also the Authority values (money, loan) and their correction (spec Authority 16).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { freeqPart } from './freeIds.ts';
import { comparePoints, edgeEnds } from './geometry.ts';
import { isStation } from './passengers.ts';
import type { Construction, Edge, Town, World, WorldNode } from './types.ts';

/** The heavy lanes, read in chunks in a spread round (`ids` is hashed whole at the round's step). */
export const HEAVY_LANES = ['constructions', 'edges', 'nodeConfigs', 'townBuildings', 'ids'] as const;
const TOWN_LANE = 'townBuildings:';

const pos = (p: { x: number; y: number }): string => `${p.x},${p.y}`;

/** 128 bits of SHA-256, hex. */
function digest(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32);
}

/** A key's 32-bit hash: what a heavy lane sums. */
export function keyHash(key: string): number {
  const d = sha256(utf8ToBytes(key));
  return ((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0;
}

/** A 32-bit sum as the part's 8 hex digits. */
export function sumHex(sum: number): string {
  return (sum >>> 0).toString(16).padStart(8, '0');
}

/** The order-free sum of the keys' 32-bit hashes, as 8 hex digits. */
function orderFreeSum(keys: Iterable<string>): string {
  let sum = 0;
  for (const key of keys) sum = (sum + keyHash(key)) >>> 0;
  return sumHex(sum);
}

const constructionKey = (c: Construction): string => `${c.file} ${pos(c)} ${c.rot}`;
const nodeKey = (n: WorldNode): string => pos(n);
const townKey = (t: Town): string => `${t.name} ${pos(t)} ${t.population}`;
function edgeKey(world: World, e: Edge): string {
  const ends = edgeEnds(world, e).sort(comparePoints);
  return `${e.kind} ${e.owner} ${pos(ends[0])} ${pos(ends[1])}`;
}

/** Each heavy lane's entities by id: what its keys are read from. */
function laneEntities(world: World): Record<string, ReadonlyMap<number, unknown>> {
  const lanes: Record<string, ReadonlyMap<number, unknown>> = {
    constructions: world.constructions,
    edges: world.edges,
    nodeConfigs: world.nodes,
  };
  for (const town of world.towns.values()) lanes[`${TOWN_LANE}${town.name}`] = new Map([[town.id, town]]);
  return lanes;
}

/** The key of entity `id` of heavy lane `lane` as it stands, or undefined when the lane no longer holds it. */
export function heavyKey(world: World, lane: string, id: number): string | undefined {
  switch (lane) {
    case 'constructions': {
      const c = world.constructions.get(id);
      return c && constructionKey(c);
    }
    case 'edges': {
      const e = world.edges.get(id);
      return e && edgeKey(world, e);
    }
    case 'nodeConfigs': {
      const n = world.nodes.get(id);
      return n && nodeKey(n);
    }
    default: {
      const t = lane.startsWith(TOWN_LANE) ? world.towns.get(id) : undefined;
      return t && `${TOWN_LANE}${t.name}` === lane ? townKey(t) : undefined;
    }
  }
}

/** Each heavy lane's entity keys as the world stands. */
export function heavyKeys(world: World): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const [lane, entities] of Object.entries(laneEntities(world))) {
    keys[lane] = [...entities.keys()].map((id) => heavyKey(world, lane, id)!);
  }
  return keys;
}

/**
 * Each heavy lane's entity list for a spread round: ids ordered by their key as the world stands (ties by id), an
 * order every game with an equal world shares, so the k-th chunk reads the same entities on every game although
 * their ids differ.
 */
export function heavyLists(world: World): Record<string, number[]> {
  const lists: Record<string, number[]> = {};
  for (const [lane, entities] of Object.entries(laneEntities(world))) {
    const rows = [...entities.keys()].map((id) => ({ id, key: heavyKey(world, lane, id)! }));
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id - b.id));
    lists[lane] = rows.map((r) => r.id);
  }
  return lists;
}

/** One chunk of a heavy lane read as the world stands: the sum of its entities' key hashes (an entity gone adds nothing). */
export function readChunk(world: World, lane: string, ids: readonly number[], withKeys: boolean): { sum: number; count: number; keys?: string[] } {
  let sum = 0;
  let count = 0;
  const keys: string[] = [];
  for (const id of ids) {
    const key = heavyKey(world, lane, id);
    if (key === undefined) {
      if (withKeys) keys.push('(gone)');
      continue;
    }
    sum = (sum + keyHash(key)) >>> 0;
    count += 1;
    if (withKeys) keys.push(key);
  }
  return withKeys ? { sum, count, keys } : { sum, count };
}

/**
 * The passenger parts' keys (world/passengers.ts): onboard = each vehicle's passengers by its key, persons = each
 * town's visitors by its name, stocks = each station's waiting passengers by its position.
 */
export function passengerKeys(world: World): Record<'onboard' | 'persons' | 'stocks', string[]> {
  return {
    onboard: [...world.vehicles.values()].map((v) => `${v.key} ${v.onboard}`),
    persons: [...world.towns.values()].map((t) => `${t.name} ${t.visitors}`),
    stocks: [...world.constructions.values()].filter(isStation).map((c) => `${c.file} ${pos(c)} ${c.stock}`),
  };
}

/** The itemised keys of the light parts (the detail dump lists them). */
export function lightKeys(world: World): Record<string, string[]> {
  const stopPos = (id: number): string => pos(world.constructions.get(id) ?? { x: NaN, y: NaN });
  const lineKey = (id: number): string => world.lines.get(id)?.key ?? '?';
  return {
    money: [String(world.money)],
    loan: [String(world.loan)],
    lines: [...world.lines.values()].map((l) => `${l.key} ${l.kind} ${l.stops.map(stopPos).join(' ')}`).sort(),
    vehicles: [...world.vehicles.values()].map((v) => `${v.key} ${lineKey(v.line)} ${v.model} ${v.leg} ${v.progress}`),
    // The seed decides how the towns grow from here on: the towns' script state.
    'script:towns': [`seed ${world.seed}`],
    ids: [`${world.ids.next} ${world.ids.free.join(',')}`],
    ...passengerKeys(world),
  };
}

/** The parts hashed whole at a round's step: the light lanes, ids and freeq. */
export function lightParts(world: World): Record<string, string> {
  const keys = lightKeys(world);
  return {
    money: digest(keys.money![0]!),
    loan: digest(keys.loan![0]!),
    lines: digest(keys.lines!.join('\n')),
    vehicles: orderFreeSum(keys.vehicles!),
    onboard: orderFreeSum(keys.onboard!),
    persons: orderFreeSum(keys.persons!),
    stocks: orderFreeSum(keys.stocks!),
    'script:towns': digest(keys['script:towns']![0]!),
    ids: digest(keys.ids![0]!),
    freeq: freeqPart(world.ids),
  };
}

/** Every part of a round over the world as it stands (a round hashed whole). */
export function checksumLanes(world: World): Record<string, string> {
  const parts = lightParts(world);
  for (const [lane, keys] of Object.entries(heavyKeys(world))) parts[lane] = orderFreeSum(keys);
  return parts;
}

/** engine.checksumLists(withKeys): what a spread round takes at its step. */
export function checksumLists(world: World, withKeys: boolean): {
  parts: Record<string, string>;
  lanes: Record<string, number[]>;
  keys?: Record<string, string[]>;
} {
  const parts = lightParts(world);
  const lanes = heavyLists(world);
  return withKeys ? { parts, lanes, keys: lightKeys(world) } : { parts, lanes };
}

/** The Authority values of the world: what the host corrects to (money, loan). */
export function authorityValues(world: World): Record<string, number> {
  return { money: world.money, loan: world.loan };
}

/** Applies Authority values (whole units; anything else is ignored). Returns the names changed. */
export function correctAuthority(world: World, values: Readonly<Record<string, number>>): string[] {
  const changed: string[] = [];
  for (const name of ['money', 'loan'] as const) {
    const value = values[name];
    if (value === undefined || !Number.isSafeInteger(value) || world[name] === value) continue;
    world[name] = value;
    changed.push(name);
  }
  return changed;
}
