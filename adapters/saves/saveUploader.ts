// The repair source's upload (spec "Repair source", ResyncUpload 39; issue 11 item 7): the source player's launcher
// reads the save its game wrote for ResyncSave and sends it to the host as ResyncUpload frames of exactly 256 KiB of
// data (the shape of ResyncChunk), in order from index 0, with the file's SHA-256. Read 256 KiB at a time, never whole
// in memory. Paced to one chunk per `chunkEveryMs` (default 400 ms: about 0.85 MiB/s framed) on the injected clock,
// because the host's transport still counts these frames against its 1 MiB per second limit (the spec exempts them
// once their tag verifies; not built: see DECISIONS).
import { open } from 'node:fs/promises';
import type { Clock, LogFn } from '../../actors/ports.ts';
import type { ChunkPayload } from '../../protocol/messages/payloads/common.ts';
import { chunkLength, chunkPlan, CHUNK_BYTES } from '../../machines/rules/resyncChunks.ts';
import { hashFile } from './hashFile.ts';

export interface UploadOptions {
  id: number;
  path: string;
  /** Sends one ResyncUpload payload; false when it could not (the session ended): the upload stops. */
  send(payload: ChunkPayload): boolean;
  clock: Clock;
  log: LogFn;
  chunkEveryMs?: number;
}

/** Uploads the save; true once every chunk was handed to the session. */
export async function uploadSave(o: UploadOptions): Promise<boolean> {
  const { sha256, bytes } = await hashFile(o.path);
  const plan = chunkPlan(bytes);
  if (!plan.ok) {
    o.log({ msg: `resync ${o.id}: the save cannot be uploaded`, level: 'error', why: plan.reason });
    return false;
  }
  const file = await open(o.path, 'r');
  try {
    for (let index = 0; index < plan.count; index++) {
      if (index > 0) await new Promise<void>((resolve) => o.clock.setTimeout(() => resolve(), o.chunkEveryMs ?? 400));
      const data = Buffer.allocUnsafe(chunkLength(bytes, index));
      const { bytesRead } = await file.read(data, 0, data.length, index * CHUNK_BYTES);
      if (bytesRead !== data.length) throw new Error(`the save shrank: chunk ${index} read ${bytesRead} of ${data.length} bytes`);
      if (!o.send({ id: o.id, index, count: plan.count, sha256, data: new Uint8Array(data.buffer, data.byteOffset, data.length) })) return false;
    }
    o.log({ msg: `resync ${o.id}: save uploaded to the host`, bytes, chunks: plan.count });
    return true;
  } finally {
    await file.close();
  }
}
