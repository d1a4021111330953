// Positions of the simulated world: metres on the wire, whole centimetres inside, and the matching
// rules of architecture.txt §6 (a road end names a node by position, matched within 1.5 m).
import { NODE_MATCH_CM, type Point, type World, type WorldNode, type Edge } from './types.ts';

/** Metres (any finite number) to whole centimetres; never -0. */
export function toCm(metres: number): number {
  return Math.round(metres * 100) + 0;
}

/** Squared distance in cm². Exact for map coordinates (below 2^53). */
export function dist2(a: Point, b: Point): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return dx * dx + dy * dy;
}

/** Lexicographic order of points: the tie-break that never looks at ids. */
export function comparePoints(a: Point, b: Point): number {
  return a.x - b.x || a.y - b.y;
}

/** The node within 1.5 m of `p`, the nearest (ties: the smallest position), or undefined. */
export function findNode(world: World, p: Point): WorldNode | undefined {
  let best: WorldNode | undefined;
  let bestD = NODE_MATCH_CM * NODE_MATCH_CM;
  for (const node of world.nodes.values()) {
    const d = dist2(node, p);
    if (d > bestD) continue;
    if (best === undefined || d < bestD || comparePoints(node, best) < 0) {
      best = node;
      bestD = d;
    }
  }
  return best;
}

/** Squared distance from `p` to the segment a–b, cm². */
export function segmentDist2(p: Point, a: Point, b: Point): number {
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy;
  if (len2 === 0) return dist2(p, a);
  const t = Math.max(0, Math.min(1, ((p.x - a.x) * vx + (p.y - a.y) * vy) / len2));
  const cx = a.x + t * vx;
  const cy = a.y + t * vy;
  return (p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy);
}

/** The two end nodes of an edge (they always exist in a valid world). */
export function edgeEnds(world: World, edge: Edge): [WorldNode, WorldNode] {
  return [world.nodes.get(edge.a)!, world.nodes.get(edge.b)!];
}

/** Length of a segment in centimetres (a float). */
export function length(a: Point, b: Point): number {
  return Math.sqrt(dist2(a, b));
}
