// What the inspector shows at one point of a trace: the lines (inspect/traceFormat.ts) folded, in order, into each
// actor's current state (by its stable name, a systemId where it has one), the delayed events still pending with
// when they fire on the session clock, the event log, and the players' names. The page folds the live stream into it
// line by line and replays a recorded trace up to the timeline's cursor; tests read a fixture through it. Pure.
import type { SafeEvent, TraceLine } from './traceFormat.ts';

export interface ActorView {
  /** The stable name: systemId (`slot:2`), else `<parent>/<id>`, else the sessionId. */
  name: string;
  sessionId: string;
  machine?: string;
  parent?: string;
  status: string;
  /** The snapshot's value (`{ Paused: 'WaitingForStops' }`), as written. */
  value?: unknown;
  /** `Paused.WaitingForStops`. */
  state: string;
  context?: unknown;
  /** Session clock (ms) at which the actor entered its current state value. */
  since: number;
  createdAt: number;
  /** The index of the line that last changed this actor. */
  lastLine: number;
}

export interface PendingDelay {
  /** The send id (`xstate.after.reconnectWindow.playerSlot.Away` for an `after`). */
  id: string;
  /** The scheduling actor. */
  actor: string;
  sessionId: string;
  to: string;
  event: string;
  delay: number;
  /** Session clock (ms) when it fires. */
  due: number;
  scheduledAt: number;
}

export interface LogEntry {
  index: number;
  t: number;
  /** `event` (an event reached `actor`), `emit` (the actor's notice), `schedule`, `cancel`. */
  kind: 'event' | 'emit' | 'schedule' | 'cancel';
  actor: string;
  source?: string;
  type: string;
  event?: SafeEvent;
  /** The player the entry concerns (an event's `from`/`player`, or a per-player actor's id), if any. */
  player?: number;
}

export interface SessionModel {
  actors: Map<string, ActorView>;
  /** Keyed by `<sessionId> <send id>`. */
  pending: Map<string, PendingDelay>;
  log: LogEntry[];
  /** Player id → name, from the actors' contexts. */
  players: Map<number, string>;
  /** The session clock at the last line folded in (ms). */
  now: number;
  /** Lines folded in. */
  lines: number;
  /** Hot events counted (actor → type → n), summed over the `@trace.counts` lines. */
  counts: Map<string, Map<string, number>>;
}

export function emptyModel(): SessionModel {
  return { actors: new Map(), pending: new Map(), log: [], players: new Map(), now: 0, lines: 0, counts: new Map() };
}

/** The actors whose systemId carries a player's id (`slot:2`); a connection's (`conn:3`) carries a connection id. */
const PER_PLAYER = /^(slot|pacing|catchUp):(\d+)$/;

/** A snapshot value as a dotted path: `{ Paused: 'WaitingForStops' }` → `Paused.WaitingForStops`. */
export function stateText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return String(value);
  const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => {
    const sub = stateText(v);
    return sub === '' ? k : `${k}.${sub}`;
  });
  return parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`;
}

/** The player an actor's name is about (`slot:2` → 2). */
export function playerOfActor(name: string): number | undefined {
  const m = PER_PLAYER.exec(name);
  return m ? Number(m[2]) : undefined;
}

function playerOf(actor: string, event: SafeEvent | undefined): number | undefined {
  for (const key of ['from', 'player', 'playerId'] as const) {
    const v = event?.[key];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
  }
  return playerOfActor(actor);
}

/** Folds one line into the model (mutates it). `index`: the line's position in the trace. */
export function applyLine(model: SessionModel, line: TraceLine, index: number): void {
  model.lines++;
  if (typeof line.t === 'number' && line.t > model.now) model.now = line.t;
  switch (line.type) {
    case '@xstate.actor': {
      const view: ActorView = {
        name: line.actor,
        sessionId: line.sessionId,
        status: 'active',
        state: '',
        since: line.t,
        createdAt: line.t,
        lastLine: index,
      };
      if (line.machine !== undefined) view.machine = line.machine;
      if (line.parent !== undefined) view.parent = line.parent;
      model.actors.set(line.actor, view);
      return;
    }
    case '@xstate.snapshot': {
      let view = model.actors.get(line.actor);
      if (!view || view.sessionId !== line.sessionId) {
        view = { name: line.actor, sessionId: line.sessionId, status: 'active', state: '', since: line.t, createdAt: line.t, lastLine: index };
        model.actors.set(line.actor, view);
      }
      const state = stateText(line.snapshot.value);
      if (state !== view.state || line.snapshot.status !== view.status) view.since = line.t;
      view.status = line.snapshot.status;
      view.value = line.snapshot.value;
      view.state = state;
      if (line.snapshot.context !== undefined) view.context = line.snapshot.context;
      view.lastLine = index;
      learnPlayer(model, line.actor, view.context);
      if (view.status !== 'active') dropPendingOf(model, line.sessionId);
      return;
    }
    case '@xstate.event': {
      if (line.scheduled !== undefined) {
        for (const [key, p] of model.pending) {
          if (p.id === line.scheduled && p.to === line.actor) {
            model.pending.delete(key);
            break;
          }
        }
      }
      const entry: LogEntry = { index, t: line.t, kind: 'event', actor: line.actor, type: line.event.type, event: line.event };
      if (line.source !== undefined) entry.source = line.source;
      const player = playerOf(line.actor, line.event);
      if (player !== undefined) entry.player = player;
      model.log.push(entry);
      return;
    }
    case '@trace.emit': {
      const entry: LogEntry = { index, t: line.t, kind: 'emit', actor: line.actor, type: line.event.type, event: line.event };
      const player = playerOf(line.actor, line.event);
      if (player !== undefined) entry.player = player;
      model.log.push(entry);
      return;
    }
    case '@trace.schedule': {
      model.pending.set(`${line.sessionId} ${line.id}`, {
        id: line.id,
        actor: line.actor,
        sessionId: line.sessionId,
        to: line.to,
        event: line.event.type,
        delay: line.delay,
        due: line.due,
        scheduledAt: line.t,
      });
      const entry: LogEntry = { index, t: line.t, kind: 'schedule', actor: line.actor, type: line.event.type, event: line.event };
      const player = playerOfActor(line.actor);
      if (player !== undefined) entry.player = player;
      model.log.push(entry);
      return;
    }
    case '@trace.cancel': {
      const key = `${line.sessionId} ${line.id}`;
      const p = model.pending.get(key);
      model.pending.delete(key);
      const entry: LogEntry = { index, t: line.t, kind: 'cancel', actor: line.actor, type: p?.event ?? line.id };
      const player = playerOfActor(line.actor);
      if (player !== undefined) entry.player = player;
      model.log.push(entry);
      return;
    }
    case '@trace.counts': {
      for (const [actor, types] of Object.entries(line.counts)) {
        let perActor = model.counts.get(actor);
        if (!perActor) model.counts.set(actor, (perActor = new Map()));
        for (const [type, n] of Object.entries(types)) perActor.set(type, (perActor.get(type) ?? 0) + n);
      }
      return;
    }
    default:
      return;
  }
}

/** A player's name from a per-player actor's context (`slot:2` with `{ name: 'ann' }`), or a context's roster. */
function learnPlayer(model: SessionModel, actor: string, context: unknown): void {
  if (!context || typeof context !== 'object') return;
  const c = context as Record<string, unknown>;
  const player = playerOfActor(actor);
  if (player !== undefined && typeof c.name === 'string') model.players.set(player, c.name);
  const input = c.input as Record<string, unknown> | undefined;
  if (player !== undefined && input && typeof input.name === 'string' && !model.players.has(player)) model.players.set(player, input.name);
  for (const key of ['players', 'roster']) {
    const list = c[key];
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      const entry = p as { id?: unknown; name?: unknown } | null;
      if (entry && typeof entry.id === 'number' && typeof entry.name === 'string') model.players.set(entry.id, entry.name);
    }
  }
}

function dropPendingOf(model: SessionModel, sessionId: string): void {
  for (const [key, p] of model.pending) if (p.sessionId === sessionId) model.pending.delete(key);
}

/** The model after the first `count` lines. */
export function modelAt(lines: readonly TraceLine[], count: number): SessionModel {
  const model = emptyModel();
  const end = Math.min(count, lines.length);
  for (let i = 0; i < end; i++) applyLine(model, lines[i]!, i);
  return model;
}

/** A player's display: `ann (2)`, or `player 2` when no name is known. */
export function playerLabel(model: Pick<SessionModel, 'players'>, id: number): string {
  const name = model.players.get(id);
  return name === undefined ? `player ${id}` : `${name} (${id})`;
}
