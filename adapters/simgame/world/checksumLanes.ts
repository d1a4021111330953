// The spec's checksum parts over the simulated world (wire-protocol.txt ChecksumReport 33, "Resync policy", "Light
// rounds", "Spread full rounds"): what the mod reports for a round through engine.checksum(). Light lanes (money, loan,
// lines, script:towns, vehicles) are one hash each; a heavy lane (constructions, edges, nodeConfigs,
// townBuildings:<town>, ids) is the order-free sum of its entities' key hashes, so a chunked read in any order gives
// the same part. Keys are built from geometry and keys, never from entity ids (they differ between games); `ids` is
// the free-id queue itself. The world has no passengers, persons or stocks: those parts are not reported.
// Also the Authority values (money, loan) and their correction (spec Authority 16).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { comparePoints, edgeEnds } from './geometry.ts';
import type { World } from './types.ts';

/** The heavy lanes, read in chunks in a spread round. */
export const HEAVY_LANES = ['constructions', 'edges', 'nodeConfigs', 'townBuildings', 'ids'] as const;

const pos = (p: { x: number; y: number }): string => `${p.x},${p.y}`;

/** 128 bits of SHA-256, hex. */
function digest(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32);
}

/** The order-free sum of the keys' 32-bit hashes, as 8 hex digits. */
function orderFreeSum(keys: Iterable<string>): string {
  let sum = 0;
  for (const key of keys) sum = (sum + parseInt(digest(key).slice(0, 8), 16)) >>> 0;
  return sum.toString(16).padStart(8, '0');
}

/** Each heavy lane's entity keys (a chunk reads a slice of them). */
export function heavyKeys(world: World): Record<string, string[]> {
  const keys: Record<string, string[]> = {
    constructions: [...world.constructions.values()].map((c) => `${c.file} ${pos(c)} ${c.rot}`),
    edges: [...world.edges.values()].map((e) => {
      const ends = edgeEnds(world, e).sort(comparePoints);
      return `${e.kind} ${e.owner} ${pos(ends[0])} ${pos(ends[1])}`;
    }),
    nodeConfigs: [...world.nodes.values()].map(pos),
  };
  for (const town of world.towns.values()) keys[`townBuildings:${town.name}`] = [`${town.name} ${pos(town)} ${town.population}`];
  return keys;
}

/** Every part of a round over the world as it stands. */
export function checksumLanes(world: World): Record<string, string> {
  const stopPos = (id: number): string => pos(world.constructions.get(id) ?? { x: NaN, y: NaN });
  const lineKey = (id: number): string => world.lines.get(id)?.key ?? '?';
  const parts: Record<string, string> = {
    money: digest(String(world.money)),
    loan: digest(String(world.loan)),
    lines: digest([...world.lines.values()].map((l) => `${l.key} ${l.kind} ${l.stops.map(stopPos).join(' ')}`).sort().join('\n')),
    vehicles: orderFreeSum([...world.vehicles.values()].map((v) => `${v.key} ${lineKey(v.line)} ${v.model} ${v.leg} ${v.progress}`)),
    // The seed decides how the towns grow from here on: the towns' script state.
    'script:towns': digest(`seed ${world.seed}`),
    ids: digest(`${world.ids.next} ${world.ids.free.join(',')}`),
  };
  for (const [lane, keys] of Object.entries(heavyKeys(world))) parts[lane] = orderFreeSum(keys);
  return parts;
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
