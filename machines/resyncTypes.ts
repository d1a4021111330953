// The resync round chart's types (machines/resync.ts): its input, the events it takes, what it emits for the session,
// and its context. Written once here and exported; the chart and its tests import them.
import type { ResyncState } from '../protocol/messages/payloads/session.ts';
import type { RoundPlayer } from './rules/resyncRound.ts';

export interface ResyncInput {
  /** HostOptions.hostReloads (default true; FEVERLINK3_HOST_RELOAD=0). */
  hostReloads?: boolean;
  /** HostOptions.hostLoadsEarly (default true; FEVERLINK3_HOST_LOAD_EARLY=0). */
  hostLoadsEarly?: boolean;
}

export type ResyncEvent =
  /**
   * The session started: rounds may run from now on (before, a join starts nothing). `outsiders`: the games that
   * stood at another time than the host's game at the start (spec "Outsiders"); a round with reason
   * START_ROUND_REASON starts at once and copies the host's world to them (no cooldown, like a hot join).
   */
  | { type: 'session.started'; speed: number; outsiders?: readonly number[] }
  /** The speed in force changed between rounds (the one a verified round resumes). */
  | { type: 'session.speed'; speed: number }
  /** Start a round (the host's button, the policy). Ignored (logged) while one runs or before the start. */
  | { type: 'cmd.start'; reason: string }
  /** A player joined (or came back without its world: `returned`). In a started session: a hot join. */
  | { type: 'player.joined'; id: number; name: string; capable?: boolean; returned?: boolean }
  /** A player came back and was caught up (it kept the session's world): in the roster again, no round. */
  | { type: 'player.returned'; id: number; name: string; capable?: boolean }
  /** A player left (its slot released or its connection gone for the round). */
  | { type: 'player.left'; id: number }
  /** A game reported an action `partial`: its world may be partly built (spec "Repair source"). */
  | { type: 'game.partial'; id: number }
  /**
   * Pausing: `waitingFor`, the ready games in the session's world that do not yet stand at pauseAt with speed 0;
   * `inWorld`, the players whose game is ready in the session's world (said Hello, not an outsider): the only ones
   * that may be the repair source. A player missing from it (its game has not said Hello yet, an outsider) is not.
   */
  | { type: 'pause.progress'; waitingFor: readonly number[]; inWorld: readonly number[] }
  | { type: 'recv.SaveDone'; from: number; id: number; ok: boolean; detail?: string }
  /**
   * The repair source's upload arrived whole, matched its SHA-256 and was written where the host's game loads the
   * round's save (its savegame folder, under the round's save name: docs/DECISIONS.md).
   */
  | { type: 'source.uploaded'; id: number }
  /** resync_file_ready: the launcher read the file; the players present now are the participants. */
  | { type: 'cmd.fileReady'; id: number; sha256: string; bytes: number }
  /** Every chunk of the round's save was handed to this participant's connection. */
  | { type: 'transfer.done'; id: number; player: number }
  | { type: 'recv.Hello'; from: number; time: number }
  /** Verifying: the games that have not reported the verification round yet (for the timeout's reason). */
  | { type: 'checksum.waiting'; players: readonly number[] }
  | { type: 'checksum.verified' }
  | { type: 'checksum.differs'; detail?: string }
  /** Ignored during a round (logged); between rounds not this chart's business. */
  | { type: 'recv.SpeedRequest'; from: number; speed: number }
  | { type: 'cmd.setSpeed'; speed: number }
  | { type: 'cmd.pause' };

/** A running round's state as Session.resync and the UI name it. */
export type ResyncProgressState = ResyncState | 'Idle';

export type ResyncEmitted =
  /** Every state change (Session `resync`; Idle with the result once a round ends). */
  | {
      type: 'out.progress';
      id: number;
      state: ResyncProgressState;
      reason: string;
      participants?: readonly number[];
      /** Loading: the games that have not said Hello after the load (Session `loading`). */
      loading?: readonly number[];
      result?: 'verified' | 'failed';
    }
  /** Set pauseAt (a pause in force is kept) and broadcast Session. */
  | { type: 'out.pause'; id: number }
  /** Send ResyncSave { id, name } to game `to` (0: the host's own game; else the repair source player). */
  | { type: 'out.save'; id: number; to: number; name: string }
  /** The host's world is copied although it is marked partial: a WARNING line and a chat line. */
  | { type: 'out.sourceWarning'; id: number; text: string }
  /**
   * The saving game (`from`, named `names`) reported an action partial before its SaveDone: its save holds that
   * world, so the round asks the next source instead (its ResyncSave follows; logged).
   */
  | { type: 'out.sourceMarked'; id: number; from: number; names: string }
  /** The file is announced: seal each chunk once and write it to every participant. */
  | { type: 'out.announced'; id: number; sha256: string; bytes: number; participants: readonly number[] }
  /** Send ResyncLoad { id, name, sha256 } to each game of `to` (0: the host's own game). */
  | { type: 'out.load'; id: number; to: readonly number[]; name: string; sha256: string }
  /** A Hello of the load moved pauseAt to `time`; `differ`: the Hellos disagree (logged, the furthest kept). */
  | { type: 'out.pauseAt'; id: number; from: number; time: number; differ: boolean }
  /** Loading timed out: these games sent no Hello; the round goes on with the others (logged). */
  | { type: 'out.loadingTimedOut'; id: number; missing: readonly number[]; names: string }
  /** Ask the paused verification round: ChecksumRequest { n, at: pauseAt, paused: true }. */
  | { type: 'out.verify'; id: number }
  /** Verified: resume `speed` (pauseAt cleared). */
  | { type: 'out.succeeded'; id: number; speed: number }
  /** ResyncFailed: the session stays paused; `missing` the games the reason names. */
  | { type: 'out.failed'; id: number; state: ResyncState; reason: string; missing: readonly number[] }
  /** Something the round ignores, to be logged. */
  | { type: 'out.ignored'; id: number; what: string; from?: number };

export interface RoundContext {
  hostReloads: boolean;
  hostLoadsEarly: boolean;
  started: boolean;
  /** The speed in force between rounds; the one a verified round resumes. */
  speed: number;
  /** The connected players (not the host's game), in roster order. */
  players: RoundPlayer[];
  /** Games marked partial until a round is verified. */
  marked: number[];
  /** Joiners remembered for the next round (the file was already announced), with its reason. */
  queued: number[];
  queuedReason: string;
  /** The last round's id (0: none yet). */
  id: number;
  reason: string;
  /** The speed in force when the round started. */
  speedBefore: number;
  /** Pausing: who the pause still waits for, and whether the session reported at all. */
  waitingFor: number[];
  /** The players ready in the session's world at the last pause.progress of this round (the source is one of them). */
  inWorld: number[];
  pauseReported: boolean;
  /** Saving: the game that saves (0 or the repair source). */
  source: number;
  /** Fixed when the file is announced. */
  participants: number[];
  file: { sha256: string; bytes: number } | undefined;
  /** Transferring: participants whose chunks are not all handed to their connection. */
  sending: number[];
  /** Games that said Hello in this round after their load (the host loading early may say it in Transferring). */
  heard: number[];
  pauseAt: number | undefined;
  /** Loading: the games whose Hello is awaited; Verifying: who has not reported (checksum.waiting). */
  awaiting: number[];
  failure: { state: ResyncState; reason: string; missing: number[] } | undefined;
}
