// The simulated world's checksum parts: one hash per part, computed from geometry, keys and values,
// never from entity ids (which differ between games), plus the `ids` part for the free-id queue.
// Spec: architecture.txt §8 / prior-projects §4 ("by geometry, never by id"), engine contract checksum().
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { edgeEnds, comparePoints } from './geometry.ts';
import { passengerKeys } from './checksumLanes.ts';
import type { World } from './types.ts';

/** The names of the parts, in the order worldHash joins them. */
export const PART_NAMES = [
  'time', 'money', 'loan', 'nodes', 'edges', 'constructions', 'lines', 'vehicles', 'towns', 'ids',
  'onboard', 'persons', 'stocks',
] as const;
export type PartName = (typeof PART_NAMES)[number];

/** 128 bits of SHA-256, hex. */
function digest(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, 32);
}

const pos = (p: { x: number; y: number }): string => `${p.x},${p.y}`;
const sorted = (rows: string[]): string => rows.sort().join('\n');

/** The canonical text of every part (what is hashed), for diagnostics and tests. */
export function checksumTexts(world: World): Record<PartName, string> {
  const stopPos = (id: number): string => pos(world.constructions.get(id) ?? { x: NaN, y: NaN });
  const lineKey = (id: number): string => world.lines.get(id)?.key ?? '?';
  return {
    time: String(world.time),
    money: String(world.money),
    loan: String(world.loan),
    nodes: sorted([...world.nodes.values()].map(pos)),
    edges: sorted([...world.edges.values()].map((e) => {
      const ends = edgeEnds(world, e).sort(comparePoints);
      return `${e.kind} ${e.owner} ${pos(ends[0])} ${pos(ends[1])}`;
    })),
    constructions: sorted([...world.constructions.values()].map((c) => `${c.file} ${pos(c)} ${c.rot}`)),
    lines: sorted([...world.lines.values()].map((l) => `${l.key} ${l.kind} ${l.stops.map(stopPos).join(' ')}`)),
    vehicles: sorted([...world.vehicles.values()].map((v) =>
      `${v.key} ${lineKey(v.line)} ${v.model} ${v.leg} ${v.progress}`)),
    // The seed decides how the towns grow from here on, so it belongs to them.
    towns: `seed ${world.seed}\n` + sorted([...world.towns.values()].map((t) => `${t.name} ${pos(t)} ${t.population}`)),
    ids: `${world.ids.next} ${world.ids.free.join(',')}`,
    ...passengerTexts(world),
  };
}

/** The passenger parts' texts: the keys of checksumLanes' onboard, persons and stocks parts, sorted. */
function passengerTexts(world: World): Record<'onboard' | 'persons' | 'stocks', string> {
  const keys = passengerKeys(world);
  return { onboard: sorted(keys.onboard), persons: sorted(keys.persons), stocks: sorted(keys.stocks) };
}

/** engine.checksum(): part name → hash string. */
export function checksumParts(world: World): Record<PartName, string> {
  const texts = checksumTexts(world);
  const out = {} as Record<PartName, string>;
  for (const name of PART_NAMES) out[name] = digest(texts[name]);
  return out;
}

/** One hash over every part: equal worlds (as the checksum sees them) have equal hashes. */
export function worldHash(world: World): string {
  const parts = checksumParts(world);
  return digest(PART_NAMES.map((name) => `${name}=${parts[name]}`).join('\n'));
}
