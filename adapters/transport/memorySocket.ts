// The sockets of the in-memory transport (DESIGN.md "Adapters: Transport", "Tests: simulation"; the fabric that
// links them is memoryFabric.ts): reliable, ordered byte streams between two MemorySockets, delivered asynchronously
// on an injected clock. Each direction of a link has a latency, a seeded jitter (order is kept, as on TCP), a
// bandwidth, a window (bytes in flight plus bytes the receiver has not read; past it the sender's queue grows, which
// is what the write guard watches) and a `held` switch (a partition that heals). A link can be cut: both ends close
// at once with the cut's reason.
//
// Everything happens through ONE timer on the injected clock and an event queue ordered by (time, sequence), so
// a run is a function of the seed, the clock's steps and the calls made: no real time, no randomness of its own.
// The one exception to "on the clock" is resume(): bytes already received are handed over on a microtask (as
// Node's socket.resume() does on the next tick), so an owner setting up its handlers is never re-entered.
import type { Fabric } from './memoryFabric.ts';
import { concat, type Item, type Pipe } from './memoryPipe.ts';

export { EventQueue } from './memoryEventQueue.ts';
export { DEFAULT_LINK, resolveConditions, seededRandom, type LinkConditions } from './memoryLinkConditions.ts';
export type { DirectionStats } from './memoryPipe.ts';
export { Fabric, type MemoryLink } from './memoryFabric.ts';

// ---- the socket ---------------------------------------------------------------------------------------------

/** What a MemorySocket tells its owner, as a Node socket would ('error' carries the close reason). */
export interface MemorySocketEvents {
  data: (chunk: Uint8Array) => void;
  drain: () => void;
  /** The peer ended its side (FIN) and everything before it was read. */
  end: () => void;
  /** The link broke: 'reset' (the peer reset it), or the reason the link was cut with. */
  error: (reason: string) => void;
  /** Fully closed, once. */
  close: () => void;
}

/** Node's default high-water mark of a socket: write() returns false once this much is queued. */
export const SOCKET_HIGH_WATER_MARK = 16_384;

/**
 * One end of an in-memory byte stream, shaped like the parts of a Node socket the transport uses: starts paused
 * (resume() to read), write() returns false once the queue passes the high-water mark and 'drain' follows when it
 * emptied, end() sends FIN after the queued bytes, destroy() ends at once (the peer sees RST when unread bytes were
 * thrown away here, else FIN). A peer's FIN is answered with our own (no half-open sockets, like Node's default).
 */
export class MemorySocket {
  readonly id: number;
  readonly localAddress: string;
  readonly remoteAddress: string;
  readonly writableHighWaterMark = SOCKET_HIGH_WATER_MARK;
  /** Set once the pair exists. */
  out!: Pipe;
  in!: Pipe;
  #fabric: Fabric;
  #handlers: { [K in keyof MemorySocketEvents]: MemorySocketEvents[K][] } = {
    data: [],
    drain: [],
    end: [],
    error: [],
    close: [],
  };
  #flowing = false;
  #flushing = false;
  #flushDue = false;
  #unread: Uint8Array[] = [];
  #unreadBytes = 0;
  #finReceived = false;
  #endEmitted = false;
  #ended = false;
  #destroyed = false;
  #closeEmitted = false;
  #rstReplied = false;
  /** Server side: the SYN arrived. Client side: the SYN-ACK arrived. */
  connected = false;
  /** Client side, while connecting: how the attempt ends. */
  onConnect: ((outcome: 'ok' | 'refused') => void) | undefined;
  /** Server side: called when the SYN arrives. */
  onSyn: (() => void) | undefined;

  constructor(fabric: Fabric, id: number, localAddress: string, remoteAddress: string) {
    this.#fabric = fabric;
    this.id = id;
    this.localAddress = localAddress;
    this.remoteAddress = remoteAddress;
  }

  on<K extends keyof MemorySocketEvents>(type: K, handler: MemorySocketEvents[K]): this {
    this.#handlers[type].push(handler);
    return this;
  }

  /** Written and not yet in the window (what Node calls writableLength). */
  get writableLength(): number {
    return this.out.queued;
  }

  /** Received and not yet read (the kernel's receive buffer). */
  get unreadBytes(): number {
    return this.#unreadBytes;
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  /** Whether this end has asked for its FIN (end() or destroy()). */
  get ended(): boolean {
    return this.#ended || this.#destroyed;
  }

  /** Queues a copy of `bytes`. False when the queue is past the high-water mark ('drain' follows). */
  write(bytes: Uint8Array): boolean {
    if (this.#destroyed || this.#ended) return false;
    const out = this.out;
    if (bytes.length > 0) {
      out.queue.push(bytes.slice());
      out.queued += bytes.length;
      out.written += bytes.length;
      out.pump();
    }
    const ok = out.queued < this.writableHighWaterMark;
    if (!ok) out.needDrain = true;
    return ok;
  }

  /** Sends FIN once everything queued is sent. Reading goes on until the peer's FIN. */
  end(): void {
    if (this.#ended || this.#destroyed) return;
    this.#ended = true;
    this.out.finWanted = true;
    this.out.pump();
  }

  pause(): void {
    this.#flowing = false;
  }

  /** Starts or restarts reading; what was received meanwhile is handed over on a microtask. */
  resume(): void {
    if (this.#destroyed || this.#flowing) return;
    this.#flowing = true;
    if (this.#flushDue) return;
    this.#flushDue = true;
    queueMicrotask(() => {
      this.#flushDue = false;
      this.#flush();
    });
  }

  get isPaused(): boolean {
    return !this.#flowing;
  }

  /** Ends at once: the queue is dropped; the peer sees RST when unread bytes were thrown away, else FIN. */
  destroy(): void {
    if (this.#destroyed) return;
    const unread = this.#unreadBytes;
    this.#destroyed = true;
    this.#flowing = false;
    this.#dropUnread();
    const out = this.out;
    out.queue = [];
    out.queued = 0;
    out.needDrain = false;
    if (unread > 0) out.send({ type: 'rst' });
    else if (!out.finSent) {
      out.finSent = true;
      out.send({ type: 'fin' });
    }
    this.#ended = true;
    queueMicrotask(() => this.#emitClose());
  }

  /** The link broke under this end: unread and queued bytes are gone, 'error' then 'close'. */
  breakWith(reason: string): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#flowing = false;
    this.#dropUnread();
    this.#emit('error', reason);
    this.#emitClose();
  }

  // ---- called by the pipes ----

  receive(item: Item, pipe: Pipe): void {
    if (item.type === 'syn') {
      this.connected = true;
      this.onSyn?.();
      return;
    }
    if (item.type === 'synack') {
      this.connected = true;
      const done = this.onConnect;
      this.onConnect = undefined;
      done?.('ok');
      return;
    }
    if (this.#destroyed) {
      if (item.type === 'data') {
        pipe.window -= item.size;
        pipe.pump();
        // The kernel answers data for a closed socket with RST, once.
        if (!this.#rstReplied && !this.out.dead) {
          this.#rstReplied = true;
          this.out.send({ type: 'rst' });
        }
      }
      return;
    }
    switch (item.type) {
      case 'data':
        this.#unread.push(concat(item.chunks, item.size));
        this.#unreadBytes += item.size;
        this.#flush();
        return;
      case 'fin':
        this.#finReceived = true;
        this.#flush();
        return;
      case 'rst':
        if (this.onConnect !== undefined) {
          const done = this.onConnect;
          this.onConnect = undefined;
          this.#destroyed = true;
          this.#closeEmitted = true;
          this.#fabric.forget(this);
          done('refused');
          return;
        }
        this.breakWith('reset');
        return;
    }
  }

  /** Our FIN went out: closed once the peer's has been read too. */
  finSentNow(): void {
    this.#maybeClosed();
  }

  emitDrain(): void {
    this.#emit('drain');
  }

  #flush(): void {
    if (!this.#flowing || this.#flushing || this.#destroyed) return;
    this.#flushing = true;
    try {
      let freed = false;
      while (this.#flowing && !this.#destroyed && this.#unread.length > 0) {
        const chunk = this.#unread.shift()!;
        this.#unreadBytes -= chunk.length;
        this.in.window -= chunk.length;
        freed = true;
        this.#emit('data', chunk);
      }
      if (freed) this.in.pump();
      if (this.#finReceived && this.#unread.length === 0 && !this.#endEmitted && !this.#destroyed) {
        this.#endEmitted = true;
        this.#emit('end');
        this.end();
        this.#maybeClosed();
      }
    } finally {
      this.#flushing = false;
    }
  }

  #maybeClosed(): void {
    if (this.#endEmitted && this.out.finSent && !this.#destroyed) {
      this.#destroyed = true;
      this.#flowing = false;
      this.#emitClose();
    }
  }

  #dropUnread(): void {
    this.in.window -= this.#unreadBytes;
    this.#unread = [];
    this.#unreadBytes = 0;
    this.in.pump();
  }

  #emitClose(): void {
    if (this.#closeEmitted) return;
    this.#closeEmitted = true;
    this.#fabric.forget(this);
    this.#emit('close');
  }

  #emit<K extends keyof MemorySocketEvents>(type: K, ...args: Parameters<MemorySocketEvents[K]>): void {
    for (const handler of this.#handlers[type]) {
      try {
        (handler as (...a: unknown[]) => void)(...args);
      } catch (error) {
        this.#fabric.log({ msg: 'handler failed', handler: `memory socket ${type}`, id: this.id, error: String(error) });
      }
    }
  }

  /** A refused attempt's server end: gone without telling anyone (it never had an owner). */
  abandon(): void {
    this.#destroyed = true;
    this.#flowing = false;
    this.#closeEmitted = true;
    this.#fabric.forget(this);
  }
}
