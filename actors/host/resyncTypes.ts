// The host resync actor's ports and views (resync.ts): the launcher's files port, the transfer it runs, the options,
// the status the window and `feverlink3 demo --json` show, and the frame bound of the repair source's upload.
import type { ResyncProgressState, resyncMachine } from '../../machines/resync.ts';
import type { Payloads } from '../../protocol/messages/index.ts';
import { TAG_BYTES } from '../../protocol/crypto.ts';
import { HEADER_BYTES } from '../../protocol/frame.ts';
import type { Actor } from 'xstate';
import type { ConnectionHandle } from '../connectionActor.ts';

/** The capability of a player whose launcher can upload its game's save (Join.caps; spec "Repair source"). */
export const RESYNC_SOURCE_CAPABILITY = 'resync-source-1';

/**
 * The most a ResyncUpload frame carrying `dataBytes` of data counts (its length field's value, as the transport
 * charges it): header, tag, the chunk's JSON fields and the data in base64 (protocol/messages/chunkCodec.ts), with
 * room to spare for the digits. What the exemption gives back of one frame at most: about 350 000 bytes for 256 KiB.
 */
export function uploadFrameBound(dataBytes: number): number {
  return HEADER_BYTES + TAG_BYTES + 256 + 4 * Math.ceil(dataBytes / 3);
}

/** The launcher's side of the save (adapters/saves/hostResyncFiles.ts): node's files live there, not in actors/. */
export interface ResyncFiles {
  /** resync_file_ready: the SHA-256 (lower-case hex) and length of the saving game's file `name`. */
  digest(name: string): Promise<{ sha256: string; bytes: number }>;
  /** Streams the file to the participants, each chunk sealed once; `onPeerDone` once a participant has every chunk. */
  send(transfer: {
    id: number;
    name: string;
    sha256: string;
    bytes: number;
    participants: ReadonlyMap<number, ConnectionHandle>;
    onPeerDone(player: number): void;
  }): ResyncTransfer;
  /**
   * A chunk of the repair source's upload (ResyncUpload): kept until the save is whole and matches its SHA-256, then
   * written where `digest` and `send` find it under the round's name; `received(id)` then.
   */
  receive?(chunk: Payloads['ResyncUpload'], received: (id: number) => void): void;
}

export interface ResyncTransfer {
  /** Bytes handed to the slowest participant, the rate and the time left (the status, a progress bar). */
  progress(): TransferProgress;
  /** The participant left: forgotten with what was queued for it. */
  remove(player: number): void;
  /** The round ended: nothing more is written. */
  cancel(): void;
}

export interface HostResyncOptions {
  /** HostOptions.hostReloads / hostLoadsEarly (reloadModesFromEnv). */
  hostReloads?: boolean;
  hostLoadsEarly?: boolean;
  /** How often the pause is looked at (ms). */
  tickMs?: number;
  /** Replaces the chart (tests shorten its timeouts with `.provide({ delays })`). */
  machine?: typeof resyncMachine;
  onFailure?: (err: unknown) => void;
}

/** What the window and `feverlink3 demo --json` show of the resync rounds. */
export interface ResyncStatus {
  /** Rounds ended, by result. */
  rounds: { verified: number; failed: number };
  /** The running round (state Idle between rounds). */
  state: ResyncProgressState;
  id: number;
  reason?: string;
  /** The last round that ended. */
  last?: { id: number; reason: string; result: 'verified' | 'failed'; failure?: string };
  /** The save on its way to the participants (the running or the last transfer). */
  transfer?: TransferProgress;
}

export interface TransferProgress {
  bytes: number;
  total: number;
  bytesPerSecond: number;
  secondsLeft: number | undefined;
}

export interface HostResync {
  readonly actor: Actor<typeof resyncMachine>;
  /** The host's button (start_resync): a round with this reason (ignored, logged, while one runs). */
  start(reason: string): void;
  /** A round runs (the host's pause and speed are ignored then: spec "Resync round"). */
  running(): boolean;
  /**
   * The host's own pause and set_speed (its terminal, its window): while a round runs they are ignored and logged
   * (`resync <id>: ignored the host's pause during a round`, `… the host's speed during a round`: the chart decides);
   * between rounds they go to the lockstep. False when ignored.
   */
  hostPause(): boolean;
  hostSpeed(speed: number): boolean;
  status(): ResyncStatus;
  stop(): void;
}
