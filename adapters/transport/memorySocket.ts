// The byte fabric under the in-memory transport (DESIGN.md "Adapters: Transport", "Tests: simulation"): reliable,
// ordered byte streams between two MemorySockets, delivered asynchronously on an injected clock. Each direction of a
// link has a latency, a seeded jitter (order is kept, as on TCP), a bandwidth, a window (bytes in flight plus bytes
// the receiver has not read; past it the sender's queue grows, which is what the write guard watches) and a `held`
// switch (a partition that heals). A link can be cut: both ends close at once with the cut's reason.
//
// Everything happens through ONE timer on the injected clock and an event queue ordered by (time, sequence), so
// a run is a function of the seed, the clock's steps and the calls made: no real time, no randomness of its own.
// The one exception to "on the clock" is resume(): bytes already received are handed over on a microtask (as
// Node's socket.resume() does on the next tick), so an owner setting up its handlers is never re-entered.
import type { Clock, LogFn } from '../../actors/ports.ts';

/** The conditions of one direction of a link. */
export interface LinkConditions {
  /** One-way delay in ms added to every piece of data (default 0: next event, never synchronous). */
  latencyMs: number;
  /** Extra delay, uniform in [0, jitterMs), seeded per direction; bytes still arrive in order (default 0). */
  jitterMs: number;
  /** Bytes per second on the wire; `Infinity` (default) for no limit. */
  bytesPerSecond: number;
  /** Bytes in flight plus bytes received but not read before the sender's queue grows (default 1 MiB). */
  windowBytes: number;
  /** Nothing arrives while held (kept and delivered, in order, once released). */
  held: boolean;
}

export const DEFAULT_LINK: Readonly<LinkConditions> = Object.freeze({
  latencyMs: 0,
  jitterMs: 0,
  bytesPerSecond: Infinity,
  windowBytes: 1_048_576,
  held: false,
});

/** The defaults with `changes` applied; throws RangeError for a value that cannot work (our own code's mistake). */
export function resolveConditions(base: LinkConditions, changes: Partial<LinkConditions> = {}): LinkConditions {
  const out: LinkConditions = { ...base };
  for (const [name, value] of Object.entries(changes) as [keyof LinkConditions, unknown][]) {
    if (value !== undefined) (out as unknown as Record<string, unknown>)[name] = value;
  }
  const finite = (name: string, value: number, min: number): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new RangeError(`link ${name} must be a number ≥ ${min}, got ${String(value)}`);
    }
  };
  finite('latencyMs', out.latencyMs, 0);
  finite('jitterMs', out.jitterMs, 0);
  finite('windowBytes', out.windowBytes, 1);
  if (typeof out.bytesPerSecond !== 'number' || Number.isNaN(out.bytesPerSecond) || !(out.bytesPerSecond > 0)) {
    throw new RangeError(`link bytesPerSecond must be > 0 (Infinity for no limit), got ${String(out.bytesPerSecond)}`);
  }
  if (typeof out.held !== 'boolean') throw new RangeError('link held must be a boolean');
  return out;
}

/** A small seeded generator (mulberry32): floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit mix of a seed and a stream number, so each direction of each link has its own sequence. */
function mixSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

// ---- the event queue ----------------------------------------------------------------------------------------

interface ScheduledEvent {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * Events at clock times, run in (time, sequence) order through one timer on the clock. An event due now runs when
 * the timer fires (on a SimulatedClock: at the next increment, even `increment(0)`), never inside the call that
 * scheduled it.
 */
export class EventQueue {
  #clock: Clock;
  #log: LogFn;
  #heap: ScheduledEvent[] = [];
  #seq = 0;
  #timer: unknown;
  #armedAt: number | undefined;
  #running = false;

  constructor(clock: Clock, log: LogFn) {
    this.#clock = clock;
    this.#log = log;
  }

  /** Events not yet run. */
  get size(): number {
    return this.#heap.length;
  }

  /** When the next event is due (undefined: none). */
  nextAt(): number | undefined {
    return this.#heap[0]?.at;
  }

  at(time: number, run: () => void): void {
    this.#push({ at: Math.max(time, this.#clock.now()), seq: this.#seq++, run });
    if (!this.#running) this.#arm();
  }

  #arm(): void {
    const next = this.#heap[0]?.at;
    if (next === this.#armedAt) return;
    if (this.#armedAt !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#armedAt = next;
    if (next === undefined) return;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), Math.max(0, next - this.#clock.now()));
  }

  #fire(): void {
    this.#armedAt = undefined;
    this.#running = true;
    try {
      const now = this.#clock.now();
      while (this.#heap.length > 0 && this.#heap[0]!.at <= now) {
        const event = this.#pop();
        try {
          event.run();
        } catch (error) {
          this.#log({ msg: 'handler failed', handler: 'memory network', error: String(error) });
        }
      }
    } finally {
      this.#running = false;
      this.#arm();
    }
  }

  #less(a: ScheduledEvent, b: ScheduledEvent): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(event: ScheduledEvent): void {
    const heap = this.#heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): ScheduledEvent {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.#less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && this.#less(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}

// ---- one direction of a link ----------------------------------------------------------------------------------

interface DataItem {
  type: 'data';
  chunks: Uint8Array[];
  size: number;
  at: number;
  /** Clock time it left. */
  sentAt: number;
}
type ControlItem = { type: 'syn' } | { type: 'synack' } | { type: 'fin' } | { type: 'rst' };
type Item = DataItem | ControlItem;

/** Counters of one direction (for tests and the simulator's reports). */
export interface DirectionStats {
  /** Bytes the sender wrote. */
  written: number;
  /** Bytes that reached the receiver. */
  delivered: number;
  /** Bytes in the sender's queue (its writableLength). */
  queued: number;
  /** Bytes in flight plus bytes received and not read. */
  inWindow: number;
}

class Pipe {
  readonly fabric: Fabric;
  readonly from: MemorySocket;
  readonly to: MemorySocket;
  conditions: LinkConditions;
  readonly random: () => number;
  /** The sender's queue: written, not yet in the window. */
  queue: Uint8Array[] = [];
  queued = 0;
  /** In flight plus unread at the receiver. */
  window = 0;
  written = 0;
  delivered = 0;
  lastArrival = -Infinity;
  txFreeAt = -Infinity;
  finWanted = false;
  finSent = false;
  needDrain = false;
  /** Items scheduled and not yet arrived, in order (arrivals are FIFO: their times never decrease). */
  inFlight: Item[] = [];
  /** The last data item scheduled and not yet arrived: later data due at the same time joins it (one read). */
  tail: DataItem | undefined;
  /** Items pulled back while held, in order. */
  parked: Item[] = [];
  /** Bumped when the items in flight are pulled back (held) or dropped (cut): their events then do nothing. */
  epoch = 0;
  dead = false;

  constructor(fabric: Fabric, from: MemorySocket, to: MemorySocket, conditions: LinkConditions, random: () => number) {
    this.fabric = fabric;
    this.from = from;
    this.to = to;
    this.conditions = { ...conditions };
    this.random = random;
  }

  stats(): DirectionStats {
    return { written: this.written, delivered: this.delivered, queued: this.queued, inWindow: this.window };
  }

  /** Moves queued bytes into the window (and the FIN after them) as far as the window and the link allow. */
  pump(): void {
    if (this.dead || this.conditions.held) return;
    const limit = this.conditions.windowBytes;
    while (this.queue.length > 0 && this.window < limit) {
      const head = this.queue[0]!;
      const n = Math.min(head.length, limit - this.window);
      let piece: Uint8Array;
      if (n === head.length) {
        piece = head;
        this.queue.shift();
      } else {
        piece = head.subarray(0, n);
        this.queue[0] = head.subarray(n);
      }
      this.queued -= n;
      this.window += n;
      this.#sendData(piece);
    }
    if (this.queue.length === 0 && this.finWanted && !this.finSent) {
      this.finSent = true;
      this.send({ type: 'fin' });
      this.from.finSentNow();
    }
    if (this.needDrain && this.queued === 0) {
      this.needDrain = false;
      this.from.emitDrain();
    }
  }

  #arrivalFor(size: number): number {
    const { latencyMs, jitterMs, bytesPerSecond } = this.conditions;
    const now = this.fabric.clock.now();
    const start = Math.max(now, this.txFreeAt);
    this.txFreeAt = start + (Number.isFinite(bytesPerSecond) ? (size * 1000) / bytesPerSecond : 0);
    const jitter = jitterMs > 0 ? this.random() * jitterMs : 0;
    const at = Math.max(this.txFreeAt + latencyMs + jitter, this.lastArrival);
    this.lastArrival = at;
    return at;
  }

  #sendData(piece: Uint8Array): void {
    const tail = this.tail;
    const now = this.fabric.clock.now();
    // Bytes written at the same instant travel together, as TCP sends what one tick wrote in one segment: they
    // join the last piece in flight when it left at this instant (or is due at the same time anyway).
    if (tail !== undefined && this.inFlight[this.inFlight.length - 1] === tail) {
      const sameInstant = tail.sentAt === now && !Number.isFinite(this.conditions.bytesPerSecond);
      if (sameInstant) {
        tail.chunks.push(piece);
        tail.size += piece.length;
        return;
      }
    }
    const at = this.#arrivalFor(piece.length);
    if (tail !== undefined && tail.at === at && this.inFlight[this.inFlight.length - 1] === tail) {
      tail.chunks.push(piece);
      tail.size += piece.length;
      return;
    }
    const item: DataItem = { type: 'data', chunks: [piece], size: piece.length, at, sentAt: now };
    this.tail = item;
    this.#schedule(item, at);
  }

  /** Sends a control item (SYN, SYN-ACK, FIN, RST) in order behind what is in flight; while held it is kept too. */
  send(item: ControlItem): void {
    this.tail = undefined;
    this.#schedule(item, this.#arrivalFor(0));
  }

  #schedule(item: Item, at: number): void {
    if (this.dead) return;
    if (this.conditions.held) {
      this.parked.push(item);
      return;
    }
    this.inFlight.push(item);
    const epoch = this.epoch;
    this.fabric.events.at(at, () => {
      if (epoch !== this.epoch || this.dead) return;
      this.inFlight.shift();
      if (item === this.tail) this.tail = undefined;
      if (item.type === 'data') this.delivered += item.size;
      this.to.receive(item, this);
    });
  }

  /** Held: what is in flight is pulled back (kept, in order) and nothing more goes out. */
  hold(): void {
    this.epoch++;
    this.parked.push(...this.inFlight.splice(0));
    this.tail = undefined;
  }

  /** Released: what was kept goes out again, in order, after the latency from now; then the queue moves on. */
  release(): void {
    const parked = this.parked.splice(0);
    this.lastArrival = -Infinity;
    this.txFreeAt = -Infinity;
    for (const item of parked) {
      const at = this.#arrivalFor(item.type === 'data' ? item.size : 0);
      if (item.type === 'data') item.at = at;
      this.#schedule(item, at);
    }
    this.pump();
  }

  /** Everything in flight, parked or queued is gone, for good. */
  drop(): void {
    this.epoch++;
    this.queue = [];
    this.queued = 0;
    this.window = 0;
    this.inFlight = [];
    this.parked = [];
    this.tail = undefined;
    this.dead = true;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

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

// ---- links and the fabric ----------------------------------------------------------------------------------

/** Both directions of one connection, as the simulator steers them. */
export interface MemoryLink {
  readonly id: number;
  /** The connecting end and the accepting end. */
  readonly client: MemorySocket;
  readonly server: MemorySocket;
  /** The conditions client → server and server → client. */
  conditions(): { up: LinkConditions; down: LinkConditions };
  /** Changes both directions (or one); releasing `held` delivers what was kept, in order. */
  set(changes: Partial<LinkConditions>, direction?: 'both' | 'up' | 'down'): void;
  /** Cuts the link: both ends close at once with `reason` (default 'reset'); nothing in flight arrives. */
  cut(reason?: string): void;
  /** The reason it was cut with, once cut. */
  readonly cutReason: string | undefined;
  stats(): { up: DirectionStats; down: DirectionStats };
}

/** The sockets, links and event queue of one memory network. */
export class Fabric {
  readonly clock: Clock;
  readonly log: LogFn;
  readonly events: EventQueue;
  readonly seed: number;
  #nextSocket = 0;
  #nextStream = 0;
  #nextLink = 0;
  #links = new Map<MemorySocket, MemoryLink>();

  constructor(clock: Clock, seed: number, log: LogFn) {
    this.clock = clock;
    this.seed = seed >>> 0;
    this.log = log;
    this.events = new EventQueue(clock, log);
  }

  /**
   * Makes a linked pair: the client end (to hand out once connected) and the server end (its `onSyn` runs when the
   * client's SYN arrives). The SYN is sent at once.
   */
  pair(clientAddress: string, serverAddress: string, up: LinkConditions, down: LinkConditions): MemoryLink {
    const client = new MemorySocket(this, ++this.#nextSocket, clientAddress, serverAddress);
    const server = new MemorySocket(this, ++this.#nextSocket, serverAddress, clientAddress);
    const upPipe = new Pipe(this, client, server, up, seededRandom(mixSeed(this.seed, this.#nextStream++)));
    const downPipe = new Pipe(this, server, client, down, seededRandom(mixSeed(this.seed, this.#nextStream++)));
    client.out = upPipe;
    client.in = downPipe;
    server.out = downPipe;
    server.in = upPipe;
    let cutReason: string | undefined;
    const link: MemoryLink = {
      id: ++this.#nextLink,
      client,
      server,
      conditions: () => ({ up: { ...upPipe.conditions }, down: { ...downPipe.conditions } }),
      set: (changes, direction = 'both') => {
        for (const pipe of direction === 'both' ? [upPipe, downPipe] : direction === 'up' ? [upPipe] : [downPipe]) {
          const wasHeld = pipe.conditions.held;
          pipe.conditions = resolveConditions(pipe.conditions, changes);
          if (!wasHeld && pipe.conditions.held) pipe.hold();
          else if (wasHeld && !pipe.conditions.held) pipe.release();
          else pipe.pump();
        }
      },
      cut: (reason = 'reset') => {
        if (cutReason !== undefined) return;
        cutReason = reason;
        upPipe.drop();
        downPipe.drop();
        const pending = client.onConnect;
        if (pending !== undefined) {
          client.onConnect = undefined;
          pending('refused');
        }
        client.breakWith(reason);
        server.breakWith(reason);
      },
      get cutReason() {
        return cutReason;
      },
      stats: () => ({ up: upPipe.stats(), down: downPipe.stats() }),
    };
    this.#links.set(client, link);
    this.#links.set(server, link);
    upPipe.send({ type: 'syn' });
    return link;
  }

  /** Sends the SYN-ACK (the server accepted at the kernel level). */
  accept(server: MemorySocket): void {
    server.out.send({ type: 'synack' });
  }

  /** Refuses a SYN: RST back (the client's connect fails with ECONNREFUSED). */
  refuse(server: MemorySocket): void {
    server.out.send({ type: 'rst' });
    server.abandon();
  }

  linkOf(socket: MemorySocket): MemoryLink | undefined {
    return this.#links.get(socket);
  }

  /** Every link not yet fully closed, oldest first. */
  links(): MemoryLink[] {
    return [...new Set(this.#links.values())];
  }

  /** A closed end is no longer found; a link is listed until both its ends closed. */
  forget(socket: MemorySocket): void {
    this.#links.delete(socket);
  }
}
