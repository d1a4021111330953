// The player launcher as a repair source (spec "Repair source"; announced in Join.caps as resync-source-1): when the
// host sends its game a ResyncSave and the game answers SaveDone ok, the launcher uploads that save from the game's
// savegame folder as ResyncUpload frames (adapters/saves/saveUploader.ts). Never resent after a resume.
import { join } from 'node:path';
import type { PlayerSession } from '../../actors/player/playerSession.ts';
import type { Clock, LogFn } from '../../actors/ports.ts';
import type { GameLink } from '../fileLink/gameLink.ts';
import { uploadSave } from '../saves/saveUploader.ts';

export { RESYNC_SOURCE_CAPABILITY } from '../../actors/host/resync.ts';

/** Watches the ResyncSave the host sends this game and the game's SaveDone; uploads the save. Returns the stop. */
export function serveAsRepairSource(player: PlayerSession, link: GameLink, savesDir: string, clock: Clock, log: LogFn): () => void {
  const asked = new Map<number, string>();
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
    uploadSave({ id, path: join(savesDir, name), send: (payload) => player.send('ResyncUpload', payload), clock, log }).catch((error: unknown) =>
      log({ msg: `resync ${id}: the upload of the save failed`, level: 'error', error: String(error) }),
    );
  });
  return () => {
    off();
    lines.unsubscribe();
  };
}
