// The simulated game's save as a real file, with settable padding (issue 11 item 8): the world's JSON text (save.ts)
// on the first line, then `paddingBytes` of deterministic filler, so a bench or a test can make a resync carry a save
// of hundreds of MiB while the world stays small. Loading reads only up to the first newline and ignores the rest.
// Written in 1 MiB blocks to a temp file, fsync'd and renamed into place; neither the padding nor the file is ever
// whole in memory. Synchronous, like the engine's save/load calls (the real game also stands still while it saves).
import { closeSync, fsyncSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { deserializeWorld, serializeWorld, type LoadResult } from './save.ts';
import type { World } from './types.ts';

/** The padding's environment switch for the simulated game (bytes; 0 or unset: none). */
export const SAVE_PADDING_ENV = 'FEVERLINK3_SIM_SAVE_PADDING';
/** The most padding a save may carry: a resync moves at most 512 MiB. */
export const MAX_PADDING_BYTES = 512 * 1_048_576;
/** The world line may be at most this long (a save of a world this simulator makes is far smaller). */
export const MAX_WORLD_LINE_BYTES = 64 * 1_048_576;

const BLOCK = 1_048_576;

/** The padding from the environment, or 0; a value that is not a whole number of bytes in range counts as 0. */
export function paddingFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[SAVE_PADDING_ENV] ?? 0);
  return Number.isSafeInteger(n) && n > 0 && n <= MAX_PADDING_BYTES ? n : 0;
}

/** One 1 MiB block of filler for block `index` of a world at `time` (the same world gives the same bytes). */
function fillerBlock(seed: number, index: number): Buffer {
  const block = Buffer.allocUnsafe(BLOCK);
  let x = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0 || 1;
  for (let i = 0; i < BLOCK; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block.writeUInt32LE(x >>> 0, i);
  }
  return block;
}

/** Writes the world and `paddingBytes` of filler to `path` (atomically: temp file, fsync, rename). Returns the size. */
export function writeSaveFile(path: string, world: World, paddingBytes = 0): number {
  if (!Number.isSafeInteger(paddingBytes) || paddingBytes < 0 || paddingBytes > MAX_PADDING_BYTES) {
    throw new RangeError(`padding ${paddingBytes} outside 0..${MAX_PADDING_BYTES} bytes`);
  }
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  let size = 0;
  try {
    size += writeSync(fd, `${serializeWorld(world)}\n`);
    const seed = (world.seed ^ world.time) >>> 0;
    // Blocks of filler, regenerated every 64 MiB only (generating costs more than writing).
    let block: Buffer | undefined;
    for (let at = 0; at < paddingBytes; at += BLOCK) {
      if (block === undefined || at % (64 * BLOCK) === 0) block = fillerBlock(seed, at / BLOCK);
      block.writeUInt32LE(at / BLOCK, 0); // no two blocks alike
      size += writeSync(fd, block, 0, Math.min(BLOCK, paddingBytes - at));
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return size;
}

/** Reads the world from the first line of the save at `path`, ignoring any padding after it. Never throws. */
export function readSaveFile(path: string): LoadResult {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  try {
    const parts: Buffer[] = [];
    let length = 0;
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, length);
      if (n === 0) break;
      const newline = buffer.subarray(0, n).indexOf(10);
      const end = newline === -1 ? n : newline;
      parts.push(Buffer.from(buffer.subarray(0, end)));
      length += end;
      if (length > MAX_WORLD_LINE_BYTES) return { ok: false, reason: `the world line is longer than ${MAX_WORLD_LINE_BYTES} bytes` };
      if (newline !== -1) break;
    }
    return deserializeWorld(Buffer.concat(parts).toString('utf8'));
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  } finally {
    closeSync(fd);
  }
}
