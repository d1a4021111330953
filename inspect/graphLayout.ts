// A simple layered layout of a chart (inspect/chartDefinition.ts) for the page to draw as SVG: inside each compound
// state its children stand in columns by their distance from the initial child along the transitions between them
// (breadth first; the unreachable ones in a last column), stacked top down in each column; a compound's box wraps
// its children under its name. Transitions with a target become edges between box borders with the event as label;
// targetless ones (actions only) are left to the state's details. Pure and deterministic: tested in
// test/inspect/graphLayout.test.ts, run in the browser.
import type { ChartDefinition, ChartTransition } from './chartDefinition.ts';

export interface Box {
  id: string;
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Nesting depth: 0 for the root. */
  depth: number;
  compound: boolean;
}

export interface Edge {
  transition: ChartTransition;
  target: string;
  /** Start and end on the borders of the source's and target's boxes; a self transition loops out of the right side. */
  from: Point;
  to: Point;
  /** Where the label goes. */
  label: Point;
  self: boolean;
}

export interface Point {
  x: number;
  y: number;
}

export interface Layout {
  boxes: Record<string, Box>;
  edges: Edge[];
  width: number;
  height: number;
}

export const LAYOUT = {
  leafHeight: 34,
  minLeafWidth: 90,
  charWidth: 7.2,
  padding: 14,
  header: 24,
  columnGap: 70,
  rowGap: 22,
} as const;

interface Sized {
  w: number;
  h: number;
  /** Child id → its offset inside this box. */
  offsets: Map<string, Point>;
}

export function layoutChart(chart: ChartDefinition): Layout {
  const sized = new Map<string, Sized>();
  const size = (id: string): Sized => {
    const known = sized.get(id);
    if (known) return known;
    const state = chart.states[id]!;
    const labelWidth = state.key.length * LAYOUT.charWidth + 2 * LAYOUT.padding;
    if (state.children.length === 0) {
      const leaf = { w: Math.max(LAYOUT.minLeafWidth, labelWidth), h: LAYOUT.leafHeight, offsets: new Map() };
      sized.set(id, leaf);
      return leaf;
    }
    const columns = columnsOf(chart, id);
    const offsets = new Map<string, Point>();
    let x = LAYOUT.padding;
    let bottom = 0;
    for (const column of columns) {
      let y = LAYOUT.header;
      let columnWidth = 0;
      for (const child of column) {
        const s = size(child);
        offsets.set(child, { x, y });
        y += s.h + LAYOUT.rowGap;
        columnWidth = Math.max(columnWidth, s.w);
      }
      bottom = Math.max(bottom, y - LAYOUT.rowGap);
      x += columnWidth + LAYOUT.columnGap;
    }
    const inner = x - LAYOUT.columnGap + LAYOUT.padding;
    const box = { w: Math.max(inner, labelWidth), h: bottom + LAYOUT.padding, offsets };
    sized.set(id, box);
    return box;
  };

  const boxes: Record<string, Box> = {};
  const place = (id: string, x: number, y: number, depth: number) => {
    const s = size(id);
    const state = chart.states[id]!;
    boxes[id] = { id, label: state.key, x, y, w: s.w, h: s.h, depth, compound: state.children.length > 0 };
    for (const [child, off] of s.offsets) place(child, x + off.x, y + off.y, depth + 1);
  };
  place(chart.id, 0, 0, 0);

  const edges: Edge[] = [];
  for (const t of chart.transitions) {
    for (const target of t.targets) {
      const a = boxes[t.source];
      const b = boxes[target];
      if (!a || !b) continue;
      edges.push(edgeBetween(t, target, a, b));
    }
  }
  const root = boxes[chart.id]!;
  return { boxes, edges, width: root.w, height: root.h };
}

/** The children of compound `id` in columns: breadth-first distance from the initial child. */
export function columnsOf(chart: ChartDefinition, id: string): string[][] {
  const state = chart.states[id]!;
  const children = state.children;
  const siblingOf = (stateId: string): string | undefined => {
    let cur: string | undefined = stateId;
    while (cur !== undefined) {
      const parent: string | undefined = chart.states[cur]?.parent;
      if (parent === id) return cur;
      cur = parent;
    }
    return undefined;
  };
  const next = new Map<string, string[]>(children.map((c) => [c, []]));
  for (const t of chart.transitions) {
    const from = siblingOf(t.source);
    if (from === undefined) continue;
    for (const target of t.targets) {
      const to = siblingOf(target);
      if (to !== undefined && to !== from && !next.get(from)!.includes(to)) next.get(from)!.push(to);
    }
  }
  const rank = new Map<string, number>();
  const start = state.initial !== undefined && children.includes(state.initial) ? state.initial : children[0]!;
  rank.set(start, 0);
  const queue = [start];
  while (queue.length > 0) {
    const cur = queue.shift()!;
    for (const to of next.get(cur)!) {
      if (!rank.has(to)) {
        rank.set(to, rank.get(cur)! + 1);
        queue.push(to);
      }
    }
  }
  const last = Math.max(...rank.values()) + 1;
  const columns: string[][] = [];
  for (const child of children) {
    const r = rank.get(child) ?? last;
    (columns[r] ??= []).push(child);
  }
  return columns.filter((c) => c !== undefined);
}

function edgeBetween(transition: ChartTransition, target: string, a: Box, b: Box): Edge {
  if (a.id === b.id) {
    const from = { x: a.x + a.w, y: a.y + a.h * 0.3 };
    const to = { x: a.x + a.w, y: a.y + a.h * 0.7 };
    return { transition, target, from, to, label: { x: a.x + a.w + 6, y: a.y + a.h / 2 }, self: true };
  }
  const ca = center(a);
  const cb = center(b);
  const from = border(a, cb);
  const to = border(b, ca);
  return { transition, target, from, to, label: { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 - 4 }, self: false };
}

function center(b: Box): Point {
  return { x: b.x + b.w / 2, y: b.y + b.h / 2 };
}

/** Where the line from the box's center toward `toward` leaves the box. */
export function border(b: Box, toward: Point): Point {
  const c = center(b);
  const dx = toward.x - c.x;
  const dy = toward.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const sx = dx === 0 ? Infinity : b.w / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : b.h / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return { x: c.x + dx * s, y: c.y + dy * s };
}
