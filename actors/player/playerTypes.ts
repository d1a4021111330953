// The player session's options, ports and notices (actors/player/playerSession.ts holds the session): what the
// launcher gives a PlayerSession (its name, the session key, mods, caps; the clock, crypto, log, inspection
// observer and the resync save's receiving side, spec "Receiving side") and every notice it reports back (welcomed,
// roster, chat, RTTs, permissions, away, resumed, ended, and game traffic for the game link; spec "Handshake",
// "Ping", "Reconnect"). Types only; playerSession.ts re-exports them.
import type { InspectionEvent } from 'xstate';
import type { Crypto } from '../../protocol/crypto.ts';
import type { Payloads } from '../../protocol/messages/index.ts';
import type { Base64 } from '../../protocol/base64.ts';
import type { Permissions } from '../../machines/rules/permissions.ts';
import type { ModEntry } from '../host/mods.ts';
import type { Clock, LogFn } from '../ports.ts';
import type { Message } from '../wire.ts';

export interface PlayerOptions {
  name: string;
  key: Uint8Array;
  version?: string;
  mods?: ModEntry[];
  /** Join.caps: what this player's launcher can do (resync-source-1: upload its game's save for a repair). */
  caps?: string[];
  joinDeadlineMs?: number;
}

export interface PlayerPorts {
  crypto: Crypto;
  clock: Clock;
  wallClock(): number;
  log: LogFn;
  /** Receives every inspection event of the actors the session creates (the launcher's trace recorder). */
  inspect?: (event: InspectionEvent) => void;
  /** Decodes the chunk kinds' base64 (actors/chunkWire.ts); without it the pure default, about 10 MiB/s. */
  base64?: Base64;
  /**
   * The resync save's receiving side (adapters/saves/saveReceiver.ts, spec "Receiving side"): every ResyncChunk goes
   * there, never to the game; a ResyncLoad reaches the game only for a save `loadable` names (received intact).
   * Without it chunks are dropped and no ResyncLoad reaches the game.
   */
  saves?: {
    accept(chunk: Payloads['ResyncChunk']): unknown;
    /** The path of the save received intact for id and sha256, once the last chunk's check is done; else undefined. */
    received(id: number, sha256: string): Promise<string | undefined>;
  };
}

export type PlayerNotice =
  | { type: 'welcomed'; you: number; hostName: string; players: Payloads['Welcome']['players'] }
  | { type: 'roster'; players: { id: number; name: string; ready: boolean; away: boolean; rtt?: number }[] }
  | { type: 'chat'; from: number; name: string; text: string; level?: 'info' | 'warn' | 'error' }
  | { type: 'rtt'; rtt: Record<string, number> }
  | { type: 'permissions'; permissions: Permissions }
  | { type: 'ended'; reason: string; detail?: string }
  /** The connection dropped while joined (not Kicked, not Reject, not Leave): the launcher may `reconnect`. */
  | { type: 'away'; reason: string }
  /** A resumed Welcome: the same id; `caughtUp` false means a `player returned` round will reload our game. */
  | { type: 'resumed'; you: number; caughtUp: boolean }
  /** Game traffic from the host (Session, PeerClock, Action, …) for the game link. */
  | { type: 'game'; message: Message };

/** One row of the roster the window shows: a player, whether its game is ready, whether it is away, its RTT. */
export type RosterRow = { id: number; name: string; ready: boolean; away: boolean; rtt?: number };
