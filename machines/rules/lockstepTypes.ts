// The payload shapes and game views the host's lockstep rules work on (spec: wire-protocol.txt Session 11,
// PeerClock 12, Hello 30, Clock 31, SpeedRequest 32, Action 50, BuildVeto 52, Permissions 20): the wire
// types come from protocol/messages; what the host relays and what it knows of each game are declared here.
import type {
  ActionCategory,
  ActionPayload,
  BuildVetoPayload,
  ClockPayload,
  Speed,
} from '../../protocol/messages/index.ts';

export { ACTION_CATEGORIES } from '../../protocol/messages/index.ts';
export type {
  ActionCategory,
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  HelloPayload,
  Hop,
  PeerClockPayload,
  PermissionsPayload,
  PlayerSet,
  SessionPayload,
  Speed,
  SpeedRequestPayload,
} from '../../protocol/messages/index.ts';

/** The speeds a session runs at (0 = paused). */
export const SPEEDS: readonly Speed[] = [0, 1, 2, 4];

/** Action 50 as the host relays it: stamped, with `from`, `allowed` and the normalised `category`. */
export interface RelayedActionPayload extends ActionPayload {
  stamp: number;
  from: number;
  allowed: boolean;
  category: ActionCategory;
}

/** BuildVeto 52 made by the host (`host: true`): the action `owner:seq` is refused on every game. */
export type HostBuildVetoPayload = BuildVetoPayload & { from: number; name: string; host: true };

/** A game's last Clock with the host's clock (ms) at which it arrived. */
export interface ReceivedClock extends ClockPayload {
  receivedAt: number;
}

/** The host's promise for a stalled game (lockstep.md "Stalls and outsiders"). */
export interface StallMark {
  /** The PeerClock `safe` the host gives for it; its Actions stamped below are refused. */
  promise: number;
  /** The host's clock when the mark was set. */
  since: number;
  /**
   * The `t` the game stood at then: its promise rises only while it stays there. Absent for the mark of a game that
   * came back (`game.returned`): its clock is unknown until its first Clock after the return, so its promise rises
   * while it has none and stays once it has sent one (rules/stall.ts `movedSinceMark`).
   */
  t?: number;
}

/** What the host knows of one game (player 0 = the host's own game). */
export interface GameView {
  id: number;
  /** It said Hello. */
  ready: boolean;
  /** Its world is the session's; false = an outsider (spec "Outsiders"). */
  hasWorld: boolean;
  clock?: ReceivedClock;
  /** The host's clock when its `t` last moved forward (or when running time started counting). */
  advancedAt: number;
  stalled?: StallMark;
  /** The furthest `t` it has reported since its Hello (the Hello's time first): a clock advances only past it. */
  bestT?: number;
  /** The highest `safe` it has sent since its Hello: its promise, which never goes down within one world. */
  bestSafe?: number;
  /** The `time` its last Hello named: the time of the world it loaded (compared with the host game's at the start). */
  helloTime?: number;
}

/** A ready game that stood at another time than the host's game when the session started: an outsider. */
export interface StartOutsider {
  id: number;
  /** Where its clock stood at the start. */
  t: number;
  /** The time its Hello named, when it differs from `t`. */
  helloTime?: number;
}

/**
 * A session that started with games at different times (spec "Outsiders"): the host game's time, the reference,
 * and the games that stood elsewhere. A resync round copies the host's world to them at once (reason
 * `START_ROUND_REASON`, machines/resync.ts).
 */
export interface StartApart {
  t: number;
  outsiders: readonly StartOutsider[];
}
