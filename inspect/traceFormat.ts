// The trace line format (DESIGN.md "Actors": every actor is created with the launcher's one `inspect` observer;
// the recorder writes those events to `trace.jsonl`): the line types and their parser, shared by the encoder
// (inspect/traceEncoder.ts), the recorder (adapters/trace/traceRecorder.ts) and the inspector's page. Pure.
//
// Line types (one JSON object per line; `t` is the session clock in ms, `actor` the stable name):
//   @trace.file      the first line of every file: format, version, seq (and wall, the wall clock at `t`)
//   @xstate.actor    an actor was created: parent, machine id, systemId
//   @xstate.event    an event reached `actor` (from `source`, if another actor sent it); `scheduled` names the
//                    @trace.schedule line of a delayed event when it is delivered
//   @xstate.snapshot the actor's state after an event: status, value, a bounded context, children, output, error
//   @trace.schedule  a delayed event was scheduled (`after`, delayed raise or sendTo): id, to, event, delay, due
//   @trace.cancel    a still pending delayed event was cancelled (its state was left first)
//   @trace.emit      an `emit(...)` notice of the actor (its outputs to the launcher)
//   @xstate.action   an action ran (only with `actions: true`; otherwise only counted)
//   @trace.dropped   `count` lines were dropped because the disk was slower than the actors

export const TRACE_FORMAT = 'feverlink3.trace';
export const TRACE_VERSION = 1;

interface LineBase {
  /** Session clock, ms (the launcher's clock, the one the actors schedule with), rounded to 1 µs. */
  t: number;
  /** Set when a value in the line was cut to fit its budget (see `EncoderOptions`). */
  truncated?: true;
}

interface ActorLineBase extends LineBase {
  /** The actor's stable name: its systemId; else `<parent>/<id>` for an actor with an id; else its sessionId. */
  actor: string;
  /** XState's sessionId (`x:12`): tells apart two actors that had the same name at different times. */
  sessionId: string;
}

export interface TraceFileLine extends LineBase {
  type: '@trace.file';
  format: typeof TRACE_FORMAT;
  version: number;
  /** 0 for the first file the recorder opened, +1 at each rotation. */
  seq: number;
  /** Wall clock (ms since 1970) at `t`, when the recorder was given one. */
  wall?: number;
}

export interface TraceActorLine extends ActorLineBase {
  type: '@xstate.actor';
  /** The parent's stable name (absent for a root actor). */
  parent?: string;
  /** The machine's id (`lockstep`, `hostHandshake` …) when the actor runs a state machine. */
  machine?: string;
  systemId?: string;
}

export interface TraceEventLine extends ActorLineBase {
  type: '@xstate.event';
  /** The sending actor's stable name; absent when sent from outside the actors (`actor.send`). */
  source?: string;
  event: SafeEvent;
  /** The id of the @trace.schedule line this delivery ends (a delayed event arriving). */
  scheduled?: string;
}

export interface TraceSnapshotLine extends ActorLineBase {
  type: '@xstate.snapshot';
  /** Only the type of the event that led here (the @xstate.event line before has the whole event). */
  event: { type: string };
  snapshot: {
    status: 'active' | 'done' | 'error' | 'stopped' | string;
    value?: unknown;
    context?: unknown;
    /** Child id → the child's stable name. */
    children?: Record<string, string>;
    output?: unknown;
    error?: unknown;
  };
}

export interface TraceScheduleLine extends ActorLineBase {
  type: '@trace.schedule';
  /** The send id (`xstate.after.<delay>.<state id>` for `after`); `#n` when the action gave none. */
  id: string;
  /** Stable name of the receiver (the actor itself for `after` and a delayed raise). */
  to: string;
  event: SafeEvent;
  delay: number;
  /** `t + delay`: when the clock fires it. */
  due: number;
}

export interface TraceCancelLine extends ActorLineBase {
  type: '@trace.cancel';
  id: string;
}

export interface TraceEmitLine extends ActorLineBase {
  type: '@trace.emit';
  event: SafeEvent;
}

export interface TraceActionLine extends ActorLineBase {
  type: '@xstate.action';
  action: { type: string; params?: unknown };
}

export interface TraceDroppedLine extends LineBase {
  type: '@trace.dropped';
  count: number;
}

export type TraceLine =
  | TraceFileLine
  | TraceActorLine
  | TraceEventLine
  | TraceSnapshotLine
  | TraceScheduleLine
  | TraceCancelLine
  | TraceEmitLine
  | TraceActionLine
  | TraceDroppedLine
  | TraceCountsLine;

/** An event made JSON-safe: `type` and the payload fields (bounded). */
export type SafeEvent = { type: string; [k: string]: unknown };

/** The counts of hot events since the last `@trace.counts` line: actor → event type → n. */
export interface TraceCountsLine extends LineBase {
  type: '@trace.counts';
  /** The session clock when counting started (ms). */
  since: number;
  counts: Record<string, Record<string, number>>;
}

/** Parses trace text: one object per line; a line that does not parse (a torn last line) is skipped. */
export function parseTrace(text: string): TraceLine[] {
  const out: TraceLine[] = [];
  for (const raw of text.split('\n')) {
    if (raw.length === 0) continue;
    try {
      const value: unknown = JSON.parse(raw);
      if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string') out.push(value as TraceLine);
    } catch {
      // a torn line (the process ended in the middle of a write): skipped
    }
  }
  return out;
}

/** The actor names (systemIds where the actor has one) the lines mention, in order of first appearance. */
export function actorsIn(lines: Iterable<TraceLine>): string[] {
  const seen = new Set<string>();
  for (const line of lines) {
    if ('actor' in line && typeof line.actor === 'string') seen.add(line.actor);
  }
  return [...seen];
}
