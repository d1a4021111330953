// HostSession: the root of the host's side. It owns the roster, one handshake actor per connection in the
// handshake and one PlayerLink per joined player; it seals everything it sends as sender 0 with ONE counter
// for the whole session, binds each sender id to its connection, enforces who may send what, relays chat,
// pings, and runs one slot actor per player (machines/playerSlot.ts, systemId `slot:<id>`) that holds a dropped
// player's slot for the reconnect window (spec "Handshake", "Who may send what", "Players and slots", "Ping and
// round-trip time"; lockstep.md "Leave and removal"). While a resync save travels it holds what is made for a
// participant until its ResyncLoad (heldMessages.ts; actors/host/resync.ts drives it). The roster it lists and the
// Welcome it builds are in hostRoster.ts.
import { HOST_SENDER, type Frame } from '../../protocol/frame.ts';
import {
  Kind,
  LIMITS,
  gameMaySend,
  isSealedKind,
  kindName,
  playerMaySend,
  type KindName,
  type Payloads,
} from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { allows, EVERYONE, permissionsMessage, type Permissions } from '../../machines/rules/permissions.ts';
import * as roster from '../../machines/rules/roster.ts';
import { createJoinRate, takeJoin } from '../../machines/rules/joinRate.ts';
import { guarded, stackOf } from '../supervise.ts';
import type { AnyActorLogic } from 'xstate';
import type { ConnectionHandle, ConnectionReport } from '../connectionActor.ts';
import type { Connection, Listener } from '../ports.ts';
import { createSessionRouter, type GameLinkHandlers, type SessionRouter } from '../sessionRouter.ts';
import { sealedFrame, unsealedFrame, type Message } from '../wire.ts';
import { openWith } from '../chunkWire.ts';
import type { ModEntry } from './mods.ts';
import { FEVERLINK3_VERSION, type HostNotice, type HostOptions, type HostPorts } from './hostTypes.ts';
import { createHandshake, handshakeFrame, type HandshakeActor } from './handshake.ts';
import { createSlot, type SlotActor } from './slots.ts';
import type { PlayerSlotEvent } from '../../machines/playerSlot.ts';
import { PlayerLink, rttReport } from './playerLink.ts';
import { HostSender } from './hostSender.ts';
import { Returns, type CatchUpActor } from './returns.ts';
import { playerRows, welcomeFor, type HostPlayerRow } from './hostRoster.ts';

export { FEVERLINK3_VERSION } from './hostTypes.ts';
export type { HostNotice, HostOptions, HostPorts } from './hostTypes.ts';

export class HostSession {
  readonly options: Required<Omit<HostOptions, 'mods'>> & { mods: ModEntry[] | undefined };
  private readonly ports: HostPorts;
  private readonly sealer: Sealer;
  private readonly opener: Opener;
  private roster: roster.Roster;
  private permissions: Permissions = EVERYONE;
  private readonly links = new Map<number, PlayerLink>();
  private readonly handshakes = new Map<number, HandshakeActor>();
  /** One slot actor per player holding a slot (connected or away): the reconnect window and silence live there. */
  private readonly slots = new Map<number, SlotActor>();
  /** HostPorts.inspect, guarded: given to every actor this session creates. */
  private readonly inspect: HostPorts['inspect'];
  /**
   * The session's root actor (systemId `host`): one `conn:<id>` child per accepted connection, and the file link
   * `link`. Connections and the link reach the session only as its events (actors/sessionRouter.ts).
   */
  readonly router: SessionRouter;
  /** The accepted connections not yet closed, by id: writes go to their ports, close and markJoined to their actors. */
  private readonly conns = new Map<number, ConnectionHandle>();
  /** Connection id → the player id bound to it once joined (sender binding). */
  private readonly playerOfConn = new Map<number, number>();
  private readonly listeners = new Set<(notice: HostNotice) => void>();
  /** pingAll, supervised: a throw in a timer callback would end the process. */
  private readonly guardedPing: () => void;
  /** Joins per address key (ids are finite: machines/rules/joinRate.ts). */
  private readonly joinRate = createJoinRate();
  /** Connections whose internal error is being handled (the first fault is the one logged). */
  private readonly faulted = new Set<number>();
  private pingTimer: unknown;
  private stopped = false;
  /** Every frame the host sends goes through here: one counter, the resync hold, the outboxes (hostSender.ts). */
  private readonly sender: HostSender;
  /** The capabilities each player's Join announced (Join.caps), by id. */
  private readonly capsOf = new Map<number, string[]>();
  /** Resume tokens and the returners' catch-up actors (returns.ts). */
  private readonly returns: Returns;
  /** Connections in the handshake whose Join resumed a held slot (its MAC checked out), by connection id. */
  private readonly resuming = new Map<number, { id: number; last: number | undefined }>();
  /** Whether a resync round runs (actors/host/resync.ts tells): a returner is not caught up across a round. */
  resyncRunning: () => boolean = () => false;

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
    };
    this.ports = ports;
    this.guardedPing = guarded(ports.log, 'ping', () => this.pingAll());
    this.inspect = ports.inspect && guarded(ports.log, 'inspect', ports.inspect);
    this.router = createSessionRouter('host', {
      clock: ports.clock,
      log: ports.log,
      ...(this.inspect ? { inspect: this.inspect } : {}),
      frame: (e) => this.connFrame(e),
      violation: (e) => this.connViolation(e),
      closed: (e) => this.connClosed(e),
      connectionFailed: (id, err) => {
        const conn = this.conns.get(id);
        if (conn) this.internalError(conn, err, 'connection');
      },
      // The chart failed (our bug): no connection can be heard any more; the session ends.
      failed: (err) => {
        ports.log({ msg: 'internal error', while: 'host', stack: stackOf(err) });
        this.stop('internal-error', 'the host failed');
      },
    });
    const aead = ports.crypto.aesGcm(options.key);
    this.sealer = new Sealer(aead, HOST_SENDER);
    this.sender = new HostSender({ sealer: this.sealer, links: this.links, localGame: ports.localGame, clock: ports.clock, log: ports.log });
    this.opener = new Opener(aead);
    this.roster = roster.createRoster(options.hostName, this.options.maxPlayers);
    this.returns = new Returns({ crypto: ports.crypto, clock: ports.clock, log: ports.log, inspect: this.inspect });
    this.schedulePing();
  }

  /** Subscribes to notices; returns the unsubscribe function. */
  on(listener: (notice: HostNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Accepts every connection the listener hands out. */
  attach(listener: Listener): void {
    listener.onConnection((conn) => this.accept(conn));
  }

  /** Players holding a slot, the host's game (0) first (hostRoster.ts). */
  players(): HostPlayerRow[] {
    return playerRows(this.roster, this.links);
  }

  /** A player's dropped-frame counters ("cause:kind" → count), while it is connected (logs and the window). */
  droppedFrames(id: number): ReadonlyMap<string, number> | undefined {
    return this.links.get(id)?.dropped;
  }

  /** The handshake actor of a connection still in the handshake (the inspector and tests observe it). */
  handshakeOf(connId: number): HandshakeActor | undefined {
    return this.handshakes.get(connId);
  }

  /** The slot actor of a player holding a slot, connected or away (the inspector and tests observe it). */
  slotOf(id: number): SlotActor | undefined {
    return this.slots.get(id);
  }

  /** Where Welcome and the status take the Session from: the lockstep actor, once it runs. */
  useSessionSource(source: () => Payloads['Session']): void {
    this.sessionPayload = source;
  }

  currentPermissions(): Permissions {
    return this.permissions;
  }

  // ---- connections in the handshake -------------------------------------------------------------

  private accept(port: Connection): void {
    if (this.stopped) {
      port.close('shutdown');
      return;
    }
    if (this.conns.has(port.id)) {
      // Two listeners handing out the same id: the actor `conn:<id>` is taken. Never in a session (ids are per process).
      this.ports.log({ msg: 'internal error', conn: port.id, while: 'accept', stack: 'a connection with this id is open' });
      port.close('internal-error');
      return;
    }
    const conn = this.router.handle(port);
    this.conns.set(conn.id, conn);
    const actor = createHandshake(conn, {
      crypto: this.ports.crypto,
      clock: this.ports.clock,
      log: this.ports.log,
      key: this.options.key,
      version: this.options.version,
      mods: this.options.mods,
      joinDeadlineMs: this.options.joinDeadlineMs,
      inspect: this.inspect,
      admit: (name, caps, resume) => {
        // A returner whose own slot is still held takes it back: no new id, so neither `full` nor the join rate.
        if (resume !== undefined && this.roster.players.has(resume.id) && this.slots.has(resume.id)) {
          this.resuming.set(conn.id, resume);
          return { ok: true, you: resume.id };
        }
        if (!takeJoin(this.joinRate, conn.addressKey, this.ports.clock.now())) {
          return { ok: false, reason: 'flood', detail: 'too many joins from this address; try again in a minute' };
        }
        const decision = roster.admitPlayer(this.roster, name);
        if (!decision.ok) return decision;
        this.roster = decision.roster;
        if (caps && caps.length > 0) this.capsOf.set(decision.player.id, [...caps]);
        return { ok: true, you: decision.player.id };
      },
      resumeTokens: (id) => this.returns.tokensOf(id),
      welcomed: (you) => {
        const resume = this.resuming.get(conn.id);
        this.resuming.delete(conn.id);
        if (resume) this.resumeSeat(conn, resume.id, resume.last);
        else this.seat(conn, you);
      },
      // Called before `welcomed` (actors/host/handshake.ts): the resume stays noted until the Welcome or the close.
      ended: () => this.handshakes.delete(conn.id),
    });
    this.handshakes.set(conn.id, actor);
    // A fault inside the handshake chart (our bug, whatever the peer sent) ends this connection only.
    actor.subscribe({ error: (err) => this.internalError(conn, err, 'handshake') });
    // The connection's actor `conn:<id>`: its frame, violation and close events come back through the router and are
    // routed here by phase (handshake, then joined), each supervised: a throw while handling this connection's event
    // ends this connection, never the process or another player.
    this.router.accept(port);
    actor.start();
  }

  /** A frame of an accepted connection: to its handshake actor, or (joined) checked, opened and handled. */
  private connFrame(e: Extract<ConnectionReport, { type: 'conn.frame' }>): void {
    const conn = this.conns.get(e.conn);
    if (conn === undefined) return;
    try {
      const handshake = this.handshakes.get(e.conn);
      if (handshake !== undefined) handshakeFrame(handshake, e.frame);
      else this.joinedFrame(conn, e.frame);
    } catch (err) {
      this.internalError(conn, err, 'frame');
    }
  }

  private connViolation(e: Extract<ConnectionReport, { type: 'conn.violation' }>): void {
    const conn = this.conns.get(e.conn);
    if (conn === undefined) return;
    try {
      const handshake = this.handshakes.get(e.conn);
      if (handshake !== undefined) {
        handshake.send(e.reason === 'flood' ? { type: 'conn.flood' } : { type: 'recv.malformed', detail: 'bad frame' });
      } else {
        const id = this.playerOfConn.get(conn.id);
        if (id !== undefined) this.kick(id, e.reason);
        else conn.close(e.reason);
      }
    } catch (err) {
      this.internalError(conn, err, 'violation');
    }
  }

  private connClosed(e: Extract<ConnectionReport, { type: 'conn.closed' }>): void {
    const conn = this.conns.get(e.conn);
    if (conn === undefined) return;
    try {
      this.handshakes.get(e.conn)?.send({ type: 'conn.closed', reason: e.reason });
      const id = this.playerOfConn.get(conn.id);
      this.playerOfConn.delete(conn.id);
      if (id !== undefined) this.dropped(id, e.reason);
    } catch (err) {
      this.internalError(conn, err, 'close');
    } finally {
      this.conns.delete(e.conn);
      this.resuming.delete(e.conn);
    }
  }

  /**
   * Runs a file link's adapter actor (`logic` with `input`, reporting link.line / link.notice / link.problem) as the
   * child `link` of the session's root actor; its reports go to `handlers`, each guarded. Returns the detach function.
   */
  attachLink<N extends { type: string }, P>(logic: AnyActorLogic, input: unknown, handlers: GameLinkHandlers<N, P>): () => void {
    return this.router.attachLink(logic, input, handlers);
  }

  /** A fault of ours while serving `conn`: logged once with the stack; the player is kicked, or the connection closed. */
  private internalError(conn: ConnectionHandle, err: unknown, what: string): void {
    if (this.faulted.has(conn.id)) return;
    this.faulted.add(conn.id);
    const id = this.playerOfConn.get(conn.id);
    const stack = stackOf(err);
    this.ports.log({ msg: 'internal error', conn: conn.id, ...(id === undefined ? {} : { player: id }), while: what, stack });
    try {
      if (id !== undefined && this.links.has(id)) this.kick(id, 'internal-error', 'the host failed to handle a message');
      else conn.close('internal-error');
    } catch {
      conn.close('internal-error');
    }
    if (conn.closeReason !== undefined) this.faulted.delete(conn.id);
  }

  /** The handshake succeeded: bind the id to this connection, Welcome, Permissions, tell the others. */
  private seat(conn: ConnectionHandle, id: number): void {
    const entry = this.roster.players.get(id);
    if (!entry) return;
    if (conn.closeReason !== undefined) {
      this.roster = roster.releaseSlot(this.roster, id);
      return;
    }
    this.bind(conn, id);
    this.slots.set(id, this.createSlot(id, entry.name));
    this.sender.openOutbox(id);
    this.sendTo(id, 'Welcome', this.welcomeFor(id, this.sessionPayload(), { resume: this.returns.first(id) }));
    this.sendTo(id, 'Permissions', permissionsMessage(this.permissions));
    this.broadcast('PlayerJoined', { player: { id, name: entry.name, ready: entry.ready } }, id);
    this.ports.log({ msg: 'player joined', id, name: entry.name, conn: conn.id, address: conn.remoteAddress });
    const caps = this.capsOf.get(id);
    this.notify({ type: 'joined', id, name: entry.name, ...(caps ? { caps } : {}) });
    this.notifyRoster();
  }

  /**
   * A returner's Join resumed its held slot (spec "Reconnect"): the same id, name, slot and permissions on the new
   * connection (one the host has not yet noticed is dead is closed), Welcome `resumed` with a fresh token and the next
   * epoch, and its catch-up chart decides: everything after `last` still in its outbox → Welcome.catchUp and the
   * messages it missed, resent; otherwise a `player returned` round (in a started session).
   */
  private resumeSeat(conn: ConnectionHandle, id: number, last: number | undefined): void {
    const entry = this.roster.players.get(id);
    if (conn.closeReason !== undefined) return; // this connection dropped meanwhile: the slot stays away
    if (!entry) {
      conn.close('released', unsealedFrame('Reject', { reason: 'full', detail: 'the slot was released while you came back: join again' }));
      return;
    }
    const old = this.links.get(id);
    if (old) {
      this.links.delete(id);
      this.playerOfConn.delete(old.conn.id);
      old.conn.close('replaced');
    }
    this.bind(conn, id);
    this.slotEvent(id, { type: 'conn.resumed' });
    this.roster = roster.markConnected(this.roster, id);
    const outbox = this.sender.outboxOf(id);
    outbox?.newConnection();
    const now = this.ports.clock.now();
    const running = this.resyncRunning();
    const cover = running ? { covers: false as const, why: 'a resync round is running' } : (outbox?.cover(last, now) ?? { covers: false as const, why: 'no outbox' });
    const session = this.sessionPayload();
    const catchUp = cover.covers ? { catchUp: Number(this.opener.highest(id)) } : {};
    this.sendTo(id, 'Welcome', this.welcomeFor(id, session, { resume: this.returns.next(id), resumed: true, ...catchUp }));
    this.ports.log({ msg: 'player resumed', id, name: entry.name, conn: conn.id, address: conn.remoteAddress, last, catchUp: cover.covers });
    const missed = cover.covers ? cover.messages : [];
    this.returns.start(
      {
        id,
        name: entry.name,
        last,
        outbox: cover.covers ? { covers: true, count: missed.length } : { covers: false, why: cover.why },
        started: session.started,
      },
      {
        resend: () => {
          outbox?.clear();
          this.sender.resend(id, missed);
          this.welcomeBack(id, entry.name, true);
        },
        // Not caught up: a `player returned` round reloads its game (not ready until its Hello after the load); in a
        // session not started nothing ran, so no round and it keeps its ready.
        returned: (_, round) => {
          outbox?.clear();
          if (round) this.roster = roster.setReady(this.roster, id, false);
          this.welcomeBack(id, entry.name, !round);
        },
      },
    );
  }

  /** The connection is player `id`'s from now on (sender binding): its frames are opened as that player's. */
  private bind(conn: ConnectionHandle, id: number): void {
    conn.markJoined();
    this.links.set(id, new PlayerLink(id, conn, this.ports.clock.now()));
    this.playerOfConn.set(conn.id, id);
  }

  /** A Welcome for player `id`: the roster and the session as they are now, with the join's or the resume's fields. */
  private welcomeFor(id: number, session: Payloads['Session'], extra: Partial<Payloads['Welcome']>): Payloads['Welcome'] {
    return welcomeFor(this.roster, this.options, id, session, extra);
  }

  /** After a resume: Permissions to the returner, PlayerJoined to the others, the lockstep and the round told. */
  private welcomeBack(id: number, name: string, caughtUp: boolean): void {
    const ready = this.roster.players.get(id)?.ready ?? false;
    this.sendTo(id, 'Permissions', permissionsMessage(this.permissions));
    this.broadcast('PlayerJoined', { player: { id, name, ready } }, id);
    const caps = this.capsOf.get(id);
    if (caughtUp) this.notify({ type: 'returned', id, name, ...(caps ? { caps } : {}) });
    else this.notify({ type: 'joined', id, name, returned: true, ...(caps ? { caps } : {}) });
    this.notifyRoster();
  }

  /** The returner's catch-up actor, while it runs (the inspector and tests observe it). */
  catchUpOf(id: number): CatchUpActor | undefined {
    return this.returns.catchUpOf(id);
  }

  /** The lockstep: a returned game's clock reached the host's promise (its stall mark ended). */
  caughtUp(id: number): void {
    this.returns.send(id, { type: 'game.reached' });
  }

  /** The resync round: a game said Hello after the round's load. */
  loaded(id: number): void {
    this.returns.send(id, { type: 'game.loaded' });
  }

  /** The Session state as Welcome carries it; the lockstep actor becomes its source once it runs. */
  sessionPayload: () => Payloads['Session'] = () => ({ started: false, speed: 0, lead: 2 });

  // ---- joined players -----------------------------------------------------------------------------

  private joinedFrame(conn: ConnectionHandle, frame: Frame): void {
    const id = this.playerOfConn.get(conn.id);
    const link = id === undefined ? undefined : this.links.get(id);
    if (!link) return;
    const kind = frame.header.kind;
    if (frame.header.sender !== link.id) return this.drop(link, 'sender', kind, { sender: frame.header.sender });
    if (!isSealedKind(kind) || !playerMaySend(kind)) return this.drop(link, 'kind', kind);
    const opened = openWith(this.opener, frame, this.ports.base64);
    if (opened.ok || opened.why === 'not-decoded' || opened.why === 'unknown-kind') {
      // Heard (the silence timer) only once its sender and tag checked out: anyone on the path can write bytes.
      link.rtt = { ...link.rtt, lastHeard: this.ports.clock.now() };
      this.returns.confirm(link.id); // a returner that speaks on its new connection read its Welcome
    }
    if (!opened.ok) return this.drop(link, opened.why === 'not-decoded' || opened.why === 'unknown-kind' ? 'decode' : 'open', kind, { why: opened.detail });
    this.handle(link, opened.message);
  }

  private drop(link: PlayerLink, cause: 'sender' | 'kind' | 'open' | 'decode' | 'permission', kind: number, extra: object = {}): void {
    if (link.countDrop(cause, kind)) {
      this.ports.log({ msg: 'frame dropped', player: link.id, cause, kind, kindName: kindName(kind), ...extra });
    }
  }

  private handle(link: PlayerLink, message: Message): void {
    switch (message.kind) {
      case 'Pong':
        link.pong(message.payload.n, this.ports.clock.now(), message.payload.w);
        // Pong n: the player read every frame up to Ping n; its outbox lets go of them.
        this.sender.outboxOf(link.id)?.ponged(message.payload.n);
        return;
      case 'Leave':
        this.slotEvent(link.id, { type: 'recv.Leave' });
        return;
      case 'Chat': {
        const entry = this.roster.players.get(link.id);
        if (!entry) return;
        const { text, level } = message.payload;
        this.chatFrom(link.id, entry.name, text, level);
        return;
      }
      case 'SpeedRequest':
        if (!allows(this.permissions, 'speed', link.id)) return this.drop(link, 'permission', Kind.SpeedRequest);
        this.notify({ type: 'game', from: link.id, message });
        return;
      default:
        this.notify({ type: 'game', from: link.id, message });
    }
  }

  private chatFrom(from: number, name: string, text: string, level?: 'info' | 'warn' | 'error'): void {
    const payload: Payloads['Chat'] = { text, from, name, ...(level ? { level } : {}) };
    this.broadcast('Chat', payload, from);
    this.notify({ type: 'chat', from, name, text, ...(level ? { level } : {}) });
  }

  /** The host's own chat line (player 0). */
  chat(text: string, level?: 'info' | 'warn' | 'error'): void {
    // A line typed at the host's terminal has no bound of its own: cut at the 500 code points a Chat carries.
    const points = [...text];
    const cut = points.length > LIMITS.chatChars ? points.slice(0, LIMITS.chatChars).join('') : text;
    this.chatFrom(0, this.roster.hostName, cut, level);
  }

  setPermissions(permissions: Permissions): void {
    this.permissions = permissions;
    this.broadcast('Permissions', permissionsMessage(permissions));
    this.ports.log({ msg: 'permissions changed', permissions });
    this.notify({ type: 'permissions', permissions });
  }

  /** Ends a player's session: the slot chart releases the slot at once; the sealed Kicked goes out with the close. */
  kick(id: number, reason = 'kicked', detail?: string): void {
    if (!this.links.has(id)) return;
    this.slotEvent(id, { type: 'cmd.kick', reason, ...(detail ? { detail } : {}) });
  }

  /** The connection dropped without Leave: the slot chart holds the slot for the reconnect window. */
  private dropped(id: number, reason: string): void {
    if (!this.links.has(id)) return;
    this.slotEvent(id, { type: 'conn.closed', reason });
  }

  /** Sends a player's slot actor an event, while it runs. */
  private slotEvent(id: number, event: PlayerSlotEvent): void {
    const slot = this.slots.get(id);
    if (slot?.getSnapshot().status === 'active') slot.send(event);
  }

  /** The slot actor of a player just seated: its outputs become PlayerLeft broadcasts, roster changes, logs, notices. */
  private createSlot(id: number, name: string): SlotActor {
    const slot = createSlot(id, name, {
      clock: this.ports.clock,
      log: this.ports.log,
      inspect: this.inspect,
      reconnectWindowMs: this.options.reconnectWindowMs,
      silenceMs: this.options.silenceMs,
      away: (e) => this.away(e.id, e.reason),
      released: (e) => {
        const kicked = e.kicked && { reason: e.kicked.reason, ...(e.kicked.detail ? { detail: e.kicked.detail } : {}) };
        this.release(e.id, e.reason, kicked && sealedFrame(this.sealer, 'Kicked', kicked));
      },
      shutdown: (e) => {
        const link = this.links.get(e.id);
        this.links.delete(e.id);
        if (!link) return;
        this.playerOfConn.delete(link.conn.id);
        link.conn.close(e.reason, sealedFrame(this.sealer, 'Kicked', { reason: e.reason, detail: e.detail }));
      },
      ended: () => {
        if (this.slots.get(id) === slot) this.slots.delete(id);
      },
      // The chart failed (our bug): logged with the stack; the slot is released here so it is never held by no one.
      failed: (err) => {
        if (this.slots.get(id) === slot) this.slots.delete(id);
        this.ports.log({ msg: 'internal error', player: id, while: 'slot', stack: stackOf(err) });
        const detail = 'the host failed to handle a message';
        const frame = this.links.has(id) ? sealedFrame(this.sealer, 'Kicked', { reason: 'internal-error', detail }) : undefined;
        this.release(id, 'internal-error', frame);
      },
    });
    return slot;
  }

  /** The slot chart released the slot (Leave, kick, end of the window): PlayerLeft without `away`, the slot is free. */
  private release(id: number, reason: string, finalFrame?: Uint8Array): void {
    const entry = this.roster.players.get(id);
    const link = this.links.get(id);
    this.links.delete(id);
    if (!entry) return;
    this.roster = roster.releaseSlot(this.roster, id);
    this.capsOf.delete(id);
    this.sender.closeOutbox(id);
    this.returns.forget(id, reason);
    if (link) this.playerOfConn.delete(link.conn.id);
    link?.conn.close(reason, finalFrame);
    this.broadcast('PlayerLeft', { id, name: entry.name });
    this.ports.log({ msg: 'player left', id, name: entry.name, reason });
    this.notify({ type: 'left', id, name: entry.name, away: false });
    this.notifyRoster();
  }

  /** The slot chart holds the slot (the connection dropped, or the player fell silent: the host closes it then). */
  private away(id: number, reason: string): void {
    const entry = this.roster.players.get(id);
    const link = this.links.get(id);
    if (!link || !entry) return;
    this.links.delete(id);
    this.playerOfConn.delete(link.conn.id);
    if (link.conn.closeReason === undefined) link.conn.close(reason);
    this.roster = roster.markAway(this.roster, id);
    this.broadcast('PlayerLeft', { id, name: entry.name, away: true });
    this.ports.log({ msg: 'player away', id, name: entry.name, reason, holdMs: this.options.reconnectWindowMs });
    this.returns.send(id, { type: 'conn.closed', reason });
    this.notify({ type: 'left', id, name: entry.name, away: true });
    this.notifyRoster();
  }

  // ---- ping ---------------------------------------------------------------------------------------

  private schedulePing(): void {
    this.pingTimer = this.ports.clock.setTimeout(() => {
      this.guardedPing();
      if (!this.stopped) this.schedulePing();
    }, this.options.pingIntervalMs);
  }

  /**
   * Pings every connected player, carrying every measured round trip and offset. Each slot chart is told first how
   * long its player has not been heard (`ping.due`); a silent one is dropped as away there (and not pinged).
   */
  private pingAll(): void {
    const now = this.ports.clock.now();
    const { rtt, off } = rttReport(this.links.values());
    for (const link of [...this.links.values()]) {
      this.slotEvent(link.id, { type: 'ping.due', sinceHeard: now - link.rtt.lastHeard });
      if (this.links.get(link.id) !== link) continue;
      const n = link.nextPing(now, this.ports.wallClock());
      // ack: the last frame heard from this player (its own outbox lets go of what it covers).
      const ack = Number(this.opener.highest(link.id));
      this.sendTo(link.id, 'Ping', { n, rtt, ...(Object.keys(off).length ? { off } : {}), ...(ack > 0 ? { ack } : {}) });
      this.sender.outboxOf(link.id)?.pinged(n, this.sender.lastCounter);
    }
    this.notify({ type: 'rtt', rtt, off });
  }

  // ---- sending (hostSender.ts: one sealer, the resync hold, the outboxes) ------------------------

  /** Seals once and writes to every joined player but `except`, the host's game first; false when it does not fit. */
  broadcast<K extends KindName>(kind: K, payload: Payloads[K], except?: number): boolean {
    return this.sender.broadcast(kind, payload, except);
  }

  /** To one player; id 0 is the host's own game. False when the payload does not fit a frame (logged, not sent). */
  sendTo<K extends KindName>(id: number, kind: K, payload: Payloads[K]): boolean {
    return this.sender.sendTo(id, kind, payload);
  }

  /** Holds every message for these games (0: the host's own) but the session layer's, until `releaseHeld` (a resync). */
  hold(ids: readonly number[]): void {
    this.sender.hold(ids);
  }

  /** Sends what was held for `id`, in order (right after its ResyncLoad); `drop`: forgets it (the player left). */
  releaseHeld(id: number, drop = false): void {
    this.sender.releaseHeld(id, drop);
  }

  /** Seals a ResyncChunk payload (its JSON bytes) once with the session's one counter: the whole frame. */
  sealChunk(payload: Uint8Array): Uint8Array {
    return this.sender.sealChunk(payload);
  }

  /** Seals a ReportBundle payload with the session's one counter: the whole frame (actors/host/report.ts). */
  sealReportBundle(payload: Uint8Array): Uint8Array {
    return this.sender.sealReportBundle(payload);
  }

  /** The connection of a joined player (the save transfer writes the sealed chunks to it), if connected. */
  connectionOf(id: number): ConnectionHandle | undefined {
    return this.links.get(id)?.conn;
  }

  /** A message from the host's own game (player 0): trusted like the host, routed like a player's. */
  fromLocalGame(message: Message): void {
    if (message.kind === 'Chat') return this.chatFrom(0, this.roster.hostName, message.payload.text, message.payload.level);
    // The game's kinds only (not Pong, Leave or the launcher's): the bridge checks this too.
    if (gameMaySend(Kind[message.kind])) this.notify({ type: 'game', from: 0, message });
  }

  /** Marks a player's game ready (it said Hello in the session's world) or not, for Welcome's player list. */
  setReady(id: number, ready: boolean): void {
    if (id === 0) return;
    this.roster = roster.setReady(this.roster, id, ready);
  }

  /** Ids of the players connected now. */
  connectedIds(): number[] {
    return [...this.links.keys()];
  }

  /** Closes every connection with `reason`; joined players get the sealed Kicked first. */
  stop(reason = 'shutdown', detail = 'the host ended the session'): void {
    if (this.stopped) return;
    this.stopped = true;
    this.ports.clock.clearTimeout(this.pingTimer);
    // Every slot ends: a connected player gets the sealed Kicked (out.shutdown); an away one's window is cancelled.
    for (const id of [...this.slots.keys()]) this.slotEvent(id, { type: 'cmd.shutdown', reason, detail });
    for (const slot of this.slots.values()) slot.stop();
    this.slots.clear();
    const links = [...this.links.values()];
    this.links.clear();
    this.playerOfConn.clear();
    for (const link of links) link.conn.close(reason, sealedFrame(this.sealer, 'Kicked', { reason, detail }));
    for (const actor of this.handshakes.values()) actor.stop();
    this.handshakes.clear();
    this.returns.stop();
  }

  private notify(notice: HostNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  private notifyRoster(): void {
    this.notify({ type: 'roster', players: this.players() });
  }
}
