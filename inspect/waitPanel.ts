// The "what is it waiting for" panels: for a round (systemIds `resync`, `checksumRounds`, the pause order
// `pauseOrder`, and any actor whose context names the players it waits for), which state it is in, since when,
// which players it still waits for, and the timeouts that will end the wait with the time left on the session
// clock: the actor's own pending delayed events and those of the per-player actors (`slot:<id>`, `pacing:<id>`) of
// the players it waits for. Derived from the context generically, so a new chart gets a panel by naming its wait
// `waitingFor` (or `awaiting`, `missing`, `pending`): a list of player ids, a map keyed by them, or entries with `id`.
// A per-player actor (`slot:<id>`, `pacing:<id>`) with a timeout pending gets a panel too: it waits on its player.
// Pure.
import { playerLabel, playerOfActor, type ActorView, type PendingDelay, type SessionModel } from './sessionModel.ts';

/** The rounds that always get a panel, even while they wait for no one. */
export const ROUND_ACTORS = ['resync', 'checksumRounds', 'pauseOrder'] as const;

/** Context fields that name the players an actor waits for. */
export const WAIT_FIELDS = ['waitingFor', 'awaiting', 'missing', 'pending', 'waiting'] as const;

export interface WaitTimer {
  actor: string;
  /** `after reconnectWindow`, or the delayed event's type. */
  event: string;
  due: number;
  /** ms left on the session clock at the model's `now` (never below 0). */
  left: number;
}

export interface WaitPanel {
  actor: string;
  state: string;
  status: string;
  since: number;
  /** The ids it waits for, and how the page names them (`player2 (2)`). */
  waitingFor: { id: number; label: string }[];
  timers: WaitTimer[];
}

/** The player ids a context says an actor waits for, or undefined when it has no such field. */
export function waitedPlayers(context: unknown): number[] | undefined {
  if (!context || typeof context !== 'object') return undefined;
  const c = context as Record<string, unknown>;
  for (const field of WAIT_FIELDS) {
    if (!(field in c)) continue;
    const ids = idsIn(c[field]);
    if (ids !== undefined) return ids;
  }
  return undefined;
}

function idsIn(v: unknown): number[] | undefined {
  const toId = (x: unknown): number | undefined => {
    if (typeof x === 'number' && Number.isInteger(x)) return x;
    if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
    if (x && typeof x === 'object' && typeof (x as { id?: unknown }).id === 'number') return (x as { id: number }).id;
    return undefined;
  };
  let items: unknown[] | undefined;
  if (Array.isArray(v)) items = v;
  else if (v && typeof v === 'object') {
    const o = v as { $set?: unknown; $map?: unknown };
    if (Array.isArray(o.$set)) items = o.$set;
    else if (Array.isArray(o.$map)) items = o.$map.map((e) => (Array.isArray(e) ? e[0] : e));
    else items = Object.keys(v);
  }
  if (items === undefined) return undefined;
  const ids: number[] = [];
  for (const item of items) {
    const id = toId(item);
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** The panels at the model's point: the round actors, then every other actor that waits for someone. */
export function waitPanels(model: SessionModel): WaitPanel[] {
  const panels: WaitPanel[] = [];
  const seen = new Set<string>();
  const add = (view: ActorView, ids: number[]) => {
    seen.add(view.name);
    panels.push({
      actor: view.name,
      state: view.state,
      status: view.status,
      since: view.since,
      waitingFor: ids.map((id) => ({ id, label: playerLabel(model, id) })),
      timers: timersFor(model, view, ids),
    });
  };
  for (const name of ROUND_ACTORS) {
    const view = model.actors.get(name);
    if (view) add(view, waitedPlayers(view.context) ?? []);
  }
  for (const view of model.actors.values()) {
    if (seen.has(view.name) || view.status !== 'active') continue;
    const ids = waitedPlayers(view.context);
    if (ids !== undefined && ids.length > 0) add(view, ids);
  }
  // A per-player actor with a timeout pending waits on its player (`slot:2` Away: the reconnect window).
  for (const view of model.actors.values()) {
    const player = playerOfActor(view.name);
    if (seen.has(view.name) || view.status !== 'active' || player === undefined) continue;
    if ([...model.pending.values()].some((p) => p.sessionId === view.sessionId)) add(view, [player]);
  }
  return panels;
}

/** The actor's own pending delays and those of the per-player actors of the players it waits for, soonest first. */
export function timersFor(model: SessionModel, view: ActorView, ids: readonly number[]): WaitTimer[] {
  const mine = (p: PendingDelay) => p.sessionId === view.sessionId || (playerOfActor(p.actor) !== undefined && ids.includes(playerOfActor(p.actor)!));
  return [...model.pending.values()]
    .filter(mine)
    .sort((a, b) => a.due - b.due)
    .map((p) => ({ actor: p.actor, event: delayName(p.event), due: p.due, left: Math.max(0, p.due - model.now) }));
}

/** `xstate.after.reconnectWindow.playerSlot.Away` → `after reconnectWindow`. */
export function delayName(eventType: string): string {
  const m = /^xstate\.after\.([^.]+)\./.exec(eventType);
  return m ? `after ${m[1]}` : eventType;
}

/** `4:51` (m:ss) or `12.3 s` under a minute. */
export function formatLeft(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m}:${String(Math.floor(s - m * 60)).padStart(2, '0')}`;
}
