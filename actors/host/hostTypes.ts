// The host session's options, ports and the notices it gives its window and the lockstep actor.
import type { Base64 } from '../../protocol/base64.ts';
import type { InspectionEvent } from 'xstate';
import type { Crypto } from '../../protocol/crypto.ts';
import type { Permissions } from '../../machines/rules/permissions.ts';
import type { Clock, LogFn } from '../ports.ts';
import type { Message } from '../wire.ts';
import type { ModEntry } from './mods.ts';

export const FEVERLINK3_VERSION = '0.1';

export interface HostOptions {
  hostName: string;
  /** The 32-byte session key (keys.deriveSessionKey). */
  key: Uint8Array;
  version?: string;
  maxPlayers?: number;
  /** The host's mod list; players must present the same one. Undefined: no mod check. */
  mods?: ModEntry[];
  pingIntervalMs?: number;
  reconnectWindowMs?: number;
  joinDeadlineMs?: number;
  /** A joined player that sends nothing for this long is dropped as away (10 s write timeout + 3 pings). */
  silenceMs?: number;
  /** Payload bytes under the session key before the host ends the session (protocol/keyBudget.ts; tests lower it). */
  keyBudgetBytes?: number;
}

/** Receives every inspection event of the actors the session creates (XState's `inspect` option). */
export type InspectionObserver = (event: InspectionEvent) => void;

export interface HostPorts {
  crypto: Crypto;
  clock: Clock;
  /** Wall clock in ms since 1970 (Ping offsets, latency stamps). */
  wallClock(): number;
  log: LogFn;
  /**
   * The host's own game (player 0), fed like any player's game but without a network hop: every message the
   * host sends to "all" (or to player 0) is handed here, in the order it is made. Absent: no local game.
   */
  localGame?: (message: Message) => void;
  /**
   * Given to every actor the session creates (handshakes, player slots), e.g. the trace recorder. A throw from it
   * is logged as `internal error` (while `inspect`), never passed to the actor.
   */
  inspect?: InspectionObserver;
  /** Decodes the chunk kinds' base64 (ResyncUpload, ReportPart; actors/chunkWire.ts); without it the pure default. */
  base64?: Base64;
}

/** What the host's window (terminal, later the in-game UI) and the lockstep layer are told. */
export type HostNotice =
  | { type: 'roster'; players: { id: number; name: string; ready: boolean; away: boolean; rtt?: number }[] }
  | { type: 'chat'; from: number; name: string; text: string; level?: 'info' | 'warn' | 'error' }
  /** caps: the capabilities its Join announced (e.g. resync-source-1: its launcher can upload its save). */
  /** returned: a player coming back that could not be caught up (its game reloads: a `player returned` round). */
  | { type: 'joined'; id: number; name: string; caps?: readonly string[]; returned?: boolean }
  /** A player came back and was caught up (it kept its world): it stays ready and catches up as a stalled game. */
  | { type: 'returned'; id: number; name: string; caps?: readonly string[] }
  | { type: 'left'; id: number; name: string; away: boolean }
  | { type: 'rtt'; rtt: Record<number, number>; off: Record<number, number> }
  | { type: 'permissions'; permissions: Permissions }
  /** Game traffic from a player (Hello, Clock, Action, SpeedRequest, …) for the lockstep layer. */
  | { type: 'game'; from: number; message: Message }
  /** The host ended the session itself (not the launcher's stop): its key's budget spent, or the host failed. */
  | { type: 'ended'; reason: string; detail: string };
