// PlayerSession: the player's root. It runs the player's handshake chart over one connection, seals with
// its assigned id after Welcome, accepts sealed frames from sender 0 only, answers Ping at the session
// layer (never given to the game), keeps the roster, permissions and RTTs for the window, and hands game
// traffic (Session, PeerClock, Action, …) to whoever drives the game (spec "Handshake", "Ping").
import { createActor, type Actor, type AnyActorLogic, type InspectionEvent } from 'xstate';
import type { Crypto } from '../../protocol/crypto.ts';
import { HOST_SENDER, type Frame } from '../../protocol/frame.ts';
import { isSealedKind, Kind, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { joinProof } from '../../protocol/keys.ts';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { playerHandshakeMachine } from '../../machines/playerHandshake.ts';
import type { Permissions } from '../../machines/rules/permissions.ts';
import type { ModEntry } from '../host/mods.ts';
import { FEVERLINK3_VERSION } from '../host/hostSession.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Clock, Connection, LogFn } from '../ports.ts';
import { createSessionRouter, type GameLinkHandlers, type SessionRouter } from '../sessionRouter.ts';
import { guarded, stackOf } from '../supervise.ts';
import { decodeMessage, openMessage, sealedFrame, unsealedFrame, type Message } from '../wire.ts';

export interface PlayerOptions {
  name: string;
  key: Uint8Array;
  version?: string;
  mods?: ModEntry[];
  joinDeadlineMs?: number;
}

export interface PlayerPorts {
  crypto: Crypto;
  clock: Clock;
  wallClock(): number;
  log: LogFn;
  /** Receives every inspection event of the actors the session creates (the launcher's trace recorder). */
  inspect?: (event: InspectionEvent) => void;
}

export type PlayerNotice =
  | { type: 'welcomed'; you: number; hostName: string; players: Payloads['Welcome']['players'] }
  | { type: 'roster'; players: { id: number; name: string; ready: boolean; away: boolean; rtt?: number }[] }
  | { type: 'chat'; from: number; name: string; text: string; level?: 'info' | 'warn' | 'error' }
  | { type: 'rtt'; rtt: Record<string, number> }
  | { type: 'permissions'; permissions: Permissions }
  | { type: 'ended'; reason: string; detail?: string }
  /** Game traffic from the host (Session, PeerClock, Action, …) for the game link. */
  | { type: 'game'; message: Message };

type RosterRow = { id: number; name: string; ready: boolean; away: boolean; rtt?: number };

export class PlayerSession {
  private readonly options: PlayerOptions;
  private readonly ports: PlayerPorts;
  private readonly opener: Opener;
  private readonly handshake: Actor<typeof playerHandshakeMachine>;
  private readonly listeners = new Set<(notice: PlayerNotice) => void>();
  /**
   * The session's root actor (systemId `player`): the connection's actor `conn:<id>` and the file link `link` are its
   * children; they reach the session only as its events (actors/sessionRouter.ts).
   */
  readonly router: SessionRouter;
  private conn: ConnectionHandle | undefined;
  private sealer: Sealer | undefined;
  private roster = new Map<number, RosterRow>();
  private lastRtt: Record<string, number> = {};
  private lastOffset: number | undefined;
  /** The last Permissions from the host, so the game can refuse locally. */
  permissions: Permissions | undefined;
  you: number | undefined;
  /** Frames dropped: not from sender 0, unsealed after Welcome, failed to open or decode. */
  droppedFrames = 0;
  /** Causes of dropped frames already logged (cause:kind; at most 256 remembered). */
  private readonly loggedDrops = new Set<string>();
  private faulted = false;

  constructor(options: PlayerOptions, ports: PlayerPorts) {
    this.options = options;
    this.ports = ports;
    const aead = ports.crypto.aesGcm(options.key);
    this.opener = new Opener(aead);
    const version = options.version ?? FEVERLINK3_VERSION;
    const machine = playerHandshakeMachine.provide({ delays: { joinDeadline: options.joinDeadlineMs ?? JOIN_DEADLINE_MS } });
    // Guarded: XState calls an inspection observer inside the actor's own step.
    const inspect = ports.inspect && guarded(ports.log, 'inspect', ports.inspect);
    this.router = createSessionRouter('player', {
      clock: ports.clock,
      log: ports.log,
      ...(inspect ? { inspect } : {}),
      frame: (e) => {
        try {
          this.frame(e.frame);
        } catch (err) {
          this.internalError(err, 'frame');
        }
      },
      violation: (e) => {
        try {
          this.conn?.close(e.reason);
        } catch (err) {
          this.internalError(err, 'violation');
        }
      },
      closed: (e) => {
        try {
          // The chart may have ended already (a Kicked or Reject closes the connection as it ends).
          if (this.handshake.getSnapshot().status === 'active') this.handshake.send({ type: 'conn.closed', reason: e.reason });
        } catch (err) {
          this.internalError(err, 'close');
        }
      },
      connectionFailed: (_id, err) => this.internalError(err, 'connection'),
      failed: (err) => this.internalError(err, 'player'),
    });
    this.handshake = createActor(machine, {
      clock: ports.clock,
      ...(inspect ? { inspect } : {}),
      systemId: 'playerHandshake',
      input: {
        makeJoin: (nonce) => ({
          name: options.name,
          version,
          proof: joinProof(ports.crypto, options.key, nonce, options.name),
          ...(options.mods ? { mods: options.mods } : {}),
        }),
      },
    });
    // Guarded: XState rethrows a listener's throw on a timer, which would end the process.
    this.handshake.on('send.Join', guarded(ports.log, 'send Join', (e) => this.conn?.write(unsealedFrame('Join', e.payload))));
    this.handshake.on('out.welcomed', guarded(ports.log, 'welcome', (e) => this.welcomed(e.welcome)));
    this.handshake.on('out.ended', guarded(ports.log, 'end', (e) => this.ended(e.reason, e.detail)));
    this.handshake.on('out.log', guarded(ports.log, 'log', ({ type: _type, ...entry }) => ports.log(entry)));
    this.handshake.subscribe({ error: (err) => this.internalError(err, 'handshake') });
  }

  /** A fault of ours while handling what the host sent: logged once with the stack; this connection ends. */
  private internalError(err: unknown, what: string): void {
    if (this.faulted) return;
    this.faulted = true;
    this.ports.log({ msg: 'internal error', while: what, stack: stackOf(err) });
    this.conn?.close('internal-error');
  }

  on(listener: (notice: PlayerNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Runs the session over a connected transport: the connection becomes the actor `conn:<id>` of the session's root,
   * whose frame, violation and close events are handled here, each supervised (a throw ends this connection).
   */
  connect(conn: Connection): void {
    this.conn = this.router.handle(conn);
    this.router.accept(conn);
    this.handshake.start();
  }

  /**
   * Runs a file link's adapter actor (`logic` with `input`, reporting link.line / link.notice / link.problem) as the
   * child `link` of the session's root actor; its reports go to `handlers`, each guarded. Returns the detach function.
   */
  attachLink<N extends { type: string }, P>(logic: AnyActorLogic, input: unknown, handlers: GameLinkHandlers<N, P>): () => void {
    return this.router.attachLink(logic, input, handlers);
  }

  get joined(): boolean {
    return this.sealer !== undefined;
  }

  private frame(frame: Frame): void {
    const kind = frame.header.kind;
    if (!isSealedKind(kind)) {
      const decoded = decodeMessage(kind, frame.body);
      if (!decoded.ok) {
        // The schema refuses a nonce that is not 16 bytes before the chart's guard sees it: tell the chart.
        if (kind === Kind.Challenge) this.handshake.send({ type: 'recv.badChallenge', detail: decoded.detail });
        return this.drop('unsealed frame did not decode', kind);
      }
      const { message } = decoded;
      if (message.kind === 'Challenge') this.handshake.send({ type: 'recv.Challenge', payload: message.payload });
      else if (message.kind === 'Reject') this.handshake.send({ type: 'recv.Reject', payload: message.payload });
      else this.drop('unsealed frame of a sealed kind', kind);
      return;
    }
    if (frame.header.sender !== HOST_SENDER) return this.drop('sealed frame not from the host', kind);
    const opened = openMessage(this.opener, frame);
    if (!opened.ok) return this.drop(`frame refused: ${opened.why}`, kind);
    this.message(opened.message);
  }

  private drop(msg: string, kind: number): void {
    this.droppedFrames++;
    // Logged once per cause and kind: anyone on the path can write frames, and each would be a line.
    const key = `${msg}:${kind}`;
    if (this.loggedDrops.has(key)) return;
    if (this.loggedDrops.size < 256) this.loggedDrops.add(key);
    this.ports.log({ msg, kind });
  }

  private message(message: Message): void {
    switch (message.kind) {
      case 'Welcome':
        this.handshake.send({ type: 'recv.Welcome', payload: message.payload });
        return;
      case 'Kicked':
        this.handshake.send({ type: 'recv.Kicked', payload: message.payload });
        return;
    }
    if (!this.joined) return this.drop('message before Welcome', 0);
    switch (message.kind) {
      case 'Ping':
        this.send('Pong', { n: message.payload.n, w: this.ports.wallClock() });
        if (message.payload.off && this.you !== undefined) this.lastOffset = message.payload.off[String(this.you)];
        if (message.payload.rtt) this.updateRtt(message.payload.rtt);
        return;
      case 'Permissions':
        this.permissions = message.payload;
        this.notify({ type: 'permissions', permissions: message.payload });
        this.notify({ type: 'game', message });
        return;
      case 'Chat': {
        const { from = 0, name = '?', text, level } = message.payload;
        this.notify({ type: 'chat', from, name, text, ...(level ? { level } : {}) });
        this.notify({ type: 'game', message });
        return;
      }
      case 'PlayerJoined': {
        const p = message.payload.player;
        this.roster.set(p.id, { ...p, away: false });
        this.notifyRoster();
        this.notify({ type: 'game', message });
        return;
      }
      case 'PlayerLeft': {
        const { id, away } = message.payload;
        const row = this.roster.get(id);
        if (away && row) this.roster.set(id, { ...row, away: true });
        else this.roster.delete(id);
        this.notifyRoster();
        this.notify({ type: 'game', message });
        return;
      }
      default:
        this.notify({ type: 'game', message });
    }
  }

  private welcomed(welcome: Payloads['Welcome']): void {
    if (this.sealer) return; // a second Welcome never replaces the sealer (the chart drops it anyway)
    this.you = welcome.you;
    this.sealer = new Sealer(this.ports.crypto.aesGcm(this.options.key), welcome.you);
    this.conn?.markJoined();
    this.roster = new Map(welcome.players.map((p) => [p.id, { ...p, away: false }]));
    this.ports.log({ msg: 'joined', you: welcome.you, hostName: welcome.hostName, players: welcome.players.length });
    this.notify({ type: 'welcomed', you: welcome.you, hostName: welcome.hostName, players: welcome.players });
    this.notify({ type: 'game', message: { kind: 'Welcome', payload: welcome } });
    this.notifyRoster();
  }

  private ended(reason: string, detail?: string): void {
    this.ports.log({ msg: 'session ended', reason, detail });
    this.conn?.close(reason);
    this.notify({ type: 'ended', reason, ...(detail ? { detail } : {}) });
  }

  private updateRtt(rtt: Record<string, number>): void {
    this.lastRtt = rtt;
    this.notify({ type: 'rtt', rtt });
  }

  /** Sends a message sealed with our id; false before Welcome or after the end. */
  send<K extends KindName>(kind: K, payload: Payloads[K]): boolean {
    if (!this.sealer || !this.conn || this.conn.closeReason !== undefined) return false;
    const frame = sealedFrame(this.sealer, kind, payload);
    if (frame === undefined) {
      this.ports.log({ msg: 'message not sent: larger than a frame', kind });
      return false;
    }
    this.conn.write(frame);
    return true;
  }

  chat(text: string): boolean {
    return this.send('Chat', { text }); // from and name are the host's to set
  }

  /** Leaves on purpose: Leave, then the connection closes. */
  leave(): void {
    if (this.send('Leave', {})) this.conn?.close('left');
    else this.conn?.close('left');
  }

  /** Our round trip and wall-clock offset to the host as the host last reported them (latency stamps rr, ro). */
  clockView(): { rtt?: number; off?: number } {
    const rtt = this.you === undefined ? undefined : this.lastRtt[String(this.you)];
    return { ...(rtt === undefined ? {} : { rtt }), ...(this.lastOffset === undefined ? {} : { off: this.lastOffset }) };
  }

  players(): RosterRow[] {
    return [...this.roster.values()]
      .sort((a, b) => a.id - b.id)
      .map((p) => {
        const rtt = this.lastRtt[String(p.id)];
        return rtt === undefined ? p : { ...p, rtt };
      });
  }

  private notify(notice: PlayerNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  private notifyRoster(): void {
    this.notify({ type: 'roster', players: this.players() });
  }
}
