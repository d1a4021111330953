// Session payloads: Welcome 10, Session 11, PlayerJoined 13, PlayerLeft 14, Permissions 20, Ping 21, Pong 37,
// Leave 38 (spec: "Who may send what", "Permissions", "Reconnect", "Catching up", "Ping and round-trip time").

import { LIMITS } from '../limits.ts';
import { arr, bool, bytes, dflt, lenient, num, obj, oneOf, opt, rec, str } from '../schema.ts';
import type { Schema } from '../schema.ts';
import {
  counter,
  displayName,
  gameTime,
  idList,
  identifier,
  joinerId,
  playerId,
  speed,
  steps,
  version,
} from './common.ts';
import type { Speed } from './common.ts';

/** Who a permission covers (spec: "Permissions"). The host's own game (0) is allowed in every set. */
export type PlayerSet = 'everyone' | 'hostOnly' | { only: number[] };

/** A player as the roster shows it. */
export interface RosterEntry {
  id: number;
  name: string;
  ready: boolean;
  /**
   * Welcome only: the player's connection dropped and the host holds its slot
   * (docs/DECISIONS.md "Admission races (M2): a Welcome marks away players").
   */
  away?: boolean;
}

/** The resync round states (spec: "Resync round"), as Session.resync reports a running round. */
export const RESYNC_STATES = ['Pausing', 'Saving', 'Transferring', 'Loading', 'Verifying'] as const;
export type ResyncState = (typeof RESYNC_STATES)[number];

/** A player that lacks a mod the saved world uses (lockstep.md "Mod list"). */
export interface ModWarning {
  /** The player's id. */
  id: number;
  name: string;
  /** Ids of the mods it lacks. */
  missing: string[];
}

/** Session 11, host → all; also Welcome.session. */
export interface SessionPayload {
  started: boolean;
  speed: Speed;
  /** Game time every game stops at. */
  pauseAt?: number;
  /** The stamp distance in steps (lockstep.md "The host's stamps"). */
  lead: number;
  /** The running resync round, if any. */
  resync?: { id: number; state: ResyncState; reason?: string };
  modWarnings?: ModWarning[];
  /** Ids of the stalled games. */
  stalled?: number[];
  /** While a round is loading: ids of the games that have not said hello after the load. */
  loading?: number[];
}

/** Welcome 10, host → player, sealed. */
export interface WelcomePayload {
  /** The id the host assigned: 1..65534. */
  you: number;
  hostName: string;
  version: string;
  players: RosterEntry[];
  session: SessionPayload;
  /** token: 16 bytes; epoch counts resumes. */
  resume?: { token: Uint8Array; epoch: number };
  resumed?: boolean;
  modsChecked?: boolean;
  /** The counter of the last frame the host received from this player (spec: "Catching up"). */
  catchUp?: number;
}

/** PlayerJoined 13, host → all but the joiner. */
export interface PlayerJoinedPayload {
  player: RosterEntry;
}

/** PlayerLeft 14, host → all. away: the connection dropped and the slot is held. */
export interface PlayerLeftPayload {
  id: number;
  name: string;
  away?: boolean;
}

/**
 * Permissions 20, host → all. A field missing on the wire means everyone, so the decoded payload always has
 * the four; `other` is written only while it restricts something (absent = everyone).
 */
export interface PermissionsPayload {
  build: PlayerSet;
  bulldoze: PlayerSet;
  spend: PlayerSet;
  speed: PlayerSet;
  other?: PlayerSet;
}

/** Ping 21, host → player; answered by the player's session layer, never given to the game. */
export interface PingPayload {
  n: number;
  /** Smoothed round trip in ms per player id ("0" = the host's game). */
  rtt?: Record<string, number>;
  /** Clock offset to the host in ms per player id (the player's wall clock minus the host's). */
  off?: Record<string, number>;
  /** The counter of the last frame the host received from this player. */
  ack?: number;
}

/** Pong 37, player → host. w: the player's wall clock (ms since 1970) at the answer. */
export interface PongPayload {
  n: number;
  w?: number;
}

/** Leave 38, player → host: the player goes on purpose. */
export type LeavePayload = Record<string, never>;

const rosterEntry = (): Schema<RosterEntry> => obj({ id: playerId(), name: displayName(), ready: bool(), away: opt(bool()) });

/** The canonical decimal form of a player id, as a map key. */
const idKey = (key: string): string | undefined =>
  /^(0|[1-9][0-9]{0,4})$/.test(key) && Number(key) <= LIMITS.maxPlayerId ? undefined : 'not a player id';

const only = obj({ only: idList() });

/** "everyone", "hostOnly" or {"only": [ids]}. */
export const playerSet = (): Schema<PlayerSet> => ({
  check(v, path) {
    if (v === 'everyone' || v === 'hostOnly') return { ok: true, value: v };
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return only.check(v, path);
    return { ok: false, reason: `${path}: expected "everyone", "hostOnly" or {"only": [ids]}` };
  },
  toJson: (v) => (typeof v === 'string' ? v : only.toJson(v)),
});

export const sessionSchema: Schema<SessionPayload> = obj({
  started: bool(),
  speed: speed(),
  pauseAt: opt(gameTime()),
  lead: steps(),
  // resync and modWarnings: the spec names them without a shape (docs/DECISIONS.md "Message shapes the spec leaves
  // open"), so another implementation's may differ from ours: an odd one is dropped, never the Session (or the
  // Welcome that carries it, which would end the join in `timeout`).
  resync: lenient(
    obj({
      id: counter(),
      state: oneOf(...RESYNC_STATES),
      reason: opt(str({ max: LIMITS.detailChars })),
    }),
  ),
  modWarnings: lenient(
    arr(obj({ id: playerId(), name: displayName(), missing: arr(identifier(), { max: LIMITS.maxMods }) }), {
      max: LIMITS.maxPlayers,
    }),
  ),
  stalled: opt(idList()),
  loading: opt(idList()),
});

export const welcomeSchema: Schema<WelcomePayload> = obj({
  you: joinerId(),
  hostName: displayName(),
  version: version(),
  players: arr(rosterEntry(), { max: LIMITS.maxPlayers }),
  session: sessionSchema,
  resume: opt(obj({ token: bytes({ min: LIMITS.nonceBytes, max: LIMITS.nonceBytes }), epoch: counter() })),
  // Flags the spec names without a type: dropped, not refused, when they are not true/false.
  resumed: lenient(bool()),
  modsChecked: lenient(bool()),
  catchUp: opt(counter()),
});

export const playerJoinedSchema: Schema<PlayerJoinedPayload> = obj({ player: rosterEntry() });

export const playerLeftSchema: Schema<PlayerLeftPayload> = obj({
  id: playerId(),
  name: displayName(),
  away: opt(bool()),
});

export const permissionsSchema: Schema<PermissionsPayload> = obj({
  build: dflt(playerSet(), 'everyone'),
  bulldoze: dflt(playerSet(), 'everyone'),
  spend: dflt(playerSet(), 'everyone'),
  speed: dflt(playerSet(), 'everyone'),
  other: opt(playerSet()),
});

export const pingSchema: Schema<PingPayload> = obj({
  n: counter(),
  rtt: opt(rec(num(0), { max: LIMITS.maxPlayers, key: idKey })),
  off: opt(rec(num(), { max: LIMITS.maxPlayers, key: idKey })),
  ack: opt(counter()),
});

export const pongSchema: Schema<PongPayload> = obj({ n: counter(), w: opt(num()) });

export const leaveSchema: Schema<LeavePayload> = obj({});
