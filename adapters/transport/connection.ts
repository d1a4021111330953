// One framed connection behind the Connection port (actors/ports.ts), over a byte stream: a TCP socket
// (TcpConnection, tcpConnection.ts) or the memory network's socket (memory.ts). Implements the per-connection limits
// of spec wire-protocol.txt "Frame" and "Handshake" (length bounds before allocation, 4096-byte frames until joined,
// 1000 frames and 1 MiB per second, 10 s write timeout) and lockstep.md "Limits". Nothing a peer sends ends the
// process: every stream event is contained, the first close reason wins.
import type { Clock, Connection, LogFn, TransportLimits, ViolationReason } from '../../actors/ports.ts';
import { FrameDecoder, FrameError, HEADER_BYTES, MAX_FRAME_LENGTH, type Frame } from '../../protocol/frame.ts';
import { RateLimiter } from './rateLimiter.ts';
import { scheduleFlush } from './turnFlush.ts';
import { WriteGuard, type WritableSide, type WriteFailure } from './writeQueue.ts';

/** Longest wait, after our FIN, for the peer to close before the socket is destroyed. */
const MAX_LINGER_MS = 2000;

let lastId = 0;

/** A fresh connection id: unique in this process, from 1. */
export function nextConnectionId(): number {
  lastId += 1;
  return lastId;
}

/**
 * What a framed connection needs of its byte stream: the parts of a Node socket the transport uses. 'error'
 * gives the close reason and detail through the stream's traits.
 */
export interface ByteStream extends WritableSide {
  // The listener's arguments differ by event ('data' a chunk, 'error' the stream's error).
  on(event: 'data' | 'drain' | 'end' | 'error' | 'close', handler: (...args: any[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  end(): unknown;
  destroy(): unknown;
  readonly destroyed: boolean;
}

/** Where the streams differ: coalescing, the reason of a stream error, the linger's timer. */
export interface StreamTraits {
  /**
   * Coalesce the small frames of one event-loop turn into one write (a Node socket: one syscall per connection per
   * turn instead of one per frame). `highWaterMark`: the stream's; frames are coalesced only below it.
   */
  coalesce?: { highWaterMark: number };
  /** The close reason (and log detail) for the stream's 'error' event. */
  errorReason(error: unknown): { reason: string; detail?: Record<string, unknown> };
  /** Arms the timer that destroys a lingering stream; returns its cancel. */
  linger(destroy: () => void, ms: number): () => void;
}

/** How a FramedConnection is set up (listenTcp / connectTcp, the memory network). */
export interface FramedConnectionOptions {
  id: number;
  remoteAddress: string;
  addressKey: string;
  limits: TransportLimits;
  clock: Clock;
  log: LogFn;
  /** `host`: an accepted connection (handshake limit, rate limits); `client`: our own outgoing one. */
  role: 'host' | 'client';
  /** The connection joined (host role): its pending slot is free. */
  onJoined?: () => void;
  /** The socket is fully closed: every slot it held is free. */
  onGone?: () => void;
}

interface CloseOptions {
  finalBytes?: Uint8Array;
  /** Destroy at once instead of a graceful end (the peer cannot or will not read). */
  abrupt?: boolean;
  detail?: Record<string, unknown>;
  /** Reported by the socket: after our own close this is the expected end, not a second reason worth a line. */
  fromSocket?: boolean;
}

/** See the Connection port. Reading starts when the owner sets its frame handler. */
export class FramedConnection implements Connection {
  readonly id: number;
  readonly remoteAddress: string;
  readonly addressKey: string;
  #socket: ByteStream;
  #traits: StreamTraits;
  #limits: TransportLimits;
  #clock: Clock;
  #log: LogFn;
  #decoder: FrameDecoder;
  #limiter: RateLimiter | undefined;
  #writes: WriteGuard;
  #onJoined: (() => void) | undefined;
  #onGone: (() => void) | undefined;
  #frameHandler: ((frame: Frame) => void) | undefined;
  #violationHandler: ((reason: ViolationReason) => void) | undefined;
  #closeHandlers: ((reason: string) => void)[] = [];
  #joined: boolean;
  #violated = false;
  #violationTimer: unknown;
  #violationTiming = false;
  #closeReason: string | undefined;
  #cancelLinger: (() => void) | undefined;
  #gone = false;
  /** The frame being delivered to the owner now, its counted length, and whether it was given back (uncount). */
  #delivering: { length: number; uncounted: boolean } | undefined;
  /** Frames written this turn and not yet handed to the stream (coalesced), and their bytes. */
  readonly #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** Frames are coalesced while the stream's queue with them stays below this: its high-water mark (16 KiB); 0 = never. */
  readonly #coalesceLimit: number;
  readonly #flush = (): void => this.#flushPending();

  constructor(options: FramedConnectionOptions, stream: ByteStream, traits: StreamTraits) {
    this.id = options.id;
    this.remoteAddress = options.remoteAddress;
    this.addressKey = options.addressKey;
    this.#socket = stream;
    this.#traits = traits;
    this.#limits = options.limits;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#onJoined = options.onJoined;
    this.#onGone = options.onGone;
    const host = options.role === 'host';
    this.#joined = !host;
    // The client reads the host's Welcome, which can be large; only accepted connections start at 4096.
    this.#decoder = new FrameDecoder({ maxLength: host ? options.limits.handshakeMaxLength : MAX_FRAME_LENGTH });
    this.#limiter = host ? new RateLimiter(options.limits, options.clock) : undefined;
    this.#writes = new WriteGuard(this.#socket, options.limits, options.clock, (failure) => this.#writeFailed(failure));

    const socket = this.#socket;
    this.#coalesceLimit = traits.coalesce?.highWaterMark ?? 0;
    socket.on('data', (chunk: Uint8Array) => this.#onData(chunk));
    socket.pause();
    socket.on('drain', () => this.#writes.drained());
    socket.on('end', () => this.#closeWith('peer-closed', { fromSocket: true }));
    socket.on('error', (error: unknown) => {
      const { reason, detail } = traits.errorReason(error);
      this.#closeWith(reason, { abrupt: true, ...(detail ? { detail } : {}), fromSocket: true });
    });
    socket.on('close', () => this.#onSocketClosed());
  }

  get closeReason(): string | undefined {
    return this.#closeReason;
  }

  /** Whether markJoined was called (always true on the client side). */
  get joined(): boolean {
    return this.#joined;
  }

  /** Bytes written but not yet handed to the kernel (never more than maxQueuedBytes), coalesced frames included. */
  get queuedBytes(): number {
    return this.#writes.queuedBytes + this.#pendingBytes;
  }

  /** Bytes received and held by the decoder (an incomplete frame, never more than the current limit). */
  get bufferedBytes(): number {
    return this.#decoder.bufferedBytes;
  }

  onFrame(handler: (frame: Frame) => void): void {
    this.#frameHandler = handler;
    if (this.#closeReason === undefined && !this.#violated) this.#socket.resume();
  }

  onViolation(handler: (reason: ViolationReason) => void): void {
    this.#violationHandler = handler;
  }

  onClose(handler: (reason: string) => void): void {
    if (this.#closeReason !== undefined) this.#call('close', () => handler(this.#closeReason!));
    else this.#closeHandlers.push(handler);
  }

  write(bytes: Uint8Array): void {
    if (this.#closeReason !== undefined) return;
    // Coalescing: the small frames written in one event-loop turn (a relay of every player's read, a burst of sends)
    // leave in one write at the end of the turn instead of one syscall each. A frame is held back only while the
    // stream's queue, the held frames and it stay below the high-water mark (and so below maxQueuedBytes): then the
    // stream's write() would have returned true for it, and no queue bound or write deadline could have been hit by
    // it. Any other frame is written at once, after the held ones, and meets the guard exactly as it would uncoalesced.
    const queued = this.#writes.queuedBytes + this.#pendingBytes + bytes.length;
    if (queued < this.#coalesceLimit && queued <= this.#limits.maxQueuedBytes && bytes.length > 0) {
      if (this.#pendingBytes === 0) scheduleFlush(this.#flush);
      this.#pending.push(bytes);
      this.#pendingBytes += bytes.length;
      return;
    }
    this.#flushPending();
    this.#writes.write(bytes);
  }

  /** Hands the coalesced frames to the stream as one buffer (one syscall). */
  #flushPending(): void {
    const total = this.#pendingBytes;
    if (total === 0) return;
    // The list is reused (one array per connection, not one per turn): emptied before the write, which may re-enter.
    const frames = this.#pending;
    let out: Uint8Array;
    if (frames.length === 1) out = frames[0]!;
    else {
      out = Buffer.allocUnsafe(total);
      let at = 0;
      for (const frame of frames) {
        out.set(frame, at);
        at += frame.length;
      }
    }
    frames.length = 0;
    this.#pendingBytes = 0;
    if (this.#closeReason !== undefined && this.#socket.destroyed) return;
    this.#writes.write(out);
  }

  /**
   * See the Connection port: gives back, once, the frame being delivered now (one frame token and at most `bytes` of
   * its counted length). False when nothing was given back: called outside a delivery, a second time for the same
   * frame, on a connection without rate limits (our client side), or after the close or a violation.
   */
  uncount(bytes: number): boolean {
    const frame = this.#delivering;
    if (frame === undefined || frame.uncounted || this.#limiter === undefined) return false;
    if (this.#closeReason !== undefined || this.#violated || !(bytes > 0)) return false;
    frame.uncounted = true;
    this.#limiter.refund(Math.min(bytes, frame.length));
    return true;
  }

  markJoined(): void {
    if (this.#joined) return;
    this.#joined = true;
    this.#decoder.maxLength = MAX_FRAME_LENGTH;
    this.#onJoined?.();
  }

  close(reason: string, finalBytes?: Uint8Array): void {
    this.#closeWith(reason, finalBytes === undefined ? {} : { finalBytes });
  }

  #onData(chunk: Uint8Array): void {
    // After a close or a violation the bytes are read and dropped (see #closeWith), never decoded.
    if (this.#closeReason !== undefined || this.#violated) return;
    let frames: Frame[];
    let failure: Record<string, unknown> | undefined;
    try {
      // A plain Uint8Array view of the chunk (same memory, no copy): the frames' header and body views, and the
      // opener's views of them, are then plain subarrays, not Buffers built through Buffer's species constructor.
      frames = this.#decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (error) {
      if (error instanceof FrameError) {
        frames = error.frames;
        failure = { code: error.code, length: error.length, version: error.version };
      } else {
        frames = [];
        failure = { code: 'decoder', error: String(error) };
      }
    }
    for (const frame of frames) {
      const length = HEADER_BYTES + frame.body.length;
      if (this.#limiter !== undefined && !this.#limiter.admit(length)) {
        this.#violate('flood', { length });
        return;
      }
      this.#deliver(frame, length);
      if (this.#closeReason !== undefined || this.#violated) return;
    }
    if (failure !== undefined) this.#violate('malformed', failure);
  }

  #deliver(frame: Frame, length: number): void {
    const handler = this.#frameHandler;
    if (handler === undefined) return;
    // The owner may give this frame back (uncount) while it handles it, synchronously, before the next one is counted.
    this.#delivering = { length, uncounted: false };
    try {
      if (!this.#call('frame', () => handler(frame))) this.#closeWith('internal-error', {});
    } finally {
      this.#delivering = undefined;
    }
  }

  #violate(reason: ViolationReason, detail: Record<string, unknown>): void {
    this.#violated = true;
    this.#socket.pause();
    this.#log({ msg: 'limit exceeded', id: this.id, address: this.remoteAddress, reason, ...detail });
    const handler = this.#violationHandler;
    if (handler === undefined) {
      this.#closeWith(reason, {});
      return;
    }
    this.#call('violation', () => handler(reason));
    // The owner is to send its final frame and close; if it does not, the connection still ends.
    if (this.#closeReason === undefined) {
      this.#violationTiming = true;
      this.#violationTimer = this.#clock.setTimeout(() => {
        this.#violationTiming = false;
        this.#closeWith(reason, {});
      }, this.#limits.writeTimeoutMs);
    }
  }

  #writeFailed(failure: WriteFailure): void {
    this.#closeWith('write-timeout', { abrupt: true, detail: { ...failure } });
  }

  #closeWith(reason: string, options: CloseOptions): void {
    if (this.#closeReason !== undefined) {
      if (!options.fromSocket) this.#log({ msg: 'close ignored', id: this.id, reason, first: this.#closeReason });
      return;
    }
    this.#closeReason = reason;
    if (this.#violationTiming) {
      this.#violationTiming = false;
      this.#clock.clearTimeout(this.#violationTimer);
    }
    this.#log({ msg: 'connection closed', id: this.id, address: this.remoteAddress, reason, ...options.detail });
    const socket = this.#socket;
    if (!socket.destroyed) {
      if (options.abrupt) {
        this.#dropPending();
        this.#writes.stop();
        socket.destroy();
      } else {
        // What was written before the close goes first, then the final frame.
        this.#flushPending();
        const final = options.finalBytes;
        if (final !== undefined && final.length > 0) this.#writes.write(final);
        this.#writes.stop();
        socket.end();
        // Keep reading (and dropping) until the peer closes: closing with unread bytes in the kernel makes it
        // send RST, which can destroy the final frame before the peer reads it.
        socket.resume();
        if (!socket.destroyed) {
          this.#cancelLinger = this.#traits.linger(() => {
            this.#cancelLinger = undefined;
            socket.destroy();
          }, Math.min(MAX_LINGER_MS, this.#limits.writeTimeoutMs));
        }
      }
    } else {
      this.#dropPending();
      this.#writes.stop();
    }
    const handlers = this.#closeHandlers;
    this.#closeHandlers = [];
    for (const handler of handlers) this.#call('close', () => handler(reason));
  }

  /** The stream is gone or being destroyed: coalesced frames are dropped, as the stream drops its queue. */
  #dropPending(): void {
    this.#pending.length = 0;
    this.#pendingBytes = 0;
  }

  #onSocketClosed(): void {
    if (this.#closeReason === undefined) this.#closeWith('peer-closed', { fromSocket: true });
    this.#cancelLinger?.();
    this.#cancelLinger = undefined;
    if (this.#gone) return;
    this.#gone = true;
    this.#onGone?.();
  }

  /** Runs an owner's handler; a throw is logged, never passed to the socket's event loop. */
  #call(what: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (error) {
      this.#log({ msg: 'handler failed', id: this.id, handler: what, error: String(error) });
      return false;
    }
  }
}
