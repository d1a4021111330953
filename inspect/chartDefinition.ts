// A state machine's definition as the inspector draws it: its states (nested, with type, initial child and
// `description`) and its transitions (event, guard, targets; a delayed one as `after <delay>`), plain JSON. Made
// server-side from the very machine objects of machines/ (inspect/machineCatalog.ts) or from a running actor's
// logic (inspect/liveFeed.ts), so the page draws what the launcher runs. Pure: no `node:`, runs in the browser too.

export interface ChartState {
  /** The state's id without `#` (`playerSlot.Away`); the root's is the machine id. */
  id: string;
  key: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history' | string;
  parent?: string;
  /** The initial child's id (compound states). */
  initial?: string;
  description?: string;
  children: string[];
}

export interface ChartTransition {
  source: string;
  /** Target ids; empty for a targetless transition (actions only). */
  targets: string[];
  /** The event type (`recv.Leave`), `after <delay>` for a delayed transition, `always` for an eventless one. */
  event: string;
  guard?: string;
}

export interface ChartDefinition {
  /** The machine id (`playerSlot`). */
  id: string;
  states: Record<string, ChartState>;
  transitions: ChartTransition[];
}

/** The parts of XState's StateNodeDefinition read here. */
interface NodeDefinitionLike {
  id: string;
  key: string;
  type: string;
  description?: string;
  initial?: { target?: readonly (string | { id?: string })[] };
  states?: Record<string, NodeDefinitionLike>;
  transitions?: readonly TransitionDefinitionLike[];
  always?: readonly TransitionDefinitionLike[];
}

interface TransitionDefinitionLike {
  eventType?: string | null;
  target?: readonly (string | { id?: string })[];
  guard?: { type?: unknown } | null;
}

const AFTER = 'xstate.after.';

/** The definition of a state machine (anything with XState's `definition`), or undefined for other logic. */
export function chartOf(machine: unknown): ChartDefinition | undefined {
  const m = machine as { definition?: NodeDefinitionLike; root?: unknown } | null;
  if (!m || typeof m !== 'object' || m.root === undefined) return undefined;
  let root: NodeDefinitionLike | undefined;
  try {
    root = m.definition;
  } catch {
    return undefined;
  }
  if (!root || typeof root.id !== 'string') return undefined;
  const chart: ChartDefinition = { id: root.id, states: {}, transitions: [] };
  walk(root, undefined, chart);
  return chart;
}

function walk(node: NodeDefinitionLike, parent: string | undefined, chart: ChartDefinition): void {
  const children = Object.values(node.states ?? {});
  const state: ChartState = { id: node.id, key: node.key, type: node.type, children: children.map((c) => c.id) };
  if (parent !== undefined) state.parent = parent;
  const initial = targetIds(node.initial?.target)[0];
  if (initial !== undefined && children.length > 0) state.initial = initial;
  if (typeof node.description === 'string' && node.description.length > 0) state.description = node.description;
  chart.states[node.id] = state;
  const transitions = [...(node.transitions ?? []), ...(node.always ?? []).map((t) => ({ ...t, eventType: '' }))];
  for (const t of transitions) {
    const edge: ChartTransition = { source: node.id, targets: targetIds(t.target), event: eventName(t.eventType) };
    const guard = t.guard?.type;
    if (typeof guard === 'string') edge.guard = guard;
    else if (typeof guard === 'function') edge.guard = (guard as { name?: string }).name || 'guard';
    chart.transitions.push(edge);
  }
  for (const child of children) walk(child, node.id, chart);
}

/** `xstate.after.reconnectWindow.playerSlot.Away` → `after reconnectWindow`; '' → `always`. */
export function eventName(eventType: string | null | undefined): string {
  if (!eventType) return 'always';
  if (eventType.startsWith(AFTER)) {
    const rest = eventType.slice(AFTER.length);
    const dot = rest.indexOf('.');
    return `after ${dot < 0 ? rest : rest.slice(0, dot)}`;
  }
  return eventType;
}

function targetIds(targets: readonly (string | { id?: string })[] | undefined): string[] {
  const out: string[] = [];
  for (const t of targets ?? []) {
    const id = typeof t === 'string' ? t : t?.id;
    if (typeof id === 'string') out.push(id.startsWith('#') ? id.slice(1) : id);
  }
  return out;
}

/** The ids of the states active in a snapshot value (`{ Paused: 'Idle' }` → root, `m.Paused`, `m.Paused.Idle`). */
export function activeStateIds(chart: ChartDefinition, value: unknown): Set<string> {
  const active = new Set<string>([chart.id]);
  const visit = (prefix: string, v: unknown) => {
    if (typeof v === 'string') {
      active.add(`${prefix}.${v}`);
      return;
    }
    if (v && typeof v === 'object') {
      for (const [key, sub] of Object.entries(v as Record<string, unknown>)) {
        active.add(`${prefix}.${key}`);
        visit(`${prefix}.${key}`, sub);
      }
    }
  };
  visit(chart.id, value);
  return active;
}
