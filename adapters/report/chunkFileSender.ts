// Sending a file of a bug report as chunks (ReportPart 41 from a launcher, ReportBundle 24 to the asker; the shape
// of ResyncChunk, machines/rules/resyncChunks.ts): 256 KiB a chunk in order from index 0, the last one shorter, each
// encoded with protocol/messages/chunkCodec.ts through the fast base64 port and handed to `write` (the session seals
// and sends it). Read one chunk at a time (never the whole file in memory); while the connection's queue is full
// (`hasRoom` false) it waits `pollMs` on the injected clock. `cancelled` stops it between chunks.
import { open } from 'node:fs/promises';
import type { Clock } from '../../actors/ports.ts';
import { chunkLength, chunkPlan, CHUNK_BYTES } from '../../machines/rules/resyncChunks.ts';
import type { Base64 } from '../../protocol/base64.ts';
import { encodeChunkPayload } from '../../protocol/messages/chunkCodec.ts';

export interface ChunkFileSendOptions {
  /** The transfer id (ReportAsk.id for a part, the bundle's transfer for a bundle). */
  id: number;
  path: string;
  bytes: number;
  sha256: string;
  base64: Base64;
  /** Hands one encoded chunk payload to the connection. */
  write: (payload: Uint8Array) => void;
  /** Whether the connection's queue takes another chunk now (default: always). */
  hasRoom?: () => boolean;
  /** True once the transfer should stop (the connection closed, the round ended). */
  cancelled?: () => boolean;
  clock: Clock;
  pollMs?: number;
}

export type ChunkFileSendResult = { ok: true; chunks: number } | { ok: false; why: string; chunks: number };

/** Sends the file; resolves once every chunk was handed to `write`, or with why not. */
export async function sendFileChunks(o: ChunkFileSendOptions): Promise<ChunkFileSendResult> {
  const plan = chunkPlan(o.bytes);
  if (!plan.ok) return { ok: false, why: plan.reason, chunks: 0 };
  const pause = () => new Promise<void>((resolve) => o.clock.setTimeout(resolve, o.pollMs ?? 50));
  const file = await open(o.path, 'r');
  try {
    for (let index = 0; index < plan.count; index++) {
      while (o.hasRoom && !o.hasRoom()) {
        if (o.cancelled?.()) return { ok: false, why: 'cancelled', chunks: index };
        await pause();
      }
      if (o.cancelled?.()) return { ok: false, why: 'cancelled', chunks: index };
      const length = chunkLength(o.bytes, index);
      const data = new Uint8Array(length);
      const { bytesRead } = await file.read(data, 0, length, index * CHUNK_BYTES);
      if (bytesRead !== length) return { ok: false, why: `the file changed: chunk ${index} short`, chunks: index };
      o.write(encodeChunkPayload({ id: o.id, index, count: plan.count, sha256: o.sha256, data }, o.base64));
    }
    return { ok: true, chunks: plan.count };
  } finally {
    await file.close();
  }
}
