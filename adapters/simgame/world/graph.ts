// The road/track graph of the simulated world: building an edge between two positions (ends matched
// to nodes within 1.5 m, else an edge of the same kind there is split, else a node is created) and
// removing one. Spec: architecture.txt §6 "Entity references: roads as node positions".
import { refuse, type Refusal } from './commands.ts';
import { allocateId, freeId } from './freeIds.ts';
import { comparePoints, edgeEnds, findNode, length, segmentDist2 } from './geometry.ts';
import {
  COST_PER_M, MAX_EDGE_CM, MIN_EDGE_CM, NODE_MATCH_CM,
  type Edge, type EdgeKind, type Owner, type Point, type World, type WorldNode,
} from './types.ts';

/** How one end of a new edge is found: an existing node, a split of an existing edge, or a new node. */
type End =
  | { how: 'node'; node: WorldNode }
  | { how: 'split'; edge: Edge; at: Point }
  | { how: 'new'; at: Point };

const endPoint = (end: End): Point => (end.how === 'node' ? end.node : end.at);

/** The edge of `kind` within 1.5 m of `p`, the nearest (ties: the smallest end positions). */
export function findEdge(world: World, p: Point, kind: EdgeKind | null): Edge | undefined {
  let best: Edge | undefined;
  let bestD = NODE_MATCH_CM * NODE_MATCH_CM;
  let bestKey: Point[] = [];
  for (const edge of world.edges.values()) {
    if (kind !== null && edge.kind !== kind) continue;
    const [a, b] = edgeEnds(world, edge);
    const d = segmentDist2(p, a, b);
    if (d > bestD) continue;
    const key = comparePoints(a, b) <= 0 ? [a, b] : [b, a];
    if (best === undefined || d < bestD || comparePoints(key[0]!, bestKey[0]!) < 0 ||
      (comparePoints(key[0]!, bestKey[0]!) === 0 && comparePoints(key[1]!, bestKey[1]!) < 0)) {
      best = edge;
      bestD = d;
      bestKey = key;
    }
  }
  return best;
}

function resolveEnd(world: World, p: Point, kind: EdgeKind): End {
  const node = findNode(world, p);
  if (node !== undefined) return { how: 'node', node };
  const edge = findEdge(world, p, kind);
  if (edge !== undefined) return { how: 'split', edge, at: p };
  return { how: 'new', at: p };
}

/** Does `end` lie on edge `e` (is it one of its nodes, or does it split it)? */
function touches(end: End, e: Edge): boolean {
  if (end.how === 'node') return end.node.id === e.a || end.node.id === e.b;
  return end.how === 'split' && end.edge.id === e.id;
}

/** What building from → to would do, checked completely, or why not. Changes nothing. */
export interface EdgePlan {
  readonly kind: EdgeKind;
  readonly owner: Owner;
  readonly ends: readonly [End, End];
  readonly cost: number;
}

export function planEdge(world: World, kind: EdgeKind, owner: Owner, from: Point, to: Point): EdgePlan | Refusal {
  const a = resolveEnd(world, from, kind);
  const b = resolveEnd(world, to, kind);
  if (a.how === 'node' && b.how === 'node' && a.node.id === b.node.id) {
    return refuse('engine', 'both ends are the same node');
  }
  const len = length(endPoint(a), endPoint(b));
  if (len < MIN_EDGE_CM) return refuse('engine', `too short (${(len / 100).toFixed(1)} m)`);
  if (len > MAX_EDGE_CM) return refuse('engine', `too long (${(len / 100).toFixed(1)} m)`);
  for (const [x, y] of [[a, b], [b, a]] as const) {
    if (x.how === 'split' && touches(y, x.edge)) return refuse('engine', 'lies along an existing edge');
  }
  if (a.how === 'node' && b.how === 'node') {
    for (const e of world.edges.values()) {
      if (e.kind === kind && touches(a, e) && touches(b, e)) return refuse('engine', `that ${kind} exists already`);
    }
  }
  return { kind, owner, ends: [a, b], cost: Math.ceil((len / 100) * COST_PER_M[kind]) };
}

function addNode(world: World, p: Point): WorldNode {
  const node = { id: allocateId(world.ids), x: p.x, y: p.y };
  world.nodes.set(node.id, node);
  return node;
}

function addEdge(world: World, a: number, b: number, kind: EdgeKind, owner: Owner): Edge {
  const edge = { id: allocateId(world.ids), a, b, kind, owner };
  world.edges.set(edge.id, edge);
  return edge;
}

/** Splits `edge` at `p`: the edge goes, a node and two edges of the same kind and owner come. */
function split(world: World, edge: Edge, p: Point): WorldNode {
  world.edges.delete(edge.id);
  freeId(world.ids, edge.id);
  const node = addNode(world, p);
  addEdge(world, edge.a, node.id, edge.kind, edge.owner);
  addEdge(world, node.id, edge.b, edge.kind, edge.owner);
  return node;
}

/** Carries out a plan made by planEdge on the same, unchanged world. Returns the new edge. */
export function buildEdge(world: World, plan: EdgePlan): Edge {
  const ids = plan.ends.map((end) => {
    if (end.how === 'node') return end.node.id;
    if (end.how === 'split') return split(world, end.edge, end.at).id;
    return addNode(world, end.at).id;
  });
  return addEdge(world, ids[0]!, ids[1]!, plan.kind, plan.owner);
}

/** Removes an edge and every end node no other edge uses; frees their ids (edge first, then a, then b). */
export function removeEdge(world: World, edge: Edge): void {
  world.edges.delete(edge.id);
  freeId(world.ids, edge.id);
  for (const nodeId of edge.a === edge.b ? [edge.a] : [edge.a, edge.b]) {
    let used = false;
    for (const e of world.edges.values()) {
      if (e.a === nodeId || e.b === nodeId) {
        used = true;
        break;
      }
    }
    if (!used) {
      world.nodes.delete(nodeId);
      freeId(world.ids, nodeId);
    }
  }
}
