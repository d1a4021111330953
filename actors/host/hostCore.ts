// What the parts of the host's session share: HostSession (hostSession.ts) owns one HostCore and hands it to the
// functions that do its jobs — the accepted connections and their events (hostConnections.ts), the handshake's
// admission and seating (hostAdmission.ts), the wiring of the slot actors (hostSlotWiring.ts), and the joined
// players' frames with the ping round (joinedFrames.ts). The state is here once (the roster and permissions are
// replaced, never changed in place); what the session does for everyone (sending, notices, kick) it calls back.
import type { KindName, Payloads } from '../../protocol/messages/index.ts';
import type { Opener, Sealer } from '../../protocol/seal.ts';
import type { Permissions } from '../../machines/rules/permissions.ts';
import type { Roster } from '../../machines/rules/roster.ts';
import type { JoinRate } from '../../machines/rules/joinRate.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { SessionRouter } from '../sessionRouter.ts';
import type { ModEntry } from './mods.ts';
import type { HostNotice, HostOptions, HostPorts } from './hostTypes.ts';
import type { HandshakeActor } from './handshake.ts';
import type { SlotActor } from './slots.ts';
import type { PlayerLink } from './playerLink.ts';
import type { HostSender } from './hostSender.ts';
import type { Returns } from './returns.ts';
import type { Message } from '../wire.ts';

/** The session's options with their defaults filled in. */
export type HostSessionOptions = Required<Omit<HostOptions, 'mods'>> & { mods: ModEntry[] | undefined };

export interface HostCore {
  readonly options: HostSessionOptions;
  readonly ports: HostPorts;
  /** HostPorts.inspect, guarded: given to every actor this session creates. */
  readonly inspect: HostPorts['inspect'];
  /**
   * The session's root actor (systemId `host`): one `conn:<id>` child per accepted connection, and the file link
   * `link`. Connections and the link reach the session only as its events (actors/sessionRouter.ts).
   */
  readonly router: SessionRouter;
  readonly sealer: Sealer;
  readonly opener: Opener;
  /** Every frame the host sends goes through here: one counter, the resync hold, the outboxes (hostSender.ts). */
  readonly sender: HostSender;
  /** Resume tokens and the returners' catch-up actors (returns.ts). */
  readonly returns: Returns;
  roster: Roster;
  permissions: Permissions;
  stopped: boolean;
  readonly links: Map<number, PlayerLink>;
  readonly handshakes: Map<number, HandshakeActor>;
  /** One slot actor per player holding a slot (connected or away): the reconnect window and silence live there. */
  readonly slots: Map<number, SlotActor>;
  /** The accepted connections not yet closed, by id: writes go to their ports, close and markJoined to their actors. */
  readonly conns: Map<number, ConnectionHandle>;
  /** Connection id → the player id bound to it once joined (sender binding). */
  readonly playerOfConn: Map<number, number>;
  /** Joins per address key (ids are finite: machines/rules/joinRate.ts). */
  readonly joinRate: JoinRate;
  /** Connections whose internal error is being handled (the first fault is the one logged). */
  readonly faulted: Set<number>;
  /** The capabilities each player's Join announced (Join.caps), by id. */
  readonly capsOf: Map<number, string[]>;
  /** Connections in the handshake whose Join resumed a held slot (its MAC checked out), by connection id. */
  readonly resuming: Map<number, { id: number; last: number | undefined }>;

  // ---- what the session does (HostSession's methods) ----------------------------------------------
  broadcast<K extends KindName>(kind: K, payload: Payloads[K], except?: number): boolean;
  sendTo<K extends KindName>(id: number, kind: K, payload: Payloads[K]): boolean;
  kick(id: number, reason?: string, detail?: string): void;
  notify(notice: HostNotice): void;
  notifyRoster(): void;
  /** The Session state as Welcome carries it (HostSession.sessionPayload, read at each call). */
  sessionPayload(): Payloads['Session'];
  /** Whether a resync round runs (HostSession.resyncRunning, read at each call). */
  resyncRunning(): boolean;
  /** Why a returner cannot be given what it missed, by its stamps (HostSession.lateForReturn, read at each call). */
  lateForReturn(id: number, missed: readonly Message[]): string | undefined;
}
