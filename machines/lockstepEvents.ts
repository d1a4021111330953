// The host lockstep chart's input, events and outputs (machines/lockstep.ts holds the chart; spec/lockstep.md;
// wire-protocol.txt Session 11, PeerClock 12, SpeedRequest 32, Action 50, BuildVeto 52, BuildCommit 53, Permissions):
// what the actor is created with, every event it takes (wire messages as `recv.<Kind>`, commands, the session's
// notices, its children's reports and its own markers) and everything it emits, in the order the receivers see it.
// Types only; machines/lockstep.ts re-exports them, so importers keep taking them from the chart's file.
import type { ActorRef, Snapshot } from 'xstate';
import type { FlushedPauseAction } from './rules/lockstep.ts';
import type { PacingReport } from './pacing.ts';
import type { PauseOrderReport } from './pauseOrder.ts';
import type {
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  HelloPayload,
  Hop,
  HostBuildVetoPayload,
  PeerClockPayload,
  PermissionsPayload,
  RelayedActionPayload,
  SessionPayload,
  Speed,
  SpeedRequestPayload,
} from './rules/lockstepTypes.ts';

export interface LockstepInput {
  /** The host's clock now (ms). */
  now?: number;
  clockIntervalMs?: number;
  /** The name on the host's own BuildVeto. */
  hostName?: string;
  /** The host runs a game of its own (player 0); false for a relay-only host, whose start waits for the players. */
  hostGame?: boolean;
  permissions?: Partial<PermissionsPayload>;
  /** The speed the session starts at (0: it starts paused). Default 1. */
  startSpeed?: Speed;
}

/**
 * Every event may carry `now`, the host's clock in ms (required on what comes from the network and on `tick`);
 * the chart keeps the latest. `wall` (ms since 1970) becomes the hop's `h`. `speed.requested` is internal: the
 * chart raises it from `cmd.pause`, a valid `cmd.speed` and an allowed SpeedRequest. The reports of its children
 * (`pauseOrder.*`, `pacing.*`) and its own markers (`session.announce`, `stall.settled`, `clock.relay`) are
 * internal too: nothing outside the actor sends them.
 */
export type LockstepEvent =
  /** loaded: the Hello after a resync round's load (the game now holds the session's world: no outsider). */
  | { type: 'recv.Hello'; from: number; payload: HelloPayload; now: number; loaded?: boolean }
  | { type: 'recv.Clock'; from: number; payload: ClockPayload; now: number; wall?: number }
  | { type: 'recv.Action'; from: number; payload: ActionPayload; now: number; wall?: number }
  | { type: 'recv.SpeedRequest'; from: number; payload: SpeedRequestPayload; now: number }
  /** A game's BuildCommit 53: judged like an Action's stamp, relayed to every game (rules/heldBuilds.ts). */
  | { type: 'recv.BuildCommit'; from: number; payload: BuildCommitPayload; now: number }
  /** A game's BuildVeto 52 of another game's held build; `name`: the vetoer's name, set by the host on relay. */
  | { type: 'recv.BuildVeto'; from: number; payload: BuildVetoPayload; now: number; name?: string }
  | { type: 'cmd.start'; now?: number }
  | { type: 'cmd.pause'; now?: number }
  | { type: 'cmd.speed'; speed: number; now?: number }
  | { type: 'game.joined'; id: number; now?: number }
  | { type: 'game.left'; id: number; now?: number }
  /**
   * A game that left (its connection dropped) came back within the reconnect window and is caught up: its game kept
   * its world and the host resends every message it missed (wire-protocol "Reconnect", "Catching up"). It is added
   * again ready with the session's world; in a started session it catches up as a stalled game (marked at once with
   * the host's promise, since now) until its clock reaches the promise (`out.caughtUp`).
   */
  /** hasWorld false: it was an outsider when it dropped and comes back one (default true). */
  | { type: 'game.returned'; id: number; now?: number; hasWorld?: boolean }
  /** maxRtt: the largest smoothed round trip (ms); rtt/off per player (ms) for the hop's sr/so. */
  | { type: 'rtt.updated'; maxRtt: number; rtt?: Record<number, number>; off?: Record<number, number>; now?: number }
  | { type: 'permissions.changed'; permissions: Partial<PermissionsPayload>; now?: number }
  | { type: 'tick'; now: number }
  /** The resync round (actors/host/resync.ts): from Saving to the end of Loading the pause order stamps nothing. */
  | { type: 'resync.stamps'; held: boolean; now?: number }
  /** The resync round: a Hello of the load moved pauseAt to the loaded world's time (the furthest). */
  | { type: 'resync.pauseAt'; pauseAt: number; now?: number }
  | { type: 'speed.requested'; speed: Speed; by: number | 'host' }
  | PauseOrderReport
  | PacingReport
  /** The Session of a start or an unpause, after what the pause order flushed (`replay`: every clock first). */
  | { type: 'session.announce'; replay: boolean; log: LogEntry }
  /** Every pacing chart has reported its part of the running tick's stall pass. */
  | { type: 'stall.settled' }
  /** A stalled game's clock, relayed once its pacing chart has decided whether it ends the mark. */
  | { type: 'clock.relay'; from: number; hop: Hop | undefined };


/** A log line: the pino `msg` text and its fields. */
export type LogEntry = { msg: string; [k: string]: unknown };

/** What the actor sends, in the order the receivers must see it (one ordered path per receiver). */
export type LockstepEmitted =
  | { type: 'send.Session'; to: 'all'; payload: SessionPayload }
  | { type: 'send.PeerClock'; to: 'allBut'; except: number; payload: PeerClockPayload }
  /** Every Action goes to every game, its origin included: a game applies its own only on the host's copy. */
  | { type: 'send.Action'; to: 'all'; payload: RelayedActionPayload | FlushedPauseAction }
  | { type: 'send.BuildVeto'; to: 'all'; payload: HostBuildVetoPayload }
  /**
   * A game's veto of another's held build, with from and name: to every game, the vetoer included (it learns that its
   * veto decided: a parked build stays parked on the vetoer until then; rules/heldBuilds.ts).
   */
  | { type: 'send.BuildVeto'; to: 'all'; payload: BuildVetoPayload }
  /**
   * The host's answer to a game's veto it did not relay (`late: true`), to the vetoer alone: too late, the vetoer
   * applies the build at its stamp (rules/lockstepSteps.ts `onGameVetoRefused`).
   */
  | { type: 'send.BuildVeto'; to: number; payload: BuildVetoPayload & { late: true } }
  /** A BuildCommit: to every game, its origin included (it applies its own build only on the host's copy). */
  | { type: 'send.BuildCommit'; to: 'all'; payload: BuildCommitPayload }
  | { type: 'out.waiting'; reason: string }
  /** A game that came back (`game.returned`) reached the host's promise: its stall mark ended, it is caught up. */
  | { type: 'out.caughtUp'; id: number }
  | { type: 'out.log'; msg: string; [k: string]: unknown };

/** The lockstep actor's own ref: its children's parent (their input) and the target of its markers. */
export type LockstepSelf = ActorRef<Snapshot<unknown>, LockstepEvent>;
