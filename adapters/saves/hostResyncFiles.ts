// The host launcher's side of a resync round's save (actors/host/resync.ts `ResyncFiles`): the host's game saves
// into `savesDir` under the round's name; this reads it for resync_file_ready (SHA-256 and length, streamed:
// hashFile.ts) and streams it to the participants with SaveSender (each chunk sealed once with the session's one
// counter, the fast base64 port, a spool in `savesDir` for a lagging participant). A repair source's upload
// (ResyncUpload) is received into `savesDir` by a SaveReceiver (spec "Repair source") under the round's save name:
// the file the host's game loads by that name (`feverlink3-resync-<id>.sav` for an engine that adds `.sav` to a save's
// name, as the spec's game does; the simulated game adds nothing: docs/DECISIONS.md), the file `digest` announces.
import { join } from 'node:path';
import type { ConnectionHandle } from '../../actors/connectionActor.ts';
import type { ResyncFiles, ResyncTransfer } from '../../actors/host/resync.ts';
import type { Clock, LogFn } from '../../actors/ports.ts';
import type { Base64 } from '../../protocol/base64.ts';
import { nodeBase64 } from '../base64/nodeBase64.ts';
import { hashFile } from './hashFile.ts';
import { SaveReceiver } from './saveReceiver.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { SaveSender, transferPeerOf, type TransferPeer } from './saveSender.ts';

export interface HostResyncFilesOptions {
  /** The host's game's savegame folder (the simulated game: <session dir>/saves). */
  savesDir: string;
  /** Seals a ResyncChunk payload once (HostSession.sealChunk). */
  sealChunk: (payload: Uint8Array) => Uint8Array;
  clock: Clock;
  log: LogFn;
  base64?: Base64;
}

export function hostResyncFiles(o: HostResyncFilesOptions): ResyncFiles {
  // The repair source's upload arrives like a player's chunks (the same checks), under the round's save name.
  let uploaded: ((id: number) => void) | undefined;
  let receiver: SaveReceiver | undefined;
  return {
    receive: (chunk, received) => {
      uploaded = received;
      receiver ??= new SaveReceiver({ dir: o.savesDir, clock: o.clock, log: o.log, fileName: resyncSaveName, onReceived: (save) => uploaded?.(save.id) });
      receiver.accept(chunk);
    },
    digest: (name) => hashFile(join(o.savesDir, name)),
    send: ({ id, name, sha256, bytes, participants, onPeerDone }): ResyncTransfer => {
      const peers = new Map<number, TransferPeer>([...participants].map(([player, conn]) => [player, peerOf(conn)]));
      const sender = new SaveSender(
        { id, path: join(o.savesDir, name), sha256, bytes, sealChunk: o.sealChunk, base64: o.base64 ?? nodeBase64, clock: o.clock, log: o.log, spoolDir: o.savesDir, onPeerDone },
        peers,
      );
      const startedAt = o.clock.now();
      sender.start().then(
        (r) => o.log({ msg: `resync ${id}: save sent`, bytes, chunks: r.sealed, done: r.done, gone: r.gone, spooled: r.spooled, intact: r.intact, ms: o.clock.now() - startedAt }),
        (error: unknown) => o.log({ msg: `resync ${id}: sending the save failed`, level: 'error', error: String(error) }),
      );
      return { progress: () => sender.progress(), remove: (player) => sender.remove(player), cancel: () => sender.cancel() };
    },
  };
}

/** A connection handle as a transfer peer (its transport's queue, when the handle tells it). */
function peerOf(conn: ConnectionHandle): TransferPeer {
  return transferPeerOf(conn);
}
