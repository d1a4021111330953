// The SHA-256 and length of a save file, streamed (spec "Resync round", Transferring: the launcher reads the file and
// calls resync_file_ready(id, sha256, len)). Reads 256 KiB at a time with awaited reads, so the event loop runs
// between chunks and the file is never whole in memory.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { CHUNK_BYTES } from '../../machines/rules/resyncChunks.ts';

export interface FileDigest {
  /** Lower-case hex. */
  sha256: string;
  bytes: number;
}

/** Hashes the file at `path` in 256 KiB reads. */
export async function hashFile(path: string): Promise<FileDigest> {
  const file = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, bytes);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    await file.close();
  }
}
