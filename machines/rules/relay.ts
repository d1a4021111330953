// What the host relays (spec: Session 11, PeerClock 12, Action 50, BuildVeto 52 "host?"; "Outsiders"; lockstep.md
// "Stalls and outsiders"): a game's clock as PeerClock (an outsider's flagged stalled with no safe and no need, a
// stalled game's with the host's promise as safe), an Action with from/allowed/category, and the host's veto.
import { isAllowed, normaliseCategory } from './category.ts';
import type {
  ActionPayload,
  GameView,
  HostBuildVetoPayload,
  Hop,
  PeerClockPayload,
  PermissionsPayload,
  RelayedActionPayload,
  SessionPayload,
  Speed,
} from './lockstepTypes.ts';

/** The PeerClock for a game's last clock; `undefined` while it has none. */
export function peerClockOf(game: GameView, hop: Hop | undefined): PeerClockPayload | undefined {
  const clock = game.clock;
  if (clock === undefined) return undefined;
  const out: PeerClockPayload = { from: game.id, t: clock.t, ahead: clock.ahead };
  if (!game.hasWorld) {
    out.stalled = true; // an outsider: no game paces itself to it or keeps to its promise
  } else if (game.stalled !== undefined) {
    out.safe = game.stalled.promise;
    out.stalled = true;
  } else {
    if (clock.need !== undefined) out.need = clock.need;
    // The promise relayed is the highest the game has made in this world: a clock that goes back cannot lower it.
    const safe = game.bestSafe ?? clock.safe;
    if (safe !== undefined) out.safe = safe;
  }
  if (clock.pause !== undefined) out.pause = clock.pause;
  if (hop !== undefined) out.hop = hop;
  return out;
}

/** The fields of a game's Action the host sets itself on relay (they are dropped from what the game sent). */
const REPLACED: ReadonlySet<string> = new Set(['pauseSeq', 'pauseUpto', 'hop', 'from', 'allowed']);

/**
 * An Action as the host relays it: `from` is the sender's id, `category` normalised, `allowed` from the
 * permissions; pauseSeq/pauseUpto (the host's) and the game's hop are replaced. `stamp` is the game's, or the
 * flush's for a pause action.
 */
export function relayedAction(
  payload: ActionPayload,
  from: number,
  permissions: Partial<PermissionsPayload>,
  hop: Hop | undefined,
  stamp: number,
): RelayedActionPayload {
  const category = normaliseCategory(payload.category);
  // The game's fields in their order, but the host's. A loop, not `{ pauseSeq, …, ...rest } = payload`: V8 copies
  // an object rest with excluded keys in its slow runtime path, several µs for every relayed action.
  const source = payload as unknown as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (REPLACED.has(key)) continue;
    // An own data property like the rest copy made, also for a key such as `__proto__`.
    if (key in Object.prototype) {
      Object.defineProperty(copy, key, { value: source[key], enumerable: true, writable: true, configurable: true });
    } else copy[key] = source[key];
  }
  const out = copy as unknown as RelayedActionPayload;
  out.stamp = stamp;
  out.from = from;
  out.allowed = isAllowed(permissions, category, from);
  out.category = category;
  if (hop !== undefined) out.hop = hop;
  return out;
}

/** The host's own BuildVeto: the action `owner:seq` is refused on every game, its origin included. */
export function hostVeto(owner: number, seq: number, why: string, hostName: string): HostBuildVetoPayload {
  return { seq, owner, why: why.slice(0, 300), from: 0, name: hostName, host: true };
}

/** The session state the host broadcasts. */
export interface SessionState {
  started: boolean;
  /** The speed in force: 0 before the start and while paused. */
  speed: Speed;
  pauseAt?: number;
  lead: number;
}

/** Session 11 from the session state and the stalled games (listed only when there are any). */
export function sessionPayloadOf(session: SessionState, stalled: readonly number[]): SessionPayload {
  const out: SessionPayload = { started: session.started, speed: session.speed, lead: session.lead };
  if (session.pauseAt !== undefined) out.pauseAt = session.pauseAt;
  if (stalled.length > 0) out.stalled = [...stalled];
  return out;
}
