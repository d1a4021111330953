// HostSession: the root of the host's side. It owns the roster, one handshake actor per connection in the
// handshake and one PlayerLink per joined player; it seals everything it sends as sender 0 with ONE counter
// for the whole session, binds each sender id to its connection, enforces who may send what, relays chat,
// pings, and runs one slot actor per player (machines/playerSlot.ts, systemId `slot:<id>`) that holds a dropped
// player's slot for the reconnect window (spec "Handshake", "Who may send what", "Players and slots", "Ping and
// round-trip time"; lockstep.md "Leave and removal"). While a resync save travels it holds what is made for a
// participant until its ResyncLoad (heldMessages.ts; actors/host/resync.ts drives it). The roster it lists and the
// Welcome it builds are in hostRoster.ts. Its state is one HostCore (hostCore.ts) that its parts share: the accepted
// connections (hostConnections.ts), the admission and seating (hostAdmission.ts), the slot actors' wiring
// (hostSlotWiring.ts), the joined players' frames and the ping round (joinedFrames.ts).
import { HOST_SENDER } from '../../protocol/frame.ts';
import { Kind, LIMITS, gameMaySend, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { KEY_BUDGET_BYTES, KeyBudget } from '../../protocol/keyBudget.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { EVERYONE, permissionsMessage, type Permissions } from '../../machines/rules/permissions.ts';
import * as roster from '../../machines/rules/roster.ts';
import { createJoinRate } from '../../machines/rules/joinRate.ts';
import { guarded, stackOf } from '../supervise.ts';
import type { AnyActorLogic } from 'xstate';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Listener } from '../ports.ts';
import { createSessionRouter, type GameLinkHandlers, type SessionRouter } from '../sessionRouter.ts';
import { sealedFrame, type Message } from '../wire.ts';
import { FEVERLINK3_VERSION, type HostNotice, type HostOptions, type HostPorts } from './hostTypes.ts';
import type { HandshakeActor } from './handshake.ts';
import type { SlotActor } from './slots.ts';
import type { PlayerLink } from './playerLink.ts';
import { HostSender } from './hostSender.ts';
import { Returns, type CatchUpActor } from './returns.ts';
import { playerRows, type HostPlayerRow } from './hostRoster.ts';
import type { HostCore, HostSessionOptions } from './hostCore.ts';
import { acceptConnection, connClosed, connFrame, connViolation, internalError } from './hostConnections.ts';
import { slotEvent } from './hostSlotWiring.ts';
import { chatFrom, pingAll } from './joinedFrames.ts';

export { FEVERLINK3_VERSION } from './hostTypes.ts';
export type { HostNotice, HostOptions, HostPorts } from './hostTypes.ts';

/** The Kicked detail when the session key has sealed its budget (protocol/keyBudget.ts). */
export const KEY_BUDGET_DETAIL = 'the session key sealed all it may: the host must start a new session';

export class HostSession {
  readonly options: HostSessionOptions;
  private readonly ports: HostPorts;
  /** HostPorts.inspect, guarded: given to every actor this session creates. */
  private readonly inspect: HostPorts['inspect'];
  /**
   * The session's root actor (systemId `host`): one `conn:<id>` child per accepted connection, and the file link
   * `link`. Connections and the link reach the session only as its events (actors/sessionRouter.ts).
   */
  readonly router: SessionRouter;
  /** The session's state and what its parts share (hostCore.ts). */
  private readonly core: HostCore;
  private readonly listeners = new Set<(notice: HostNotice) => void>();
  /** pingAll, supervised: a throw in a timer callback would end the process. */
  private readonly guardedPing: () => void;
  private pingTimer: unknown;
  /** The payload bytes sealed under the session key (protocol/keyBudget.ts), read at every ping round. */
  private readonly keyBudget: KeyBudget;
  /** Whether a resync round runs (actors/host/resync.ts tells): a returner is not caught up across a round. */
  resyncRunning: () => boolean = () => false;
  /**
   * Why a returner cannot be caught up with the messages it missed, if a stamp among them lies below where its game
   * may have run alone (actors/host/hostLockstep.ts tells; returnStamps.ts). Undefined: nothing stands in the way.
   */
  lateForReturn: (id: number, missed: readonly Message[]) => string | undefined = () => undefined;

  constructor(options: HostOptions, ports: HostPorts) {
    const pingIntervalMs = options.pingIntervalMs ?? 2000;
    this.options = {
      hostName: options.hostName,
      key: options.key,
      version: options.version ?? FEVERLINK3_VERSION,
      maxPlayers: options.maxPlayers ?? roster.DEFAULT_MAX_PLAYERS,
      mods: options.mods,
      pingIntervalMs,
      reconnectWindowMs: options.reconnectWindowMs ?? 300_000,
      joinDeadlineMs: options.joinDeadlineMs ?? JOIN_DEADLINE_MS,
      silenceMs: options.silenceMs ?? 10_000 + 3 * pingIntervalMs,
      keyBudgetBytes: options.keyBudgetBytes ?? KEY_BUDGET_BYTES,
    };
    this.ports = ports;
    this.guardedPing = guarded(ports.log, 'ping', () => pingAll(this.core));
    this.inspect = ports.inspect && guarded(ports.log, 'inspect', ports.inspect);
    this.router = createSessionRouter('host', {
      clock: ports.clock,
      log: ports.log,
      ...(this.inspect ? { inspect: this.inspect } : {}),
      frame: (e) => connFrame(this.core, e),
      violation: (e) => connViolation(this.core, e),
      closed: (e) => connClosed(this.core, e),
      connectionFailed: (id, err) => {
        const conn = this.core.conns.get(id);
        if (conn) internalError(this.core, conn, err, 'connection');
      },
      // The chart failed (our bug): no connection can be heard any more; the session ends.
      failed: (err) => {
        ports.log({ msg: 'internal error', while: 'host', stack: stackOf(err) });
        this.end('internal-error', 'the host failed');
      },
    });
    const aead = ports.crypto.aesGcm(options.key);
    // What the host seals and every authentic frame it opens: all that the session's key seals, whoever sealed it.
    this.keyBudget = new KeyBudget(this.options.keyBudgetBytes);
    const sealer = new Sealer(aead, HOST_SENDER, { budget: this.keyBudget });
    const links = new Map<number, PlayerLink>();
    const sender = new HostSender({ sealer, links, localGame: ports.localGame, clock: ports.clock, log: ports.log });
    const opener = new Opener(aead, this.keyBudget);
    this.core = {
      options: this.options,
      ports,
      inspect: this.inspect,
      router: this.router,
      sealer,
      opener,
      sender,
      returns: new Returns({ crypto: ports.crypto, clock: ports.clock, log: ports.log, inspect: this.inspect }),
      roster: roster.createRoster(options.hostName, this.options.maxPlayers),
      permissions: EVERYONE,
      stopped: false,
      links,
      handshakes: new Map<number, HandshakeActor>(),
      slots: new Map<number, SlotActor>(),
      conns: new Map<number, ConnectionHandle>(),
      playerOfConn: new Map<number, number>(),
      joinRate: createJoinRate(),
      faulted: new Set<number>(),
      capsOf: new Map<number, string[]>(),
      resuming: new Map<number, { id: number; last: number | undefined }>(),
      broadcast: (kind, payload, except) => this.broadcast(kind, payload, except),
      sendTo: (id, kind, payload) => this.sendTo(id, kind, payload),
      kick: (id, reason, detail) => this.kick(id, reason, detail),
      notify: (notice) => this.notify(notice),
      notifyRoster: () => this.notifyRoster(),
      sessionPayload: () => this.sessionPayload(),
      resyncRunning: () => this.resyncRunning(),
      lateForReturn: (id, missed) => this.lateForReturn(id, missed),
    };
    this.schedulePing();
  }

  /** Subscribes to notices; returns the unsubscribe function. */
  on(listener: (notice: HostNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Accepts every connection the listener hands out. */
  attach(listener: Listener): void {
    listener.onConnection((conn) => acceptConnection(this.core, conn));
  }

  /** Players holding a slot, the host's game (0) first (hostRoster.ts). */
  players(): HostPlayerRow[] {
    return playerRows(this.core.roster, this.core.links);
  }

  /** A player's dropped-frame counters ("cause:kind" → count), while it is connected (logs and the window). */
  droppedFrames(id: number): ReadonlyMap<string, number> | undefined {
    return this.core.links.get(id)?.dropped;
  }

  /** The handshake actor of a connection still in the handshake (the inspector and tests observe it). */
  handshakeOf(connId: number): HandshakeActor | undefined {
    return this.core.handshakes.get(connId);
  }

  /** The slot actor of a player holding a slot, connected or away (the inspector and tests observe it). */
  slotOf(id: number): SlotActor | undefined {
    return this.core.slots.get(id);
  }

  /** Where Welcome and the status take the Session from: the lockstep actor, once it runs. */
  useSessionSource(source: () => Payloads['Session']): void {
    this.sessionPayload = source;
  }

  currentPermissions(): Permissions {
    return this.core.permissions;
  }

  /**
   * Runs a file link's adapter actor (`logic` with `input`, reporting link.line / link.notice / link.problem) as the
   * child `link` of the session's root actor; its reports go to `handlers`, each guarded. Returns the detach function.
   */
  attachLink<N extends { type: string }, P>(logic: AnyActorLogic, input: unknown, handlers: GameLinkHandlers<N, P>): () => void {
    return this.router.attachLink(logic, input, handlers);
  }

  /** The returner's catch-up actor, while it runs (the inspector and tests observe it). */
  catchUpOf(id: number): CatchUpActor | undefined {
    return this.core.returns.catchUpOf(id);
  }

  /** The lockstep: a returned game's clock reached the host's promise (its stall mark ended). */
  caughtUp(id: number): void {
    this.core.returns.send(id, { type: 'game.reached' });
  }

  /** The resync round: a game said Hello after the round's load. */
  loaded(id: number): void {
    this.core.returns.send(id, { type: 'game.loaded' });
  }

  /** The Session state as Welcome carries it; the lockstep actor becomes its source once it runs. */
  sessionPayload: () => Payloads['Session'] = () => ({ started: false, speed: 0, lead: 2 });

  // ---- chat, permissions, kick --------------------------------------------------------------------

  /** The host's own chat line (player 0). */
  chat(text: string, level?: 'info' | 'warn' | 'error'): void {
    // A line typed at the host's terminal has no bound of its own: cut at the 500 code points a Chat carries.
    const points = [...text];
    const cut = points.length > LIMITS.chatChars ? points.slice(0, LIMITS.chatChars).join('') : text;
    chatFrom(this.core, 0, this.core.roster.hostName, cut, level);
  }

  setPermissions(permissions: Permissions): void {
    this.core.permissions = permissions;
    this.broadcast('Permissions', permissionsMessage(permissions));
    this.ports.log({ msg: 'permissions changed', permissions });
    this.notify({ type: 'permissions', permissions });
  }

  /** Ends a player's session: the slot chart releases the slot at once; the sealed Kicked goes out with the close. */
  kick(id: number, reason = 'kicked', detail?: string): void {
    if (!this.core.links.has(id)) return;
    slotEvent(this.core, id, { type: 'cmd.kick', reason, ...(detail ? { detail } : {}) });
  }

  // ---- ping ---------------------------------------------------------------------------------------

  private schedulePing(): void {
    this.pingTimer = this.ports.clock.setTimeout(() => {
      // Checked here, not in the seal: ending the session inside a relay's seal would re-enter it. A ping interval
      // of traffic past 2^38 bytes stays far below the 2^38.5 bound.
      if (this.keyBudget.spent) return this.endForKeyBudget();
      this.guardedPing();
      if (!this.core.stopped) this.schedulePing();
    }, this.options.pingIntervalMs);
  }

  // ---- sending (hostSender.ts: one sealer, the resync hold, the outboxes) ------------------------

  /** Seals once and writes to every joined player but `except`, the host's game first; false when it does not fit. */
  broadcast<K extends KindName>(kind: K, payload: Payloads[K], except?: number): boolean {
    return this.core.sender.broadcast(kind, payload, except);
  }

  /** A payload's JSON text, the last broadcast's own when it is that payload (HostSender.textOf: the relay ledger). */
  textOf<K extends KindName>(kind: K, payload: Payloads[K]): string {
    return this.core.sender.textOf(kind, payload);
  }

  /** To one player; id 0 is the host's own game. False when the payload does not fit a frame (logged, not sent). */
  sendTo<K extends KindName>(id: number, kind: K, payload: Payloads[K]): boolean {
    return this.core.sender.sendTo(id, kind, payload);
  }

  /** Holds every message for these games (0: the host's own) but the session layer's, until `releaseHeld` (a resync). */
  hold(ids: readonly number[]): void {
    this.core.sender.hold(ids);
  }

  /** Sends what was held for `id`, in order (right after its ResyncLoad); `drop`: forgets it (the player left). */
  releaseHeld(id: number, drop = false): void {
    this.core.sender.releaseHeld(id, drop);
  }

  /** Seals a ResyncChunk payload (its JSON bytes) once with the session's one counter: the whole frame. */
  sealChunk(payload: Uint8Array): Uint8Array {
    return this.core.sender.sealChunk(payload);
  }

  /** Seals a ReportBundle payload with the session's one counter: the whole frame (actors/host/report.ts). */
  sealReportBundle(payload: Uint8Array): Uint8Array {
    return this.core.sender.sealReportBundle(payload);
  }

  /** The connection of a joined player (the save transfer writes the sealed chunks to it), if connected. */
  connectionOf(id: number): ConnectionHandle | undefined {
    return this.core.links.get(id)?.conn;
  }

  /** A message from the host's own game (player 0): trusted like the host, routed like a player's. */
  fromLocalGame(message: Message): void {
    if (message.kind === 'Chat') return chatFrom(this.core, 0, this.core.roster.hostName, message.payload.text, message.payload.level);
    // The game's kinds only (not Pong, Leave or the launcher's): the bridge checks this too.
    if (gameMaySend(Kind[message.kind])) this.notify({ type: 'game', from: 0, message });
  }

  /** Marks a player's game ready (it said Hello in the session's world) or not, for Welcome's player list. */
  setReady(id: number, ready: boolean): void {
    if (id === 0) return;
    this.core.roster = roster.setReady(this.core.roster, id, ready);
  }

  /** Ids of the players connected now. */
  connectedIds(): number[] {
    return [...this.core.links.keys()];
  }

  /** Closes every connection with `reason`; joined players get the sealed Kicked first. */
  stop(reason = 'shutdown', detail = 'the host ended the session'): void {
    const core = this.core;
    if (core.stopped) return;
    core.stopped = true;
    this.ports.clock.clearTimeout(this.pingTimer);
    // Every slot ends: a connected player gets the sealed Kicked (out.shutdown); an away one's window is cancelled.
    for (const id of [...core.slots.keys()]) slotEvent(core, id, { type: 'cmd.shutdown', reason, detail });
    for (const slot of core.slots.values()) slot.stop();
    core.slots.clear();
    const links = [...core.links.values()];
    core.links.clear();
    core.playerOfConn.clear();
    for (const link of links) link.conn.close(reason, sealedFrame(core.sealer, 'Kicked', { reason, detail }));
    for (const actor of core.handshakes.values()) actor.stop();
    core.handshakes.clear();
    core.returns.stop();
  }

  /** The session ends on the host's own decision (not the launcher's stop): stopped, and the `ended` notice says why. */
  private end(reason: string, detail: string): void {
    if (this.core.stopped) return;
    this.stop(reason, detail);
    this.notify({ type: 'ended', reason, detail });
  }

  private endForKeyBudget(): void {
    const { used, limit } = this.keyBudget;
    this.ports.log({ msg: 'session key budget spent', level: 'error', bytes: used, limit });
    this.end('shutdown', KEY_BUDGET_DETAIL);
  }

  private notify(notice: HostNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  private notifyRoster(): void {
    this.notify({ type: 'roster', players: this.players() });
  }
}
