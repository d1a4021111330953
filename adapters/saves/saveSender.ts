// The host's side of the save transfer (spec "Resync round" Transferring, "Bounds"; issue 11 item 2): streams the
// announced file to the round's participants as ResyncChunk frames of exactly 256 KiB of data, in order from index 0.
// Each chunk is read once, hashed (the incremental SHA-256 must match the announced one), encoded through the fast
// base64 port, sealed ONCE with the host's one counter, and the same frame bytes go to every participant.
//
// Slow participants (docs/DECISIONS.md "Save transfer: a window of sealed frames, per-participant cursors, and a
// spool"): each participant has its own cursor and is written to only while its connection's queue holds less than
// `queueBudget` (default 4 MiB, half the transport's 8 MiB bound, so our chunks never make the transport close it for a
// full queue). The sealed frames live in a shared window of `windowChunks` (16: ~5.6 MiB); the fastest participant
// paces the reading. A frame leaving the window that a lagging participant still needs is written once to a spool file
// (the same sealed bytes) and that participant reads it back from there, so a slow participant never holds the others
// back by more than the window, and memory stays bounded whatever the lag. One that stops reading is closed by the
// transport's own 10 s write timeout; the session then removes it. Nothing here blocks the event loop: every read and
// write is awaited, and a participant with a full queue is retried after `pollMs` on the injected clock.
import { createHash } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { chunkLength, chunkPlan, CHUNK_BYTES, transferProgress } from '../../machines/rules/resyncChunks.ts';
import type { Base64 } from '../../protocol/base64.ts';
import { encodeChunkPayload } from '../../protocol/messages/chunkCodec.ts';

/** What the sender needs of a participant's connection (FramedConnection has it). */
export interface TransferPeer {
  write(bytes: Uint8Array): void;
  /** Bytes written but not yet handed to the kernel. */
  readonly queuedBytes: number;
  /** Set once the connection closed. */
  readonly closeReason: string | undefined;
}

export interface SaveSenderOptions {
  /** The round's id (ResyncChunk.id). */
  id: number;
  path: string;
  /** The announced SHA-256 (lower-case hex) and length. */
  sha256: string;
  bytes: number;
  /** Seals a ResyncChunk payload with the host's sealer (one counter for the session): the complete frame. */
  sealChunk: (payload: Uint8Array) => Uint8Array;
  base64: Base64;
  clock: Clock;
  log?: LogFn;
  /** Where a spool file may be written (a lagging participant's frames). */
  spoolDir: string;
  windowChunks?: number;
  queueBudget?: number;
  pollMs?: number;
  /** Every chunk was handed to this participant's connection. */
  onPeerDone?: (player: number) => void;
}

export interface SendResult {
  /** Participants that were handed every chunk. */
  done: number[];
  /** Participants removed or closed before the end. */
  gone: number[];
  /** Chunks sealed (each exactly once). */
  sealed: number;
  /** Chunks that went through the spool for a lagging participant. */
  spooled: number;
  /** The SHA-256 of what was read matched the announced one (false: the file changed after the announcement). */
  intact: boolean;
}

interface Participant {
  peer: TransferPeer;
  /** The next index to write. */
  next: number;
  /** A frame read back from the spool, waiting for room in the queue. */
  pending: Uint8Array | undefined;
  reading: boolean;
}

/** One transfer of one file to a fixed set of participants. Use `start()` once. */
export class SaveSender {
  readonly #o: Required<Omit<SaveSenderOptions, 'log' | 'onPeerDone'>> & Pick<SaveSenderOptions, 'log' | 'onPeerDone'>;
  readonly #count: number;
  readonly #peers = new Map<number, Participant>();
  readonly #done: number[] = [];
  readonly #gone: number[] = [];
  /** Sealed frames in the window, by index. */
  readonly #window = new Map<number, Uint8Array>();
  /** Frames in the spool file: index → [offset, length]. */
  readonly #spooled = new Map<number, [number, number]>();
  #spool: Promise<FileHandle> | undefined;
  #spoolPath: string | undefined;
  #spoolEnd = 0;
  #spoolWrites = 0;
  #source: FileHandle | undefined;
  #produced = 0;
  #producing = false;
  #hash = createHash('sha256');
  #readBuffer: Buffer | undefined;
  #pollTimer: unknown;
  #polling = false;
  #startedAt = 0;
  #finished = false;
  #failed: Error | undefined;
  #resolve!: (result: SendResult) => void;
  #reject!: (error: Error) => void;

  constructor(options: SaveSenderOptions, participants: ReadonlyMap<number, TransferPeer>) {
    const plan = chunkPlan(options.bytes);
    if (!plan.ok) throw new RangeError(plan.reason);
    this.#count = plan.count;
    this.#o = { windowChunks: 16, queueBudget: 4 * 1_048_576, pollMs: 2, ...options };
    for (const [player, peer] of participants) this.#peers.set(player, { peer, next: 0, pending: undefined, reading: false });
  }

  get count(): number {
    return this.#count;
  }

  /** Bytes handed to the slowest remaining participant, the rate and the time left (launcher status, progress bar). */
  progress() {
    const cursors = [...this.#peers.values()].map((p) => p.next);
    const slowest = cursors.length === 0 ? this.#count : Math.min(...cursors);
    const bytes = Math.min(this.#o.bytes, slowest * CHUNK_BYTES);
    return transferProgress(bytes, this.#o.bytes, this.#o.clock.now() - this.#startedAt);
  }

  /** Streams the file; resolves once every participant was handed every chunk or is gone. */
  start(): Promise<SendResult> {
    this.#startedAt = this.#o.clock.now();
    const result = new Promise<SendResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    open(this.#o.path, 'r').then(
      (file) => {
        this.#source = file;
        this.#pump();
      },
      (error: unknown) => this.#fail(error),
    );
    return result;
  }

  /** The participant left the round (or its connection closed): forgotten with what was queued for it. */
  remove(player: number): void {
    if (!this.#peers.delete(player)) return;
    this.#gone.push(player);
    this.#pump();
  }

  /** Stops the transfer (the round failed): nothing more is written. */
  cancel(): void {
    for (const player of [...this.#peers.keys()]) {
      this.#peers.delete(player);
      this.#gone.push(player);
    }
    this.#pump();
  }

  #pump(): void {
    if (this.#finished || this.#source === undefined) return;
    let blocked = false;
    for (const [player, p] of this.#peers) {
      if (p.peer.closeReason !== undefined) {
        this.#peers.delete(player);
        this.#gone.push(player);
        continue;
      }
      blocked = this.#feed(p) || blocked;
      if (p.next === this.#count && p.pending === undefined) {
        this.#peers.delete(player);
        this.#done.push(player);
        this.#o.onPeerDone?.(player);
      }
    }
    this.#evict();
    this.#produce();
    if (this.#peers.size === 0) {
      this.#finish();
      return;
    }
    if (blocked && !this.#polling) {
      this.#polling = true;
      this.#pollTimer = this.#o.clock.setTimeout(() => {
        this.#polling = false;
        this.#pump();
      }, this.#o.pollMs);
    }
  }

  /** Writes what this participant may take now; true when its queue is full (retry later). */
  #feed(p: Participant): boolean {
    for (;;) {
      if (p.reading) return false;
      let frame = p.pending;
      if (frame === undefined) {
        if (p.next >= this.#produced) return false;
        frame = this.#window.get(p.next);
        if (frame === undefined) {
          this.#readSpooled(p);
          return false;
        }
      }
      // An empty queue always takes one frame; otherwise only within the budget (a frame from the window stays
      // there, one read back from the spool waits in `pending`).
      if (p.peer.queuedBytes > 0 && p.peer.queuedBytes + frame.length > this.#o.queueBudget) return true;
      p.peer.write(frame);
      p.pending = undefined;
      p.next += 1;
    }
  }

  #readSpooled(p: Participant): void {
    const at = this.#spooled.get(p.next);
    if (at === undefined || this.#spool === undefined) return; // still being spooled: the write's end pumps again
    p.reading = true;
    const frame = Buffer.allocUnsafe(at[1]);
    this.#spool.then((file) => file.read(frame, 0, at[1], at[0])).then(
      () => {
        p.reading = false;
        p.pending = new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength);
        this.#pump();
      },
      (error: unknown) => this.#fail(error),
    );
  }

  /** Frames every participant has taken leave the window; one a laggard still needs goes to the spool first. */
  #evict(): void {
    const lowest = Math.min(...[...this.#peers.values()].map((p) => p.next), this.#produced);
    for (const index of [...this.#window.keys()].sort((a, b) => a - b)) {
      if (index < lowest) {
        this.#window.delete(index);
        continue;
      }
      const fastestCaughtUp = [...this.#peers.values()].some((p) => p.next >= this.#produced);
      if (this.#window.size < this.#o.windowChunks || !fastestCaughtUp || this.#spooled.has(index)) break;
      this.#spoolFrame(index, this.#window.get(index)!);
      break;
    }
  }

  #spoolFrame(index: number, frame: Uint8Array): void {
    if (this.#spoolWrites > 0) return; // one at a time keeps the order simple; the write's end evicts again
    this.#spoolWrites += 1;
    const offset = this.#spoolEnd;
    this.#spoolEnd += frame.length;
    this.#spool ??= open((this.#spoolPath = join(this.#o.spoolDir, `.feverlink3-resync-${this.#o.id}.spool`)), 'w+');
    this.#spool
      .then((file) => file.write(frame, 0, frame.length, offset))
      .then(
        () => {
          this.#spoolWrites -= 1;
          this.#spooled.set(index, [offset, frame.length]);
          this.#window.delete(index);
          this.#pump();
        },
        (error: unknown) => this.#fail(error),
      );
  }

  /** Reads, hashes, encodes and seals the next chunk while the window has room. */
  #produce(): void {
    if (this.#producing || this.#produced >= this.#count || this.#window.size >= this.#o.windowChunks) return;
    if (this.#peers.size === 0) return;
    this.#producing = true;
    const index = this.#produced;
    const length = chunkLength(this.#o.bytes, index);
    // One read at a time, and its bytes are hashed and copied into the sealed frame before the next read: one buffer
    // serves every chunk (a fresh 256 KiB per read cost ~2× the read itself in page faults).
    const data = (this.#readBuffer ??= Buffer.allocUnsafe(CHUNK_BYTES)).subarray(0, length);
    this.#source!.read(data, 0, length, index * CHUNK_BYTES).then(
      ({ bytesRead }) => {
        this.#producing = false;
        if (this.#finished) return;
        if (bytesRead !== length) return this.#fail(new Error(`the save shrank: chunk ${index} read ${bytesRead} of ${length} bytes`));
        this.#hash.update(data);
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        const payload = encodeChunkPayload({ id: this.#o.id, index, count: this.#count, sha256: this.#o.sha256, data: bytes }, this.#o.base64);
        this.#window.set(index, this.#o.sealChunk(payload));
        this.#produced += 1;
        this.#pump();
      },
      (error: unknown) => this.#fail(error),
    );
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#polling) this.#o.clock.clearTimeout(this.#pollTimer);
    const intact = this.#produced === this.#count && this.#hash.digest('hex') === this.#o.sha256;
    if (this.#produced === this.#count && !intact) this.#o.log?.({ msg: 'resync save changed after it was announced', id: this.#o.id });
    const result: SendResult = { done: this.#done, gone: this.#gone, sealed: this.#produced, spooled: this.#spooled.size, intact };
    void this.#close().then(() => (this.#failed ? this.#reject(this.#failed) : this.#resolve(result)));
  }

  #fail(error: unknown): void {
    if (this.#finished) return;
    this.#failed = error instanceof Error ? error : new Error(String(error));
    this.#peers.clear();
    this.#finish();
  }

  async #close(): Promise<void> {
    await this.#source?.close().catch(() => undefined);
    const spool = await this.#spool?.catch(() => undefined);
    await spool?.close().catch(() => undefined);
    if (this.#spoolPath) await rm(this.#spoolPath, { force: true });
  }
}

/** A transport Connection as a transfer peer: FramedConnection tells its queue; another one counts as empty. */
export function transferPeerOf(conn: { write(bytes: Uint8Array): void; readonly closeReason: string | undefined }): TransferPeer {
  const queued = conn as { queuedBytes?: unknown };
  return {
    write: (bytes) => conn.write(bytes),
    get queuedBytes() {
      return typeof queued.queuedBytes === 'number' ? queued.queuedBytes : 0;
    },
    get closeReason() {
      return conn.closeReason;
    },
  };
}
