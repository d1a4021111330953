// PlayerSession: the player's root. It runs the player's handshake chart over one connection, seals with
// its assigned id after Welcome, accepts sealed frames from sender 0 only, answers Ping at the session
// layer (never given to the game), keeps the roster, permissions and RTTs for the window, and hands game
// traffic (Session, PeerClock, Action, …) to whoever drives the game (spec "Handshake", "Ping"). A resync save's
// chunks go to the `saves` port, never to the game; a ResyncLoad reaches the game only for a save received intact,
// what follows it waiting behind it (spec "Receiving side"). Its parts: the root actor (playerRouter.ts), the
// handshake actor (handshake.ts), the window's roster and RTTs (playerRoster.ts), the ResyncLoad gate, through which
// all game traffic goes (resyncLoadGate.ts), the dropped frames (frameDrops.ts), its types (playerTypes.ts).
import type { AnyActorLogic, InspectionEvent } from 'xstate';
import { HOST_SENDER, type Frame } from '../../protocol/frame.ts';
import { isSealedKind, Kind, LIMITS, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import type { ChunkKind } from '../../protocol/messages/chunkCodec.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { ResumeState, SESSION_LAYER } from './resumeState.ts';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { playerHandshakeMachine } from '../../machines/playerHandshake.ts';
import type { Permissions } from '../../machines/rules/permissions.ts';
import { FEVERLINK3_VERSION } from '../host/hostSession.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Connection } from '../ports.ts';
import type { GameLinkHandlers, SessionRouter } from '../sessionRouter.ts';
import { createPlayerRouter } from './playerRouter.ts';
import { FrameDrops } from './frameDrops.ts';
import { guarded, stackOf } from '../supervise.ts';
import { sealedFrame, unsealedFrame, type Message } from '../wire.ts';
import { openWith } from '../chunkWire.ts';
import { createPlayerHandshake, handshakeFrame, joinPayload, type PlayerHandshakeActor } from './handshake.ts';
import { PlayerRoster } from './playerRoster.ts';
import type { PlayerNotice, PlayerOptions, PlayerPorts, RosterRow } from './playerTypes.ts';
import { ResyncLoadGate } from './resyncLoadGate.ts';

export type { PlayerNotice, PlayerOptions, PlayerPorts } from './playerTypes.ts';

/** Reject reasons a resume attempt is tried again after (the launcher's backoff spaces the attempts). */
const RETRY_REJECTS: ReadonlySet<string> = new Set(['flood', 'timeout']);

export class PlayerSession {
  private readonly options: PlayerOptions;
  private readonly ports: PlayerPorts;
  private readonly opener: Opener;
  /** The handshake of the current connection (a new one for every connection: the first, and each resume). */
  private handshake: PlayerHandshakeActor;
  private readonly handshakeMachine: ReturnType<typeof playerHandshakeMachine.provide>;
  private readonly inspect: ((event: InspectionEvent) => void) | undefined;
  /** Where the session stands: joining, joined, away (the connection dropped; it may resume), resuming, ended. */
  private phase: 'joining' | 'joined' | 'away' | 'resuming' | 'ended' = 'joining';
  /** The host ended this session on purpose (Kicked, Reject) or we left: a close after it is no drop. */
  private final = false;
  /** The token, `last`, the unacknowledged messages and what the game sent while away (resumeState.ts). */
  private readonly back = new ResumeState();
  private readonly listeners = new Set<(notice: PlayerNotice) => void>();
  /**
   * The session's root actor (systemId `player`): the connection's actor `conn:<id>` and the file link `link` are its
   * children; they reach the session only as its events (actors/sessionRouter.ts).
   */
  readonly router: SessionRouter;
  private conn: ConnectionHandle | undefined;
  private sealer: Sealer | undefined;
  /** The roster and the round trips the window shows (playerRoster.ts). */
  private readonly roster = new PlayerRoster();
  /** The last Permissions from the host, so the game can refuse locally. */
  permissions: Permissions | undefined;
  you: number | undefined;
  /** Frames dropped: not from sender 0, unsealed after Welcome, failed to open or decode (frameDrops.ts). */
  private readonly drops: FrameDrops;
  private faulted = false;
  /** A ResyncLoad waits for its save's check, and the game's messages that follow it with it (resyncLoadGate.ts). */
  private readonly gate: ResyncLoadGate;

  constructor(options: PlayerOptions, ports: PlayerPorts) {
    this.options = options;
    this.ports = ports;
    const aead = ports.crypto.aesGcm(options.key);
    this.opener = new Opener(aead);
    this.drops = new FrameDrops(ports.log);
    const version = options.version ?? FEVERLINK3_VERSION;
    this.handshakeMachine = playerHandshakeMachine.provide({ delays: { joinDeadline: options.joinDeadlineMs ?? JOIN_DEADLINE_MS } });
    // Guarded: XState calls an inspection observer inside the actor's own step.
    const inspect = ports.inspect && guarded(ports.log, 'inspect', ports.inspect);
    this.inspect = inspect;
    this.router = createPlayerRouter(ports, inspect, {
      current: () => this.conn,
      frame: (frame) => this.frame(frame),
      violation: (reason) => this.conn?.close(reason),
      // The chart may have ended already (a Kicked or Reject closes the connection as it ends).
      closed: (reason) => {
        if (this.handshake.getSnapshot().status === 'active') this.handshake.send({ type: 'conn.closed', reason });
      },
      fault: (err, what) => this.internalError(err, what),
    });
    this.version = version;
    this.gate = new ResyncLoadGate(ports, (message) => this.notify({ type: 'game', message }));
    this.handshake = this.createHandshake();
  }

  private readonly version: string;

  /** The handshake chart of one connection; a returner's Join carries `resume` (its MAC over this Challenge's nonce). */
  private createHandshake(): PlayerHandshakeActor {
    const { options, ports } = this;
    return createPlayerHandshake(this.handshakeMachine, {
      clock: ports.clock,
      log: ports.log,
      inspect: this.inspect,
      makeJoin: (nonce) => joinPayload(ports.crypto, options, this.version, nonce, this.resumeOf(nonce)),
      sendJoin: (payload) => this.conn?.write(unsealedFrame('Join', payload)),
      welcomed: (welcome) => this.welcomed(welcome),
      ended: (reason, detail) => this.ended(reason, detail),
      failed: (err) => this.internalError(err, 'handshake'),
    });
  }

  /** Join.resume while resuming: our id, the MAC over the token, this nonce, id, name and the last host frame read. */
  private resumeOf(nonce: Uint8Array): Payloads['Join']['resume'] | undefined {
    if (this.phase !== 'resuming' || this.you === undefined) return undefined;
    return this.back.join(this.ports.crypto, nonce, this.you, this.options.name);
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
   * After an `away` notice: a new handshake over `conn` whose Join carries `resume` (spec "Reconnect"). Ignored (the
   * connection closed) unless the session is away.
   */
  reconnect(conn: Connection): void {
    if (this.phase !== 'away') {
      conn.close(this.phase === 'ended' ? 'shutdown' : 'replaced');
      return;
    }
    this.phase = 'resuming';
    this.faulted = false;
    this.conn = this.router.handle(conn);
    this.handshake = this.createHandshake();
    this.router.accept(conn);
    this.handshake.start();
  }

  /** True while the session is away and may resume (between an `away` notice and a resume or the end). */
  get resumable(): boolean {
    return this.phase === 'away';
  }

  /** The reconnect window ran out (or the player gave up): the session ends. */
  giveUp(reason: string): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.ports.log({ msg: 'session ended', reason });
    this.notify({ type: 'ended', reason });
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
      const dropped = handshakeFrame(this.handshake, frame, (reason) => {
        // The host's answer: no retry — but a resume refused for the moment (flood, timeout) is tried again.
        const passing = this.phase === 'resuming' && RETRY_REJECTS.has(reason);
        if ((this.phase === 'joining' || this.phase === 'resuming') && !passing) this.final = true;
      });
      if (dropped !== undefined) this.drops.drop(dropped, kind);
      return;
    }
    if (frame.header.sender !== HOST_SENDER) return this.drops.drop('sealed frame not from the host', kind);
    const opened = openWith(this.opener, frame, this.ports.base64);
    if (!opened.ok) return this.drops.drop(`frame refused: ${opened.why}`, kind);
    this.back.read(frame.header.counter); // resume.last
    this.message(opened.message);
  }

  /** Frames dropped so far. */
  get droppedFrames(): number {
    return this.drops.count;
  }

  private message(message: Message): void {
    switch (message.kind) {
      case 'Welcome':
        this.handshake.send({ type: 'recv.Welcome', payload: message.payload });
        return;
      case 'Kicked':
        this.final = true;
        this.handshake.send({ type: 'recv.Kicked', payload: message.payload });
        return;
    }
    if (!this.joined) return this.drops.drop('message before Welcome', 0);
    switch (message.kind) {
      case 'Ping':
        if (message.payload.ack !== undefined) this.back.acknowledged(message.payload.ack);
        this.send('Pong', { n: message.payload.n, w: this.ports.wallClock() });
        if (message.payload.off && this.you !== undefined) this.roster.setOffset(message.payload.off[String(this.you)]);
        if (message.payload.rtt) this.updateRtt(message.payload.rtt);
        return;
      case 'Permissions':
        this.permissions = message.payload;
        this.notify({ type: 'permissions', permissions: message.payload });
        this.gate.forGame(message);
        return;
      case 'Chat': {
        const { from = 0, name = '?', text, level } = message.payload;
        this.notify({ type: 'chat', from, name, text, ...(level ? { level } : {}) });
        this.gate.forGame(message);
        return;
      }
      case 'PlayerJoined':
      case 'PlayerLeft':
        this.roster.take(message);
        this.notifyRoster();
        this.gate.forGame(message);
        return;
      case 'ResyncChunk':
        this.ports.saves?.accept(message.payload);
        return;
      case 'ResyncLoad':
        this.gate.resyncLoad(message);
        return;
      default:
        this.gate.forGame(message);
    }
  }

  private welcomed(welcome: Payloads['Welcome']): void {
    const resuming = this.phase === 'resuming';
    if (resuming && welcome.resumed === true && welcome.you === this.you && this.sealer) return this.resumed(welcome);
    if (this.sealer && !resuming) return; // a second Welcome never replaces the sealer (the chart drops it anyway)
    if (resuming) return this.slotLost(welcome);
    this.phase = 'joined';
    this.you = welcome.you;
    this.sealer = new Sealer(this.ports.crypto.aesGcm(this.options.key), welcome.you);
    this.back.reset(welcome.resume);
    this.conn?.markJoined();
    this.roster.welcomed(welcome.players);
    this.ports.log({ msg: 'joined', you: welcome.you, hostName: welcome.hostName, players: welcome.players.length });
    this.notify({ type: 'welcomed', you: welcome.you, hostName: welcome.hostName, players: welcome.players });
    this.notify({ type: 'game', message: { kind: 'Welcome', payload: welcome } });
    this.notifyRoster();
  }

  /**
   * A resume the host answered with a plain join (its window ended, or our token was not taken): a new id. Our game
   * and its mod were opened with the old id, so this session cannot go on as that player: Leave at once (the new slot
   * is freed) and end with `slot lost`; the player joins again as a new player.
   */
  private slotLost(welcome: Payloads['Welcome']): void {
    const detail = `the host no longer held our slot (it gave us id ${welcome.you} instead of ${this.you}): join again`;
    const leave = sealedFrame(new Sealer(this.ports.crypto.aesGcm(this.options.key), welcome.you), 'Leave', {});
    if (leave) this.conn?.write(leave);
    this.final = true;
    this.phase = 'ended';
    this.ports.log({ msg: 'session ended', reason: 'slot lost', detail, level: 'warn' });
    this.conn?.close('slot lost');
    this.notify({ type: 'ended', reason: 'slot lost', detail });
  }

  /**
   * A resumed Welcome: the same id and sender (the counter goes on), a fresh token. With `catchUp` the host resends
   * what we missed and we resend what it had not read (above catchUp) and what the game sent while away, sealed anew;
   * without it a `player returned` round reloads our game, so nothing is resent.
   */
  private resumed(welcome: Payloads['Welcome']): void {
    this.phase = 'joined';
    this.back.welcomed(welcome.resume);
    this.conn?.markJoined();
    this.roster.welcomed(welcome.players);
    const caughtUp = welcome.catchUp !== undefined;
    const { again, lost } = this.back.resumed(welcome.catchUp);
    this.ports.log({ msg: 'resumed', you: this.you, epoch: welcome.resume?.epoch, caughtUp, resent: again.length, lostUnacked: lost });
    this.notify({ type: 'resumed', you: this.you!, caughtUp });
    for (const message of again) this.send(message.kind, message.payload as never);
    this.notifyRoster();
  }

  private ended(reason: string, detail?: string): void {
    if (this.phase === 'ended') return void this.conn?.close(reason); // given up already: said once
    // The connection dropped (not Kicked, not Reject, not our Leave): away, and the launcher may resume.
    if (!this.final && (this.phase === 'joined' || this.phase === 'resuming')) {
      this.phase = 'away';
      this.conn?.close(reason);
      this.ports.log({ msg: 'connection lost: away', reason, ...(detail ? { detail } : {}) });
      this.notify({ type: 'away', reason });
      return;
    }
    this.phase = 'ended';
    this.ports.log({ msg: 'session ended', reason, detail });
    this.conn?.close(reason);
    this.notify({ type: 'ended', reason, ...(detail ? { detail } : {}) });
  }

  private updateRtt(rtt: Record<string, number>): void {
    this.roster.setRtt(rtt);
    this.notify({ type: 'rtt', rtt });
  }

  /** Sends a message sealed with our id; false before Welcome or after the end. */
  send<K extends KindName>(kind: K, payload: Payloads[K]): boolean {
    if ((this.phase === 'away' || this.phase === 'resuming') && !SESSION_LAYER.has(kind)) {
      // A speed asked for while away would come seconds late, after the others moved on: not kept.
      if (kind === 'SpeedRequest') {
        this.ports.log({ msg: 'speed request while away dropped', speed: (payload as Payloads['SpeedRequest']).speed });
        return false;
      }
      // Kept for the resume (sealed then, with the counter of then); bounded: the oldest fall out.
      this.back.keep({ kind, payload } as Message);
      return true;
    }
    if (!this.sealer || !this.conn || this.conn.closeReason !== undefined || this.phase !== 'joined') return false;
    const frame = sealedFrame(this.sealer, kind, payload);
    if (frame === undefined) {
      this.ports.log({ msg: 'message not sent: larger than a frame', kind });
      return false;
    }
    this.conn.write(frame);
    this.back.sent({ kind, payload } as Message, Number(this.sealer.nextCounter - 1n), frame.length, this.ports.clock.now());
    return true;
  }

  /**
   * Sends a chunk kind's payload already encoded (protocol/messages/chunkCodec.ts, the fast base64), sealed with our
   * id: a bug report's ReportPart (actors/player/reportPart.ts). False before Welcome, after the end, or over a frame.
   */
  sendEncodedChunk(kind: ChunkKind, payload: Uint8Array): boolean {
    // Never kept for a resume (spec: ResyncUpload and ReportPart are never resent after one).
    if (!this.sealer || !this.conn || this.conn.closeReason !== undefined || this.phase !== 'joined') return false;
    if (payload.length > LIMITS.payloadBytes) {
      this.ports.log({ msg: 'message not sent: larger than a frame', kind });
      return false;
    }
    this.conn.write(this.sealer.seal(Kind[kind], payload));
    return true;
  }

  /** Bytes written to the host's connection not yet handed to the kernel (0 when not connected or not told). */
  get queuedBytes(): number {
    return this.conn?.queuedBytes ?? 0;
  }

  chat(text: string): boolean {
    return this.send('Chat', { text }); // from and name are the host's to set
  }

  /** Leaves on purpose: Leave, then the connection closes. */
  leave(): void {
    if (this.phase === 'away' || this.phase === 'resuming') {
      this.conn?.close('left');
      return this.giveUp('left');
    }
    this.final = true;
    if (this.send('Leave', {})) this.conn?.close('left');
    else this.conn?.close('left');
  }

  /** Our round trip and wall-clock offset to the host as the host last reported them (latency stamps rr, ro). */
  clockView(): { rtt?: number; off?: number } {
    return this.roster.clockView(this.you);
  }

  players(): RosterRow[] {
    return this.roster.players();
  }

  private notify(notice: PlayerNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  private notifyRoster(): void {
    this.notify({ type: 'roster', players: this.players() });
  }
}
