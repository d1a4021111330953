// The host lockstep chart's context: what it knows of each game (the clock lines it relays, and the stall marks the
// games' pacing charts reported), the session, the permissions and the Actions in flight (machines/lockstep.ts
// holds the chart, its input and its events). The pause order and each game's pacing are charts of their own, the
// lockstep actor's children (machines/pauseOrder.ts, machines/pacing.ts): their state is in their own context.
import type { Games, SessionState } from './rules/lockstep.ts';
import type { PermissionsPayload, Speed, StartApart } from './rules/lockstepTypes.ts';
import type { InFlight } from './rules/inFlight.ts';
import type { BuildBook } from './rules/heldBuilds.ts';

export interface LockstepSession extends SessionState {
  /** The session has run since it started (a pause in a never-ran session stops at the host's game's t). */
  ran: boolean;
  /** The speed an unpause without another speed resumes (the "previous speed"). */
  resumeSpeed: Exclude<Speed, 0>;
  /** Before the start: the speed it will start at (0 = paused). */
  startSpeed: Speed;
}

/** The changes the pacing charts reported in the current running tick, in id order (written out at `stall.settled`). */
export interface StallPass {
  /** Marks that ended. */
  cleared: readonly number[];
  /** Games marked. */
  marked: readonly number[];
  /** Marked games whose promise rose. */
  raised: readonly number[];
}

export interface LockstepContext {
  now: number;
  /** Each game's clock line and, in `stalled`, the mark its pacing chart reported. */
  games: Games;
  session: LockstepSession;
  startRequested: boolean;
  /** The last waiting reason reported. */
  waiting: string | undefined;
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
  /**
   * The games that came back (`game.returned`) in a started session and catch up as stalled games: their mark has
   * not ended yet. When it ends (their clock reached the host's promise) the lockstep emits `out.caughtUp`; a Hello
   * (a load) or a leave forgets them without it.
   */
  returning: readonly number[];
  /** The stall pass of the running tick in progress. */
  stallPass: StallPass;
  /** Keys of the log lines written once. */
  loggedOnce: readonly string[];
  /** A resync round from Saving to the end of Loading: the pause order stamps nothing (spec "The pause after the load"). */
  stampsHeld?: boolean;
  /**
   * The session started with games at different times (spec "Outsiders"): the host game's time and the games that
   * stood elsewhere, outsiders from the start. The resync actor reads it when it learns of the start and starts a
   * round at once (`START_ROUND_REASON`). Absent after a start at one time.
   */
  startApart?: StartApart;
  /**
   * The held strict builds relayed whose fate is still open (rules/heldBuilds.ts): a game's veto is relayed only for
   * one of them, in time; a parked one waits 10 s for its BuildCommit. Absent = none.
   */
  builds?: BuildBook;
}
