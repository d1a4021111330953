// The trace encoder: turns XState v5 inspection events into bounded JSON lines of the trace format
// (inspect/traceFormat.ts). Pure: no `node:` imports, no clock reads (the caller passes `now`), so the inspector's
// live feed and the recorder (adapters/trace/traceRecorder.ts, the I/O half) write the same lines.
import type { InspectionEvent } from 'xstate';
import type {
  TraceActionLine,
  TraceActorLine,
  TraceCountsLine,
  TraceDroppedLine,
  TraceEventLine,
  TraceSnapshotLine,
  TraceLine,
} from './traceFormat.ts';
import { utf8Length } from '../protocol/bytes.ts';
import { errorOf, MAX_ITEMS, SafeCopier, type Budget, type RefLike } from './traceValues.ts';

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
  private readonly copy = new SafeCopier((ref) => this.nameOf(ref));
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
      event: this.copy.event(event, budget),
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
    const value = s.value === undefined ? undefined : this.copy.value(s.value, budget, 0, []);
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
      out.context = this.copy.value(s.context, contextBudget, 0, []);
      budget.cut ||= contextBudget.cut;
    }
    if (childIds.length > 0) {
      const children: Record<string, string> = {};
      for (const id of childIds.slice(0, MAX_ITEMS)) children[id] = this.nameOf(s.children![id]);
      out.children = children;
    }
    if (s.output !== undefined) out.output = this.copy.value(s.output, { left: 1024, cut: false }, 0, []);
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
        event: this.copy.event(params.event, budget),
        delay: params.delay,
        due: round(t + params.delay),
      };
    } else if (action.type === 'xstate.cancel' && typeof params.sendId === 'string') {
      // `after` cancels on every exit of its state, also when it fired: only a pending one is a cancel.
      if (this.forget(r.sessionId, params.sendId)) {
        line = { t, type: '@trace.cancel', actor: this.nameOf(r), sessionId: r.sessionId, id: params.sendId };
      }
    } else if (action.type === 'xstate.emit' && this.emits) {
      line = { t, type: '@trace.emit', actor: this.nameOf(r), sessionId: r.sessionId, event: this.copy.event(params.event, budget) };
    }
    if (line) return this.finish(line, budget.cut);
    if (!this.actions) return undefined;
    const full: TraceActionLine = { t, type: '@xstate.action', actor: this.nameOf(r), sessionId: r.sessionId, action: { type: action.type } };
    if (action.params !== undefined) full.action.params = this.copy.value(action.params, budget, 0, []);
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

/** Session ms to the microsecond. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
