// The ports the actors talk through: a byte transport (Connection, Listener) and a clock.
// Implemented by adapters/transport/tcp.ts and adapters/clock.ts; the limits are those of
// spec/wire-protocol.txt "Handshake" (last paragraph) and spec/lockstep.md "Limits".
import type { Frame } from '../protocol/frame.ts';

/**
 * A clock the actors and adapters schedule with. Fits both the real clock (adapters/clock.ts) and
 * xstate's SimulatedClock (which has `now()`, `setTimeout`, `clearTimeout`, plus `increment(ms)`).
 */
export interface Clock {
  /** Milliseconds; only differences are meaningful. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

/** Why a connection broke a limit: `flood` (frame or byte rate), `malformed` (bad length prefix or version). */
export type ViolationReason = 'flood' | 'malformed';

/** One framed byte stream to a peer. Never throws; every end is reported once through `onClose`. */
export interface Connection {
  /** Unique per listener/process, from 1. */
  readonly id: number;
  /** The peer's address as seen ("127.0.0.1", "::1"). */
  readonly remoteAddress: string;
  /** The per-address cap key: IPv4-mapped IPv6 → the IPv4; IPv6 → its /64 prefix. */
  readonly addressKey: string;
  /** Decoded frames, in order. Not called after close. */
  onFrame(handler: (frame: Frame) => void): void;
  /**
   * A limit was exceeded (`flood`, or `malformed` for a bad length/version): the owner sends its final frame
   * (Reject or Kicked) with close(reason, finalBytes). Frames stop being delivered at once. Without an owner
   * handler the connection closes itself with that reason.
   */
  onViolation(handler: (reason: ViolationReason) => void): void;
  /** Called once, with the first recorded reason. A handler set after the close is called at once. */
  onClose(handler: (reason: string) => void): void;
  /**
   * Queued; never throws. A full queue, or a write that does not drain within writeTimeoutMs, closes with
   * 'write-timeout'. Ignored after close.
   */
  write(bytes: Uint8Array): void;
  /**
   * Gives back the frame being delivered now (call it from inside the frame handler): it no longer counts against the
   * rate limits (one frame, and at most `bytes` of its length). For a frame the owner has checked and exempts: a repair
   * source's ResyncUpload of an upload the host asked for, within the exemption's own cap (actors/host/resync.ts;
   * spec "Repair source"). At most once per frame; false when nothing was given back (outside a delivery, a
   * connection without limits, after a close or a violation). Optional: a transport without it exempts nothing.
   */
  uncount?(bytes: number): boolean;
  /** After the host accepted the Join: lifts the 4096-byte handshake limit (to MAX_FRAME_LENGTH) and frees the
   *  pending slot. */
  markJoined(): void;
  /** Closes once (the first reason wins, later calls only log); writes finalBytes first if given, then ends. */
  close(reason: string, finalBytes?: Uint8Array): void;
  /** The first close reason, once closed. */
  readonly closeReason: string | undefined;
}

/** A bound listening socket handing out Connections. */
export interface Listener {
  /** The address actually bound (port 0 → the real port). */
  readonly host: string;
  readonly port: number;
  onConnection(handler: (conn: Connection) => void): void;
  /** Stops listening and closes every connection with `reason`. */
  close(reason: string): Promise<void>;
}

/** The transport's own limits (spec "Handshake", last paragraph; lockstep.md "Limits"). */
export interface TransportLimits {
  /** Largest frame (length field value) before the Join is accepted: 4096. */
  handshakeMaxLength: number;
  /** Connections open but not yet joined: 32. */
  maxPending: number;
  /** Open connections in all: 64. */
  maxConnections: number;
  /** Open connections per address key: 16. */
  maxPerAddress: number;
  /** A write that does not drain within this closes with 'write-timeout': 10 000 ms. */
  writeTimeoutMs: number;
  /** Frames per second per connection: 1000. */
  maxFramesPerSecond: number;
  /** Bytes per second per connection, counted as the length field's value (prefix excluded): 1 048 576. */
  maxBytesPerSecond: number;
  /** Bytes queued for writing before the connection closes with 'write-timeout': 8 MiB. */
  maxQueuedBytes: number;
}

/** A structured log sink: one object per line, `msg` the fixed text. */
export type LogFn = (entry: { msg: string; [k: string]: unknown }) => void;

/** One line the game wrote to its file link (from_game.log): the message name and its JSON payload, not yet checked. */
export interface GameLinkLine {
  kind: string;
  payload: unknown;
}

/**
 * What a file link's adapter actor (`link`, adapters/launcher/gameBridge.ts) reports to its session's root actor
 * (actors/sessionRouter.ts), in the link's order: the game's lines, the link's health notices (stalled, recovered,
 * failed, closed: `N`) and what it skipped (a bad line, a replaced file: `P`). The session's root hands them to the
 * handlers the bridge gave (HostSession/PlayerSession `attachLink`).
 */
export type GameLinkReport<N extends { type: string } = { type: string }, P = unknown> =
  | { type: 'link.line'; line: GameLinkLine }
  | { type: 'link.notice'; notice: N }
  | { type: 'link.problem'; problem: P };
