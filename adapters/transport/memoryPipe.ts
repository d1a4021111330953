// One direction of an in-memory link: the sender's queue, the window (bytes in flight plus bytes not yet read),
// latency with seeded jitter (order kept, as on TCP), bandwidth, `held`, and FIN/RST (adapters/transport/memorySocket.ts).
import type { Fabric } from './memoryFabric.ts';
import type { MemorySocket } from './memorySocket.ts';
import type { LinkConditions } from './memoryLinkConditions.ts';

interface DataItem {
  type: 'data';
  chunks: Uint8Array[];
  size: number;
  at: number;
  /** Clock time it left. */
  sentAt: number;
}
type ControlItem = { type: 'syn' } | { type: 'synack' } | { type: 'fin' } | { type: 'rst' };
export type Item = DataItem | ControlItem;

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

export class Pipe {
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

export function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
