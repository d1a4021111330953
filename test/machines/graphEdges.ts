// Model coverage helper for the chart tests: every edge of a chart's graph (xstate/graph) as the shortest path to
// its source state plus the edge's event, so a test can replay each edge on a live actor and compare the state the
// model says with the one the actor reaches (getShortestPaths alone reaches every state once, not every edge).
import type { AnyStateMachine, EventFromLogic, InputFrom, SnapshotFrom } from 'xstate';
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';

export interface Edge<M extends AnyStateMachine> {
  /** The events that lead from the initial state to `from` (the shortest path). */
  path: EventFromLogic<M>[];
  event: EventFromLogic<M>;
  from: string;
  to: string;
}

export function everyEdge<M extends AnyStateMachine>(
  machine: M,
  options: { input: InputFrom<M>; events: EventFromLogic<M>[]; serializeState: (s: SnapshotFrom<M>) => string; limit?: number },
): Edge<M>[] {
  const traversal = {
    input: options.input,
    events: options.events,
    serializeState: (s: unknown) => options.serializeState(s as SnapshotFrom<M>),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  };
  const paths = getShortestPaths(machine, traversal as never);
  const adjacency = getAdjacencyMap(machine, traversal as never) as unknown as Record<
    string,
    { transitions: Record<string, { event: unknown; state: unknown }> }
  >;
  const edges: Edge<M>[] = [];
  for (const p of paths) {
    const from = options.serializeState(p.state as SnapshotFrom<M>);
    const path = p.steps.map((s) => s.event as EventFromLogic<M>).filter((e) => (e.type as string) !== 'xstate.init');
    for (const { event, state } of Object.values(adjacency[from]!.transitions)) {
      edges.push({ path, event: event as EventFromLogic<M>, from, to: options.serializeState(state as SnapshotFrom<M>) });
    }
  }
  return edges;
}
