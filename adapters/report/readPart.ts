// Reading a game's part of a bug report back on the host (a zip its launcher made, adapters/report/collectPart.ts),
// streamed with fflate's Unzip: 16 KiB of the file pushed at a time, each entry inflated as it comes. A part is
// refused as a whole when it is not a zip fflate can read, when an entry's name is not a plain safe file name
// (partFiles.ts ENTRY_NAME: no folder, no `..`, no leading dot) or comes twice, or when its content is over the part's
// bound (maxBytes, counted while inflating, so a zip bomb stops at the bound). `visit` receives the content when the
// caller copies it (the bundle writer); without it the part is only checked.
import { open } from 'node:fs/promises';
import { Unzip, UnzipInflate } from 'fflate';
import { ENTRY_NAME } from './partFiles.ts';

const PIECE = 16 * 1024;

export interface PartVisitor {
  start(name: string): void;
  data(data: Uint8Array, final: boolean): void;
  /** Awaited between pieces (the writer's drain). */
  between?(): Promise<void>;
}

export type PartReading = { ok: true; files: { name: string; bytes: number }[]; bytes: number } | { ok: false; why: string };

/** Reads the part zip at `path`, checking it against `maxBytes`; each entry's content to `visit` if given. */
export async function readPart(path: string, maxBytes: number, visit?: PartVisitor): Promise<PartReading> {
  const files: { name: string; bytes: number }[] = [];
  let total = 0;
  let why: string | undefined;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (entry) => {
    if (why !== undefined) return;
    if (!ENTRY_NAME.test(entry.name)) {
      why = `entry name not allowed: ${JSON.stringify(entry.name.slice(0, 80))}`;
      return;
    }
    if (files.some((f) => f.name === entry.name)) {
      why = `entry twice: ${entry.name}`;
      return;
    }
    const record = { name: entry.name, bytes: 0 };
    files.push(record);
    visit?.start(entry.name);
    entry.ondata = (error, data, final) => {
      if (why !== undefined) return;
      if (error) {
        why = `entry ${entry.name}: ${error.message}`;
        return;
      }
      record.bytes += data.length;
      total += data.length;
      if (total > maxBytes) {
        why = `content over its bound of ${maxBytes} bytes`;
        entry.terminate();
        return;
      }
      visit?.data(data, final);
    };
    try {
      entry.start();
    } catch (error) {
      why = `entry ${entry.name}: ${(error as Error).message}`;
    }
  };
  const file = await open(path, 'r');
  try {
    const buffer = new Uint8Array(PIECE);
    let position = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, PIECE, position);
      position += bytesRead;
      try {
        unzip.push(buffer.slice(0, bytesRead), bytesRead === 0);
      } catch (error) {
        why ??= `not a zip: ${(error as Error).message}`;
      }
      if (why !== undefined) return { ok: false, why };
      if (bytesRead === 0) break;
      await visit?.between?.();
    }
  } finally {
    await file.close();
  }
  if (files.length === 0) return { ok: false, why: 'no entry' };
  return { ok: true, files, bytes: total };
}
