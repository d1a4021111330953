// The host lockstep chart's context: what it knows of each game, the session, the pause order and the
// permissions (machines/lockstep.ts holds the chart, its input and its events).
import type { Games, PauseOrder, SessionState } from './rules/lockstep.ts';
import type { PermissionsPayload, Speed } from './rules/lockstepTypes.ts';
import type { InFlight } from './rules/inFlight.ts';

export interface LockstepSession extends SessionState {
  /** The session has run since it started (a pause in a never-ran session stops at the host's game's t). */
  ran: boolean;
  /** The speed an unpause without another speed resumes (the "previous speed"). */
  resumeSpeed: Exclude<Speed, 0>;
  /** Before the start: the speed it will start at (0 = paused). */
  startSpeed: Speed;
}

export interface LockstepContext {
  now: number;
  games: Games;
  session: LockstepSession;
  startRequested: boolean;
  /** The last waiting reason reported. */
  waiting: string | undefined;
  pauseOrder: PauseOrder;
  permissions: Partial<PermissionsPayload>;
  maxRtt: number;
  rtt: Readonly<Record<number, number>>;
  off: Readonly<Record<number, number>>;
  clockIntervalMs: number;
  hostName: string;
  hostGame: boolean;
  /** SpeedRequests dropped per player (not in the speed set). */
  droppedSpeedRequests: Readonly<Record<number, number>>;
  /** The stamps of the relayed Actions no game is known to have passed, per origin (rules/inFlight.ts). */
  inFlight: InFlight;
  /** Keys of the log lines written once. */
  loggedOnce: readonly string[];
}
