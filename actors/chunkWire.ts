// The chunk kinds' way in (ResyncChunk, ResyncUpload, ReportBundle, ReportPart: up to 256 KiB of base64 each): opened
// like any sealed frame, decoded through the session's Base64 port (protocol/messages/chunkCodec.ts; Node's Buffer in
// the launchers) instead of the pure default, which decodes about 10 MiB/s here — a 256 MiB save would cost a player
// 26 s of CPU. Same schema, same bounds, same reasons as actors/wire.ts's openMessage.
import type { Base64 } from '../protocol/base64.ts';
import type { Frame } from '../protocol/frame.ts';
import { CHUNK_KINDS, decodeChunkPayload, kindName, type ChunkKind } from '../protocol/messages/index.ts';
import type { Opener } from '../protocol/seal.ts';
import { openMessage, type Message, type Opened } from './wire.ts';

const CHUNKS: ReadonlySet<string> = new Set(CHUNK_KINDS);

/** Opens a sealed frame; a chunk kind's payload is decoded through `base64` when given. */
export function openWith(opener: Opener, frame: Frame, base64: Base64 | undefined): Opened {
  const name = kindName(frame.header.kind);
  if (base64 === undefined || name === undefined || !CHUNKS.has(name)) return openMessage(opener, frame);
  const opened = opener.open(frame);
  if (!opened.ok) return { ok: false, why: opened.reason, kind: frame.header.kind, detail: opened.reason };
  const decoded = decodeChunkPayload(name as ChunkKind, opened.payload, base64);
  if (!decoded.ok) return { ok: false, why: 'not-decoded', kind: frame.header.kind, detail: decoded.reason };
  return { ok: true, message: { kind: name, payload: decoded.value } as Message };
}
