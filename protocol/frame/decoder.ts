// Streaming frame decoder (spec: wire-protocol.txt "Frame": "A length outside the bounds closes the
// connection before anything is allocated"). Holds the received chunks as they came and copies a frame
// only once it is complete and split over chunks, so a hostile length claim costs no memory.
import {
  FRAME_VERSION,
  FrameError,
  MAX_FRAME_LENGTH,
  MIN_FRAME_LENGTH,
  PREFIX_BYTES,
  frameFromBytes,
  type Frame,
} from './codec.ts';

/**
 * Streaming decoder: any split or coalescing of the byte stream gives the same frames. The length prefix is
 * checked against [12, maxLength] as soon as its 4 bytes are in, BEFORE anything is allocated for the body;
 * a bad length or version throws FrameError (the caller closes the connection with a reason). After an error
 * the decoder has dropped its buffer and every further push throws the same error.
 *
 * A frame that arrived inside one chunk views that chunk (no copy): do not reuse a pushed chunk's memory.
 */
export class FrameDecoder {
  #maxLength: number;
  /** Received chunks not yet consumed; the first one from `#offset` on. */
  #chunks: Uint8Array[] = [];
  #head = 0;
  #offset = 0;
  #buffered = 0;
  /** The current frame's checked length prefix, or -1 until its 4 bytes are in. */
  #length = -1;
  #failed: FrameError | undefined;

  constructor(options?: { maxLength?: number }) {
    this.#maxLength = FrameDecoder.#checkMax(options?.maxLength ?? MAX_FRAME_LENGTH);
  }

  static #checkMax(value: number): number {
    if (!Number.isInteger(value) || value < MIN_FRAME_LENGTH || value > MAX_FRAME_LENGTH) {
      throw new RangeError(`maxLength ${value} outside [${MIN_FRAME_LENGTH}, ${MAX_FRAME_LENGTH}]`);
    }
    return value;
  }

  /** Per-phase maximum of the length prefix (HANDSHAKE_MAX_LENGTH until the connection joined). */
  get maxLength(): number {
    return this.#maxLength;
  }

  set maxLength(value: number) {
    this.#maxLength = FrameDecoder.#checkMax(value);
  }

  /** Bytes received and held, not yet returned as frames. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /** Feeds received bytes; returns the frames they complete, in order. Throws FrameError (see the class). */
  push(chunk: Uint8Array): Frame[] {
    if (this.#failed) throw this.#failed;
    const frames: Frame[] = [];
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    for (;;) {
      if (this.#length < 0) {
        if (this.#buffered < PREFIX_BYTES) break;
        const length = this.#peekU32();
        if (length < MIN_FRAME_LENGTH || length > this.#maxLength) {
          const message = `frame length ${length} outside [${MIN_FRAME_LENGTH}, ${this.#maxLength}]`;
          this.#fail(new FrameError('length', message, { length }, frames));
        }
        this.#length = length;
      }
      // The version byte is checked as soon as it is in, like the length.
      if (this.#buffered > PREFIX_BYTES) {
        const version = this.#peekByte(PREFIX_BYTES);
        if (version !== FRAME_VERSION) {
          const message = `frame version ${version}, expected ${FRAME_VERSION}`;
          this.#fail(new FrameError('version', message, { version }, frames));
        }
      }
      const total = PREFIX_BYTES + this.#length;
      if (this.#buffered < total) break;
      frames.push(frameFromBytes(this.#take(total).subarray(PREFIX_BYTES)));
      this.#length = -1;
    }
    this.#compact();
    return frames;
  }

  #fail(error: FrameError): never {
    this.#failed = error;
    this.#chunks = [];
    this.#head = 0;
    this.#offset = 0;
    this.#buffered = 0;
    throw error;
  }

  #peekByte(index: number): number {
    let i = this.#head;
    let at = this.#offset + index;
    for (;;) {
      const chunk = this.#chunks[i]!;
      if (at < chunk.length) return chunk[at]!;
      at -= chunk.length;
      i++;
    }
  }

  #peekU32(): number {
    return ((this.#peekByte(0) << 24) | (this.#peekByte(1) << 16) | (this.#peekByte(2) << 8) | this.#peekByte(3)) >>> 0;
  }

  /** Removes `count` buffered bytes (count ≤ bufferedBytes): a view when they lie in one chunk, else a copy. */
  #take(count: number): Uint8Array {
    this.#buffered -= count;
    const first = this.#chunks[this.#head]!;
    if (first.length - this.#offset >= count) {
      const view = first.subarray(this.#offset, this.#offset + count);
      this.#offset += count;
      if (this.#offset === first.length) this.#advance();
      return view;
    }
    const out = new Uint8Array(count);
    let written = 0;
    while (written < count) {
      const chunk = this.#chunks[this.#head]!;
      const n = Math.min(chunk.length - this.#offset, count - written);
      out.set(chunk.subarray(this.#offset, this.#offset + n), written);
      written += n;
      this.#offset += n;
      if (this.#offset === chunk.length) this.#advance();
    }
    return out;
  }

  #advance(): void {
    this.#chunks[this.#head] = EMPTY;
    this.#head++;
    this.#offset = 0;
  }

  /** Drops consumed chunk slots (kept as an index while a push runs, so taking is O(1)). */
  #compact(): void {
    if (this.#head === 0) return;
    this.#chunks = this.#chunks.slice(this.#head);
    this.#head = 0;
  }
}

const EMPTY = new Uint8Array(0);
