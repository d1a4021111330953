// Sealing and opening of frames (spec: wire-protocol.txt "Frame", sealed frames): AES-256-GCM, the 12 header
// bytes as AAD, nonce = u32(sender) ‖ u64(counter), one strictly increasing counter per sender, and a replay
// window per sender that is created and moved only after the tag verified (reliability-tests.md §1–§2).
import type { AeadKey } from './crypto.ts';
import { TAG_BYTES } from './crypto.ts';
import type { KeyBudget } from './keyBudget.ts';
import {
  FRAME_VERSION,
  HEADER_BYTES,
  MAX_COUNTER,
  MAX_PAYLOAD_BYTES,
  PREFIX_BYTES,
  writeHeader,
  writePrefix,
  writeU32,
  writeU64,
  type Frame,
} from './frame/codec.ts';
import { ReplayWindow } from './replayWindow.ts';

/** GCM nonce length: u32 sender ‖ u64 counter. */
export const NONCE_BYTES = 12;

/** The GCM nonce of a frame: u32 sender ‖ u64 counter, big-endian (SP 800-38D §8.2.1: fixed ‖ invocation). */
export function nonceFor(sender: number, counter: bigint): Uint8Array {
  const nonce = new Uint8Array(NONCE_BYTES);
  writeNonce(nonce, sender, counter);
  return nonce;
}

function writeNonce(nonce: Uint8Array, sender: number, counter: bigint): void {
  if (!Number.isInteger(sender) || sender < 0 || sender > 0xffff_ffff) {
    throw new RangeError(`sender ${sender} is not a u32`);
  }
  if (counter < 0n || counter > MAX_COUNTER) throw new RangeError(`counter ${counter} is not a u64`);
  writeU32(nonce, 0, sender);
  writeU64(nonce, 4, counter);
}

/**
 * Optional extra of an {@link AeadKey}: a source of frame buffers. The Sealer overwrites every byte of the buffer,
 * so it need not be zero-filled: nodeCrypto hands out `Buffer.allocUnsafe` memory, which spares a 256 KiB frame
 * the fresh zeroed allocation that costs about as much as its AES here (reference/stack.md §3).
 */
export interface FrameAllocator {
  allocate(size: number): Uint8Array;
}

function allocatorOf(key: AeadKey): (size: number) => Uint8Array {
  const allocate = (key as Partial<FrameAllocator>).allocate;
  return typeof allocate === 'function' ? allocate.bind(key) : (size) => new Uint8Array(size);
}

/** Seals the frames of one sender under one key. The counter never restarts and never repeats. */
export class Sealer {
  readonly sender: number;
  readonly #key: AeadKey;
  readonly #allocate: (size: number) => Uint8Array;
  /** Reused for every frame: the AeadKey reads it synchronously and keeps nothing. */
  readonly #nonce = new Uint8Array(NONCE_BYTES);
  #next: bigint;
  /** Counts the payload bytes sealed (protocol/keyBudget.ts); shared with the Opener of the same key. */
  readonly #budget: KeyBudget | undefined;

  constructor(key: AeadKey, sender: number, options?: { firstCounter?: bigint; budget?: KeyBudget }) {
    if (!Number.isInteger(sender) || sender < 0 || sender > 65535) {
      throw new RangeError(`sender ${sender} is not a u16`);
    }
    const first = options?.firstCounter ?? 1n;
    if (first < 1n || first > MAX_COUNTER) throw new RangeError(`first counter ${first} outside [1, 2^64 - 1]`);
    this.#key = key;
    this.#allocate = allocatorOf(key);
    this.sender = sender;
    this.#next = first;
    this.#budget = options?.budget;
  }

  /** The counter the next frame will carry; above 2^64 − 1 once the sender is used up. */
  get nextCounter(): bigint {
    return this.#next;
  }

  /**
   * The complete wire frame (prefix + header + ciphertext + tag), written into one buffer (with nodeCrypto a view
   * into Node's buffer pool for small frames: hand on the view, or mind byteOffset). Throws RangeError for a
   * payload over MAX_PAYLOAD_BYTES or once the counter passed 2^64 − 1 (nothing is sealed, no counter burnt).
   * Strictly increasing counter, never reused.
   */
  seal(kind: number, payload: Uint8Array): Uint8Array {
    if (payload.length > MAX_PAYLOAD_BYTES) {
      throw new RangeError(`payload of ${payload.length} bytes exceeds ${MAX_PAYLOAD_BYTES}: not sent`);
    }
    const counter = this.#next;
    if (counter > MAX_COUNTER) throw new RangeError(`sender ${this.sender} used all 2^64 - 1 counters`);
    const length = HEADER_BYTES + payload.length + TAG_BYTES;
    const out = this.#allocate(PREFIX_BYTES + length);
    writePrefix(out, 0, length);
    writeHeader(out, PREFIX_BYTES, { version: FRAME_VERSION, kind, sender: this.sender, counter });
    const aad = out.subarray(PREFIX_BYTES, PREFIX_BYTES + HEADER_BYTES);
    // The counter is taken before sealing: if the cipher ever threw after using the nonce, it is still burnt.
    this.#next = counter + 1n;
    writeNonce(this.#nonce, this.sender, counter);
    this.#key.sealInto(this.#nonce, aad, payload, out, PREFIX_BYTES + HEADER_BYTES);
    this.#budget?.add(payload.length);
    return out;
  }
}

/** The result of opening a frame; a refusal names why (for counting and logs, never for the peer). */
export type OpenResult = { ok: true; payload: Uint8Array } | { ok: false; reason: 'short' | 'tag' | 'replay' };

const SHORT: OpenResult = { ok: false, reason: 'short' };
const TAG: OpenResult = { ok: false, reason: 'tag' };
const REPLAY: OpenResult = { ok: false, reason: 'replay' };

/**
 * Opens sealed frames of every sender under one key. One replay window per sender, created and updated ONLY after
 * the tag verified (a forged frame burns no counter and grows nothing). Body < 16 bytes → 'short'. The tag is
 * exactly the last 16 bytes. Checking which sender may send on a connection is the caller's job.
 */
export class Opener {
  readonly #key: AeadKey;
  readonly #windows = new Map<number, ReplayWindow>();
  readonly #nonce = new Uint8Array(NONCE_BYTES);
  /** Counts the payload bytes of authentic frames: what their senders sealed under the key (protocol/keyBudget.ts). */
  readonly #budget: KeyBudget | undefined;

  constructor(key: AeadKey, budget?: KeyBudget) {
    this.#key = key;
    this.#budget = budget;
  }

  open(frame: Frame): OpenResult {
    const { body, headerBytes } = frame;
    if (body.length < TAG_BYTES) return SHORT;
    if (headerBytes.length !== HEADER_BYTES) return TAG;
    const { sender, counter } = frame.header;
    const window = this.#windows.get(sender);
    // A cheap early refusal (RFC 4303 does the same): the window is only read here, never written.
    if (window ? !window.check(counter) : counter < 1n || counter > MAX_COUNTER) return REPLAY;
    writeNonce(this.#nonce, sender, counter);
    const payload = this.#key.open(this.#nonce, headerBytes, body);
    if (payload === null) return TAG;
    this.#budget?.add(payload.length);
    if (window) window.commit(counter);
    else {
      const fresh = new ReplayWindow();
      fresh.commit(counter);
      this.#windows.set(sender, fresh);
    }
    return { ok: true, payload };
  }

  /** How many senders have a replay window (only senders that sent an authentic frame). */
  get senderCount(): number {
    return this.#windows.size;
  }

  /** The highest authentic counter seen from `sender`; 0n when none. */
  highest(sender: number): bigint {
    return this.#windows.get(sender)?.highest ?? 0n;
  }
}
