// The player launcher as a repair source (spec "Repair source"; announced in Join.caps as resync-source-1): when the
// host sends its game a ResyncSave and the game answers SaveDone ok, the launcher uploads that save from the game's
// savegame folder as ResyncUpload frames: 256 KiB of data each (the shape of ResyncChunk), in order from index 0,
// with the file's SHA-256, read one chunk at a time (adapters/report/chunkFileSender.ts). Never resent after a resume.
//
// Paced by the connection's write queue, not by the clock: the next chunk goes out once fewer than `queueBudget`
// bytes wait to be handed to the kernel. The host gives the frames of an upload it asked for back to the rate
// limits (actors/host/resync.ts `uncount`), so the save travels as fast as the link takes it (docs/DECISIONS.md
// "ResyncUpload is exempt from the rate limits within its own cap"); before that, one chunk every 400 ms kept it
// under the host's 1 MiB per second.
import { join } from 'node:path';
import type { PlayerSession } from '../../actors/player/playerSession.ts';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { nodeBase64 } from '../base64/nodeBase64.ts';
import type { GameLink } from '../fileLink/gameLink.ts';
import { sendFileChunks } from '../report/chunkFileSender.ts';
import { hashFile } from '../saves/hashFile.ts';

export { RESYNC_SOURCE_CAPABILITY } from '../../actors/host/resync.ts';

export interface RepairSourceOptions {
  /** Bytes queued on the host's connection above which the next chunk waits (default 1 MiB: about three chunks). */
  queueBudget?: number;
  /** How often a full queue is looked at again, on the injected clock (default 5 ms). */
  pollMs?: number;
}

/** Watches the ResyncSave the host sends this game and the game's SaveDone; uploads the save. Returns the stop. */
export function serveAsRepairSource(
  player: PlayerSession,
  link: GameLink,
  savesDir: string,
  clock: Clock,
  log: LogFn,
  options: RepairSourceOptions = {},
): () => void {
  const asked = new Map<number, string>();
  let stopped = false;
  const off = player.on((n) => {
    if (n.type === 'game' && n.message.kind === 'ResyncSave') asked.set(n.message.payload.id, n.message.payload.name);
  });
  const lines = link.fromGame.subscribe((line) => {
    if (line.kind !== 'SaveDone') return;
    const { id, ok } = line.payload as { id?: unknown; ok?: unknown };
    const name = typeof id === 'number' ? asked.get(id) : undefined;
    if (name === undefined || typeof id !== 'number') return;
    asked.delete(id);
    if (ok !== true) return;
    upload(id, join(savesDir, name)).catch((error: unknown) =>
      log({ msg: `resync ${id}: the upload of the save failed`, level: 'error', error: String(error) }),
    );
  });

  const budget = options.queueBudget ?? 1_048_576;
  async function upload(id: number, path: string): Promise<void> {
    const { sha256, bytes } = await hashFile(path);
    let refused = false;
    const started = clock.now();
    const sent = await sendFileChunks({
      id,
      path,
      bytes,
      sha256,
      base64: nodeBase64,
      // False once the session cannot send (the connection ended): the upload stops (never resent after a resume).
      write: (payload) => {
        if (!player.sendEncodedChunk('ResyncUpload', payload)) refused = true;
      },
      hasRoom: () => player.queuedBytes < budget,
      cancelled: () => stopped || refused,
      clock,
      pollMs: options.pollMs ?? 5,
    });
    if (sent.ok && !refused) {
      log({ msg: `resync ${id}: save uploaded to the host`, bytes, chunks: sent.chunks, ms: clock.now() - started });
    } else {
      const why = refused ? 'the connection to the host ended' : sent.ok ? 'stopped' : sent.why;
      log({ msg: `resync ${id}: the save cannot be uploaded`, level: 'error', why, chunks: sent.chunks });
    }
  }

  return () => {
    stopped = true;
    off();
    lines.unsubscribe();
  };
}
