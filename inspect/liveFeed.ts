// The live side of the inspector: an inspection observer (given to every actor of a launcher beside the trace
// recorder's) that turns XState's events into trace lines with the recorder's own encoder (inspect/traceEncoder.ts),
// keeps a bounded backlog for a page that opens later, hands each new line to the open pages, and collects the
// chart of every machine it sees run (so a chart not in inspect/machineCatalog.ts is drawn all the same).
import type { InspectionEvent } from 'xstate';
import { chartOf, type ChartDefinition } from './chartDefinition.ts';
import { TraceEncoder } from './traceEncoder.ts';

export interface InspectorSource {
  /** The lines so far (a live feed: a bounded backlog). */
  backlog(): readonly string[];
  /** New lines as they come (none for a recorded trace); returns the unsubscribe. */
  subscribe(listener: (line: string) => void): () => void;
  /** Charts seen running, by machine id (added to the catalog's). */
  charts(): Record<string, ChartDefinition>;
  /** `live` or `trace`, and what the page shows as its title. */
  readonly mode: 'live' | 'trace';
  readonly title: string;
}

export interface LiveFeed extends InspectorSource {
  readonly inspect: (event: InspectionEvent) => void;
}

export interface LiveFeedOptions {
  /** The session clock the actors schedule with (the `t` of each line). */
  now: () => number;
  title: string;
  /** Event types counted, not written (adapters/launcher/trace.ts HOT_EVENTS). */
  hot?: ReadonlySet<string>;
  /** Lines kept for a page that opens later; past it the oldest log lines go first. 50 000. */
  maxBacklog?: number;
}

export function createLiveFeed(options: LiveFeedOptions): LiveFeed {
  const encoder = new TraceEncoder(options.hot ? { hot: options.hot } : {});
  const maxBacklog = Math.max(100, options.maxBacklog ?? 50_000);
  let backlog: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const charts: Record<string, ChartDefinition> = {};

  const push = (line: string) => {
    backlog.push(line);
    if (backlog.length > maxBacklog) backlog = compact(backlog, maxBacklog);
    for (const listener of listeners) {
      try {
        listener(line);
      } catch {
        // a page that went away: its socket's own close ends it
      }
    }
  };

  const inspect = (event: InspectionEvent) => {
    try {
      if (event.type === '@xstate.actor') learnChart(event.actorRef, charts);
      const now = options.now();
      const line = encoder.encode(event, now);
      if (line !== undefined) push(line);
      const counts = encoder.counts(now);
      if (counts !== undefined) push(counts);
    } catch {
      // the inspector never breaks a session
    }
  };

  return {
    inspect,
    mode: 'live',
    title: options.title,
    backlog: () => backlog,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    charts: () => charts,
  };
}

function learnChart(ref: unknown, charts: Record<string, ChartDefinition>): void {
  const logic = (ref as { logic?: { config?: { id?: unknown } } }).logic;
  const id = logic?.config?.id;
  if (typeof id !== 'string' || id in charts) return;
  const chart = chartOf(logic);
  if (chart) charts[chart.id] = chart;
}

/**
 * The backlog cut to half of `max`: every actor line, every schedule and cancel, the last snapshot of each actor,
 * and the newest lines; the oldest events and emits are what go (the page then lacks only their log entries).
 */
export function compact(lines: readonly string[], max: number): string[] {
  const keepFrom = lines.length - Math.floor(max / 2);
  const lastSnapshot = new Map<string, number>();
  lines.forEach((line, i) => {
    if (i < keepFrom && line.includes('"type":"@xstate.snapshot"')) {
      const m = /"sessionId":"([^"]*)"/.exec(line);
      if (m) lastSnapshot.set(m[1]!, i);
    }
  });
  const keep = new Set(lastSnapshot.values());
  return lines.filter(
    (line, i) =>
      i >= keepFrom ||
      keep.has(i) ||
      line.includes('"type":"@xstate.actor"') ||
      line.includes('"type":"@trace.schedule"') ||
      line.includes('"type":"@trace.cancel"') ||
      line.includes('"type":"@trace.file"'),
  );
}

/** A recorded trace as a source: its lines, nothing live. */
export function traceSource(lines: readonly string[], title: string): InspectorSource {
  return { mode: 'trace', title, backlog: () => lines, subscribe: () => () => {}, charts: () => ({}) };
}
