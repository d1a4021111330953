// The trace line format (DESIGN.md "Actors": every actor is created with the launcher's one `inspect` observer;
// the recorder writes those events to `trace.jsonl`). Pure: turns XState v5 inspection events into bounded JSON
// lines and parses them back; no `node:` imports, no clock reads (the caller passes `now`), so the inspector page
// can replay a trace with the same code. The I/O half is adapters/trace/traceRecorder.ts.
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
import type { InspectionEvent } from 'xstate';

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

export interface EncoderOptions {
  /** A line longer than this (UTF-8 bytes, newline excluded) is cut down to its identifying fields. 16 KiB. */
  maxLineBytes?: number;
  /** Budget of an event's payload in a line, about JSON bytes. 4096. */
  eventBytes?: number;
  /** Budget of a snapshot's context: 2048; 0 = never write contexts. A larger context is cut (`truncated`). */
  contextBytes?: number;
  /** Write @trace.emit lines for `emit(...)` notices. Default true. */
  emits?: boolean;
  /** Write every @xstate.action line. Default false (they are counted in `stats().actions`). */
  actions?: boolean;
  /** Skip a snapshot whose status, value, context (same object) and children did not change. Default true. */
  dedupeSnapshots?: boolean;
  /**
   * Event types of the hot path (an Action relayed, a clock, a tick): their event and emit lines are not written
   * but counted per actor and type, in one `@trace.counts` line a second; the snapshot after one is written only
   * when the state (status, value, children) changed. What a maintainer looks for — states, waits, timers,
   * refusals — stays in the trace; the relay of thousands of actions a second does not fill it.
   */
  hot?: ReadonlySet<string>;
}

/** The counts of hot events since the last `@trace.counts` line: actor → event type → n. */
export interface TraceCountsLine extends LineBase {
  type: '@trace.counts';
  /** The session clock when counting started (ms). */
  since: number;
  counts: Record<string, Record<string, number>>;
}

export interface EncoderStats {
  /** Lines with a value cut to fit. */
  truncated: number;
  /** Snapshots skipped as unchanged. */
  unchanged: number;
  /** Actions seen (written only with `actions: true`). */
  actions: number;
  /** Inspection events of kinds not written (`@xstate.microstep`, `@xstate.transition`). */
  ignored: number;
}

/** Pending delayed events remembered at most (the oldest forgotten first); each actor's go when it stops. */
const MAX_PENDING = 10_000;
const MAX_DEPTH = 8;
const MAX_ITEMS = 64;
const MAX_STRING = 1024;
const CUT = '$…';

interface RefLike {
  sessionId: string;
  id?: string;
  systemId?: string;
  options?: { systemId?: string };
  _parent?: RefLike;
  logic?: { config?: unknown; root?: unknown };
}

interface Budget {
  left: number;
  cut: boolean;
}

interface Pending {
  id: string;
  event: unknown;
}

interface LastSnapshot {
  status: string;
  value: string;
  /** The snapshot's own value and children objects: after a hot event, the same ones mean nothing changed. */
  rawValue: unknown;
  rawChildren: unknown;
  context: unknown;
  children: string;
  /** Session time it was written at (a context changed by hot events is written at most once a CONTEXT_SAMPLE_MS). */
  at: number;
}

/**
 * After hot events a snapshot whose state did not change is written only when its context did, and then at most once
 * in this many ms per actor: the lockstep's context changes with every relayed action, but a wait noted on ticks
 * (the pause order's `waitingFor`) must still reach the trace, within a second.
 */
export const CONTEXT_SAMPLE_MS = 1000;

/**
 * Turns inspection events into trace lines. One per recorder: it remembers each actor's stable name, its last
 * written snapshot (to skip unchanged ones) and the delayed events still pending (to mark their delivery).
 */
export class TraceEncoder {
  readonly stats: EncoderStats = { truncated: 0, unchanged: 0, actions: 0, ignored: 0 };
  private readonly names = new WeakMap<object, string>();
  private readonly last = new WeakMap<object, LastSnapshot>();
  /** sessionId of the scheduling actor → send id → what was scheduled. */
  private readonly pending = new Map<string, Map<string, Pending>>();
  private pendingCount = 0;
  private anonymous = 0;
  private readonly maxLineBytes: number;
  private readonly eventBytes: number;
  private readonly contextBytes: number;
  private readonly emits: boolean;
  private readonly actions: boolean;
  private readonly dedupe: boolean;
  private readonly hot: ReadonlySet<string> | undefined;
  private hotCounts = new Map<string, Map<string, number>>();
  private hotSince: number | undefined;

  constructor(options: EncoderOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024;
    this.eventBytes = options.eventBytes ?? 4096;
    this.contextBytes = options.contextBytes ?? 2048;
    this.emits = options.emits ?? true;
    this.actions = options.actions ?? false;
    this.dedupe = options.dedupeSnapshots ?? true;
    this.hot = options.hot;
  }

  /** The type of a hot event this inspection event is about (its event, or the event it emits), if hot. */
  private hotType(ev: InspectionEvent): string | undefined {
    const hot = this.hot;
    if (hot === undefined) return undefined;
    let type: unknown;
    if (ev.type === '@xstate.event' || ev.type === '@xstate.snapshot') type = (ev.event as { type?: unknown } | undefined)?.type;
    else if (ev.type === '@xstate.action' && ev.action.type === 'xstate.emit') {
      type = ((ev.action.params as { event?: { type?: unknown } } | undefined)?.event)?.type;
    }
    return typeof type === 'string' && hot.has(type) ? type : undefined;
  }

  /** Counts one hot event; written later as a `@trace.counts` line. */
  private countHot(ref: unknown, type: string, t: number): void {
    this.hotSince ??= t;
    const name = this.nameOf(ref);
    let perActor = this.hotCounts.get(name);
    if (perActor === undefined) this.hotCounts.set(name, (perActor = new Map()));
    perActor.set(type, (perActor.get(type) ?? 0) + 1);
  }

  /** The `@trace.counts` line for what was counted since the last one (once a second, or at the end); or undefined. */
  counts(now: number, force = false): string | undefined {
    const since = this.hotSince;
    if (since === undefined || (!force && now - since < 1000)) return undefined;
    const counts: Record<string, Record<string, number>> = {};
    for (const [actor, types] of this.hotCounts) counts[actor] = Object.fromEntries(types);
    this.hotCounts = new Map();
    this.hotSince = undefined;
    return JSON.stringify({ t: round(now), type: '@trace.counts', since: round(since), counts } satisfies TraceCountsLine);
  }

  /** The stable name of an actor (cached on first sight: systemId, else `<parent>/<id>`, else sessionId). */
  nameOf(ref: unknown): string {
    const r = ref as RefLike;
    const cached = this.names.get(r);
    if (cached !== undefined) return cached;
    // At `@xstate.actor` time XState has not yet set `systemId` on the ref; the option it came from is there.
    const systemId = r.systemId ?? r.options?.systemId;
    let name: string;
    if (typeof systemId === 'string') name = systemId;
    else if (r._parent && typeof r.id === 'string' && r.id !== r.sessionId) name = `${this.nameOf(r._parent)}/${r.id}`;
    else if (typeof r.id === 'string' && r.id !== r.sessionId) name = r.id;
    else name = String(r.sessionId);
    this.names.set(r, name);
    return name;
  }

  /** The line for one inspection event, or undefined when nothing is written for it. `now`: the session clock. */
  encode(ev: InspectionEvent, now: number): string | undefined {
    const t = round(now);
    const hot = this.hotType(ev);
    if (hot !== undefined) {
      if (ev.type === '@xstate.snapshot') return this.snapshotLine(ev.actorRef, ev.event, ev.snapshot, t, true);
      if (ev.type === '@xstate.event') this.countHot(ev.actorRef, hot, t);
      else this.stats.actions++;
      return undefined;
    }
    switch (ev.type) {
      case '@xstate.actor':
        return this.actorLine(ev.actorRef, t);
      case '@xstate.event':
        return this.eventLine(ev.actorRef, ev.sourceRef, ev.event, t);
      case '@xstate.snapshot':
        return this.snapshotLine(ev.actorRef, ev.event, ev.snapshot, t);
      case '@xstate.action':
        return this.actionLine(ev.actorRef, ev.action, t);
      default:
        this.stats.ignored++;
        return undefined;
    }
  }

  /** A @trace.dropped line. */
  dropped(count: number, now: number): string {
    return JSON.stringify({ t: round(now), type: '@trace.dropped', count } satisfies TraceDroppedLine);
  }

  private actorLine(ref: unknown, t: number): string {
    const r = ref as RefLike;
    const line: TraceActorLine = { t, type: '@xstate.actor', actor: this.nameOf(r), sessionId: r.sessionId };
    if (r._parent) line.parent = this.nameOf(r._parent);
    const config = r.logic?.config as { id?: unknown } | undefined;
    if (r.logic?.root !== undefined && config && typeof config === 'object' && typeof config.id === 'string') {
      line.machine = config.id;
    }
    const systemId = r.systemId ?? r.options?.systemId;
    if (typeof systemId === 'string') line.systemId = systemId;
    return this.finish(line, false);
  }

  private eventLine(ref: unknown, source: unknown, event: unknown, t: number): string {
    const r = ref as RefLike;
    const budget: Budget = { left: this.eventBytes, cut: false };
    // Fields in a fixed order (undefined ones are left out by JSON.stringify), so a line reads the same every time.
    const line: TraceEventLine = {
      t,
      type: '@xstate.event',
      actor: this.nameOf(r),
      sessionId: r.sessionId,
      source: source ? this.nameOf(source) : undefined,
      event: this.safeEvent(event, budget),
      scheduled: source ? this.delivered((source as RefLike).sessionId, event) : undefined,
    };
    return this.finish(line, budget.cut);
  }

  private snapshotLine(ref: unknown, event: unknown, snapshot: unknown, t: number, stateOnly = false): string | undefined {
    const r = ref as RefLike;
    const s = (snapshot ?? {}) as {
      status?: string;
      value?: unknown;
      context?: unknown;
      children?: Record<string, unknown>;
      output?: unknown;
      error?: unknown;
    };
    const status = typeof s.status === 'string' ? s.status : 'active';
    if (stateOnly && this.dedupe) {
      // The hot path's shortcut: a string value (or the same value object) and the same children, nothing to copy.
      const prev = this.last.get(r);
      const quiet = prev !== undefined && (prev.context === s.context || t - prev.at < CONTEXT_SAMPLE_MS);
      if (prev && quiet && prev.status === status && prev.rawValue === s.value && prev.rawChildren === s.children) {
        this.stats.unchanged++;
        return undefined;
      }
    }
    if (status !== 'active') this.forgetPending(r.sessionId);
    const budget: Budget = { left: 1024, cut: false };
    const value = s.value === undefined ? undefined : this.safe(s.value, budget, 0, []);
    const childIds = s.children && typeof s.children === 'object' ? Object.keys(s.children) : [];
    if (this.dedupe) {
      const valueKey = value === undefined ? '' : JSON.stringify(value);
      const childKey = childIds.join('\u0000');
      const prev = this.last.get(r);
      // After a hot event a changed context counts only once a CONTEXT_SAMPLE_MS: it changes with every relayed action.
      const sameContext = prev?.context === s.context || (stateOnly && prev !== undefined && t - prev.at < CONTEXT_SAMPLE_MS);
      if (prev && prev.status === status && prev.value === valueKey && sameContext && prev.children === childKey) {
        this.stats.unchanged++;
        prev.rawValue = s.value;
        prev.rawChildren = s.children;
        return undefined;
      }
      this.last.set(r, { status, value: valueKey, rawValue: s.value, rawChildren: s.children, context: s.context, children: childKey, at: t });
    }
    const out: TraceSnapshotLine['snapshot'] = { status };
    if (value !== undefined) out.value = value;
    if (s.context !== undefined && this.contextBytes > 0) {
      const contextBudget: Budget = { left: this.contextBytes, cut: false };
      out.context = this.safe(s.context, contextBudget, 0, []);
      budget.cut ||= contextBudget.cut;
    }
    if (childIds.length > 0) {
      const children: Record<string, string> = {};
      for (const id of childIds.slice(0, MAX_ITEMS)) children[id] = this.nameOf(s.children![id]);
      out.children = children;
    }
    if (s.output !== undefined) out.output = this.safe(s.output, { left: 1024, cut: false }, 0, []);
    if (s.error !== undefined) out.error = errorOf(s.error);
    const e = event as { type?: unknown } | undefined;
    const line: TraceSnapshotLine = {
      t,
      type: '@xstate.snapshot',
      actor: this.nameOf(r),
      sessionId: r.sessionId,
      event: { type: typeof e?.type === 'string' ? e.type : '' },
      snapshot: out,
    };
    return this.finish(line, budget.cut);
  }

  private actionLine(ref: unknown, action: { type: string; params: unknown }, t: number): string | undefined {
    this.stats.actions++;
    const r = ref as RefLike;
    const params = (action.params ?? {}) as { delay?: unknown; id?: unknown; event?: unknown; to?: unknown; sendId?: unknown };
    const budget: Budget = { left: this.eventBytes, cut: false };
    let line: TraceLine | undefined;
    if ((action.type === 'xstate.raise' || action.type === 'xstate.sendTo') && typeof params.delay === 'number') {
      // Scheduled with the system's scheduler in this same synchronous step, on the clock `now` comes from.
      const id = typeof params.id === 'string' ? params.id : `#${++this.anonymous}`;
      this.remember(r.sessionId, id, params.event);
      line = {
        t,
        type: '@trace.schedule',
        actor: this.nameOf(r),
        sessionId: r.sessionId,
        id,
        to: this.targetOf(action.type, params.to, r),
        event: this.safeEvent(params.event, budget),
        delay: params.delay,
        due: round(t + params.delay),
      };
    } else if (action.type === 'xstate.cancel' && typeof params.sendId === 'string') {
      // `after` cancels on every exit of its state, also when it fired: only a pending one is a cancel.
      if (this.forget(r.sessionId, params.sendId)) {
        line = { t, type: '@trace.cancel', actor: this.nameOf(r), sessionId: r.sessionId, id: params.sendId };
      }
    } else if (action.type === 'xstate.emit' && this.emits) {
      line = { t, type: '@trace.emit', actor: this.nameOf(r), sessionId: r.sessionId, event: this.safeEvent(params.event, budget) };
    }
    if (line) return this.finish(line, budget.cut);
    if (!this.actions) return undefined;
    const full: TraceActionLine = { t, type: '@xstate.action', actor: this.nameOf(r), sessionId: r.sessionId, action: { type: action.type } };
    if (action.params !== undefined) full.action.params = this.safe(action.params, budget, 0, []);
    return this.finish(full, budget.cut);
  }

  /** Who a delayed event goes to: the actor itself for a raise; a sendTo's resolved ref (or its id, if unresolved). */
  private targetOf(actionType: string, to: unknown, self: RefLike): string {
    if (actionType === 'xstate.raise' || to === undefined || to === null) return this.nameOf(self);
    if (typeof to === 'string') return to;
    return typeof to === 'object' ? this.nameOf(to) : this.nameOf(self);
  }

  private remember(sessionId: string, id: string, event: unknown): void {
    let byId = this.pending.get(sessionId);
    if (!byId) this.pending.set(sessionId, (byId = new Map()));
    if (!byId.has(id)) this.pendingCount++;
    byId.set(id, { id, event });
    if (this.pendingCount > MAX_PENDING) {
      // Forget the oldest actor's entries (Map order is insertion order): a bound, not a rule.
      const [oldest] = this.pending.keys();
      if (oldest !== undefined) this.forgetPending(oldest);
    }
  }

  private forget(sessionId: string, id: string): boolean {
    const byId = this.pending.get(sessionId);
    if (!byId?.delete(id)) return false;
    this.pendingCount--;
    if (byId.size === 0) this.pending.delete(sessionId);
    return true;
  }

  private forgetPending(sessionId: string): void {
    const byId = this.pending.get(sessionId);
    if (!byId) return;
    this.pendingCount -= byId.size;
    this.pending.delete(sessionId);
  }

  /** The send id of the pending delayed event from `sessionId` whose event object this is (then forgotten). */
  private delivered(sessionId: string, event: unknown): string | undefined {
    const byId = this.pending.get(sessionId);
    if (!byId) return undefined;
    for (const p of byId.values()) {
      if (p.event === event) {
        this.forget(sessionId, p.id);
        return p.id;
      }
    }
    return undefined;
  }

  private safeEvent(event: unknown, budget: Budget): SafeEvent {
    const e = event as { type?: unknown } | null | undefined;
    const type = e && typeof e === 'object' && typeof e.type === 'string' ? e.type : '';
    if (!e || typeof e !== 'object') return { type };
    const out: SafeEvent = { type };
    let n = 0;
    let keys: string[];
    try {
      keys = Object.keys(e);
    } catch {
      return { type, $unreadable: true };
    }
    for (const key of keys) {
      if (key === 'type') continue;
      if (n++ >= MAX_ITEMS || budget.left <= 0) {
        out.$more = keys.length - n + 1;
        budget.cut = true;
        break;
      }
      budget.left -= key.length + 4;
      out[key] = this.safe(read(e, key), budget, 1, [e]);
    }
    return out;
  }

  /**
   * A JSON-safe copy of `v` within `budget` (about JSON bytes). Byte arrays become their length only (they may be
   * keys, nonces or save chunks, and traces travel in bug reports); bigint → {$bigint}; functions → {$fn}; actor refs
   * → {$actor: name}; cycles → {$cycle}; Map/Set → {$map}/{$set}; deeper than 8, longer than 64 items or 1024
   * characters, or past the budget → cut (`$…`, `$more`), and `budget.cut` is set.
   */
  private safe(v: unknown, budget: Budget, depth: number, stack: unknown[]): unknown {
    if (budget.left <= 0) {
      budget.cut = true;
      return CUT;
    }
    switch (typeof v) {
      case 'string':
        if (v.length > MAX_STRING || v.length > budget.left) {
          const keep = Math.max(0, Math.min(MAX_STRING, budget.left));
          budget.cut = true;
          budget.left -= keep + 2;
          return `${v.slice(0, keep)}${CUT}`;
        }
        budget.left -= v.length + 2;
        return v;
      case 'number':
        budget.left -= 8;
        return Number.isFinite(v) ? v : String(v);
      case 'boolean':
        budget.left -= 5;
        return v;
      case 'undefined':
        return undefined;
      case 'bigint':
        budget.left -= 16;
        return { $bigint: v.toString() };
      case 'function':
        budget.left -= 16;
        return { $fn: v.name || 'anonymous' };
      case 'symbol':
        budget.left -= 16;
        return { $symbol: v.description ?? '' };
    }
    if (v === null) {
      budget.left -= 4;
      return null;
    }
    const o = v as object;
    if (stack.includes(o)) {
      budget.left -= 12;
      return { $cycle: true };
    }
    budget.left -= 2;
    try {
      if (isActorRef(o)) return { $actor: this.nameOf(o) };
      if (ArrayBuffer.isView(o)) return { $bytes: o.byteLength };
      if (o instanceof ArrayBuffer) return { $bytes: o.byteLength };
      if (o instanceof Date) return Number.isNaN(o.getTime()) ? 'Invalid Date' : o.toISOString();
      if (o instanceof Error) return errorOf(o, 256);
      if (depth >= MAX_DEPTH) {
        budget.cut = true;
        return CUT;
      }
      stack.push(o);
      try {
        if (Array.isArray(o)) return this.items(o, o.length, budget, depth, stack);
        if (o instanceof Map) return { $map: this.items([...o.entries()].slice(0, MAX_ITEMS + 1), o.size, budget, depth, stack) };
        if (o instanceof Set) return { $set: this.items([...o.values()].slice(0, MAX_ITEMS + 1), o.size, budget, depth, stack) };
        if (o instanceof Promise || o instanceof WeakMap || o instanceof WeakSet) return { $object: o.constructor.name };
        const out: Record<string, unknown> = {};
        const keys = Object.keys(o);
        let n = 0;
        for (const key of keys) {
          if (n >= MAX_ITEMS || budget.left <= 0) {
            out.$more = keys.length - n;
            budget.cut = true;
            break;
          }
          n++;
          budget.left -= key.length + 4;
          const value = this.safe(read(o, key), budget, depth + 1, stack);
          if (value !== undefined) out[key] = value;
        }
        return out;
      } finally {
        stack.pop();
      }
    } catch {
      return { $unreadable: true };
    }
  }

  private items(list: readonly unknown[], size: number, budget: Budget, depth: number, stack: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < list.length && i < size; i++) {
      if (i >= MAX_ITEMS || budget.left <= 0) {
        out.push({ $more: size - i });
        budget.cut = true;
        break;
      }
      const value = this.safe(list[i], budget, depth + 1, stack);
      out.push(value === undefined ? null : value);
      budget.left -= 1;
    }
    return out;
  }

  /** The JSON text of `line`, at most maxLineBytes: else the line keeps only its identifying fields. */
  private finish(line: TraceLine, cut: boolean): string {
    if (cut) {
      line.truncated = true;
      this.stats.truncated++;
    }
    const text = JSON.stringify(line);
    if (text.length * 3 <= this.maxLineBytes || utf8Length(text) <= this.maxLineBytes) return text;
    if (!cut) this.stats.truncated++;
    const short: Record<string, unknown> = { t: line.t, type: line.type, truncated: true };
    for (const key of ['actor', 'sessionId', 'source', 'scheduled', 'id', 'to', 'delay', 'due', 'count'] as const) {
      const value = (line as unknown as Record<string, unknown>)[key];
      if (value !== undefined) short[key] = typeof value === 'string' ? value.slice(0, 256) : value;
    }
    const event = (line as { event?: { type?: unknown } }).event;
    if (event && typeof event.type === 'string') short.event = { type: event.type.slice(0, 256) };
    const snapshot = (line as { snapshot?: { status?: unknown } }).snapshot;
    if (snapshot) short.snapshot = { status: snapshot.status };
    return JSON.stringify(short);
  }
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

function isActorRef(o: object): o is RefLike {
  const r = o as { sessionId?: unknown; send?: unknown; getSnapshot?: unknown };
  return typeof r.sessionId === 'string' && typeof r.send === 'function' && typeof r.getSnapshot === 'function';
}

function read(o: object, key: string): unknown {
  try {
    return (o as Record<string, unknown>)[key];
  } catch {
    return { $unreadable: true };
  }
}

function errorOf(err: unknown, stackChars = 2000): unknown {
  if (err instanceof Error) {
    const out: Record<string, string> = { $error: err.name, message: err.message.slice(0, 1024) };
    if (stackChars > 256 && err.stack) out.stack = err.stack.slice(0, stackChars);
    return out;
  }
  return { $error: 'thrown', message: String(err).slice(0, 1024) };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** UTF-8 length of a string (lone surrogates count 3, as TextEncoder writes U+FFFD). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
