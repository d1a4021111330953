// The save transfer's bounds and the receiving side's checks, pure (spec wire-protocol.txt "Bounds", "Receiving
// side"): a chunk carries 1 byte to 256 KiB, a transfer 1 to 2048 chunks (1 byte to 512 MiB), the host cuts the
// file at exactly 256 KiB (count = ceil(len / 256 KiB)); the player checks each chunk against the transfer it holds.
// adapters/saves/ (sender and receiver) call these; they are tested on their own.

/** Bytes of one chunk: 256 KiB. */
export const CHUNK_BYTES = 262_144;
/** Chunks of one transfer. */
export const MAX_CHUNKS = 2048;
/** The largest save: 512 MiB. */
export const MAX_SAVE_BYTES = CHUNK_BYTES * MAX_CHUNKS;
/** An unfinished transfer is forgotten this long after its first chunk: 10 minutes. */
export const TRANSFER_FORGET_MS = 600_000;

/** The chunk count of a file of `bytes`, or why it cannot be sent (nothing is sent then). */
export function chunkPlan(bytes: number): { ok: true; count: number } | { ok: false; reason: string } {
  if (!Number.isSafeInteger(bytes) || bytes < 1) return { ok: false, reason: `a save of ${bytes} bytes: at least 1 byte` };
  if (bytes > MAX_SAVE_BYTES) return { ok: false, reason: `a save of ${bytes} bytes: more than ${MAX_SAVE_BYTES} (512 MiB)` };
  return { ok: true, count: Math.ceil(bytes / CHUNK_BYTES) };
}

/** The exact size of chunk `index` of a file of `bytes` (chunk_len). */
export function chunkLength(bytes: number, index: number): number {
  return Math.min(CHUNK_BYTES, bytes - index * CHUNK_BYTES);
}

/** A chunk as the player's session hands it on (the decoded ResyncChunk). */
export interface IncomingChunk {
  id: number;
  index: number;
  count: number;
  sha256: string;
  data: Uint8Array;
}

/** The transfer a player holds: its id, count, sha256 and which indexes arrived. */
export interface HeldTransfer {
  id: number;
  count: number;
  sha256: string;
  /** One flag per index. */
  have: Uint8Array;
  received: number;
}

/** Why a chunk is refused (for the log and the dropped count); a duplicate is ignored, not refused. */
export type ChunkRefusal = 'sha256' | 'count' | 'index' | 'size' | 'another count' | 'another sha256';

export type ChunkVerdict =
  /** Take it; `fresh`: it starts a transfer (the first of this id; a held transfer of another id is forgotten). */
  | { verdict: 'accept'; fresh: boolean }
  | { verdict: 'duplicate' }
  | { verdict: 'refuse'; why: ChunkRefusal; detail: string };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The receiving side's checks, in the spec's order: sha256 is 64 hex digits; 1 ≤ count ≤ 2048; 0 ≤ index < count;
 * 1 ≤ data ≤ 256 KiB, and (this project's addition, since the host cuts at exactly 256 KiB) every chunk but the last
 * exactly 256 KiB; for a transfer in progress the same count and sha256; a duplicate index ignored. A chunk of
 * another id than the held transfer starts a new one (the held one is forgotten).
 */
export function checkChunk(held: HeldTransfer | undefined, chunk: IncomingChunk): ChunkVerdict {
  const { index, count, sha256, data } = chunk;
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256.toLowerCase())) {
    return { verdict: 'refuse', why: 'sha256', detail: 'sha256 is not 64 hex digits' };
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_CHUNKS) {
    return { verdict: 'refuse', why: 'count', detail: `count ${count} outside 1..${MAX_CHUNKS}` };
  }
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    return { verdict: 'refuse', why: 'index', detail: `index ${index} outside 0..${count - 1}` };
  }
  if (data.length < 1 || data.length > CHUNK_BYTES) {
    return { verdict: 'refuse', why: 'size', detail: `${data.length} bytes outside 1..${CHUNK_BYTES}` };
  }
  if (index < count - 1 && data.length !== CHUNK_BYTES) {
    return { verdict: 'refuse', why: 'size', detail: `chunk ${index} of ${count} has ${data.length} bytes, not ${CHUNK_BYTES}` };
  }
  if (held === undefined || held.id !== chunk.id) return { verdict: 'accept', fresh: true };
  if (held.count !== count) return { verdict: 'refuse', why: 'another count', detail: `count ${count}, the transfer has ${held.count}` };
  if (held.sha256 !== sha256.toLowerCase()) return { verdict: 'refuse', why: 'another sha256', detail: 'sha256 differs from the transfer' };
  if (held.have[index] === 1) return { verdict: 'duplicate' };
  return { verdict: 'accept', fresh: false };
}

/** A fresh held transfer for the first chunk of an id. */
export function holdTransfer(chunk: IncomingChunk): HeldTransfer {
  return { id: chunk.id, count: chunk.count, sha256: chunk.sha256.toLowerCase(), have: new Uint8Array(chunk.count), received: 0 };
}

/** Transfer rate and time left, for the launcher's status line and the terminal's bar. */
export function transferProgress(doneBytes: number, totalBytes: number, elapsedMs: number): { bytes: number; total: number; bytesPerSecond: number; secondsLeft: number | undefined } {
  const bytesPerSecond = elapsedMs > 0 ? (doneBytes * 1000) / elapsedMs : 0;
  const secondsLeft = bytesPerSecond > 0 ? (totalBytes - doneBytes) / bytesPerSecond : undefined;
  return { bytes: doneBytes, total: totalBytes, bytesPerSecond, secondsLeft };
}

/** A one-line progress bar for a terminal: `[#####.....] 52% 12.0/23.0 MiB 40.1 MiB/s 0:03 left`. */
export function progressBar(p: { bytes: number; total: number; bytesPerSecond: number; secondsLeft: number | undefined }, width = 24): string {
  const share = p.total > 0 ? Math.min(1, p.bytes / p.total) : 0;
  const filled = Math.round(share * width);
  const mib = (n: number) => (n / 1_048_576).toFixed(1);
  const left = p.secondsLeft === undefined ? '--:--' : `${Math.floor(p.secondsLeft / 60)}:${String(Math.floor(p.secondsLeft % 60)).padStart(2, '0')}`;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${mib(p.bytes)}/${mib(p.total)} MiB ${mib(p.bytesPerSecond)} MiB/s ${left} left`;
}
