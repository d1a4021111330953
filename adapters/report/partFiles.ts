// Which files of a session folder go into a launcher's part of a bug report (issue 14 item 2): its launcher.log
// (and rotated launcher.<n>.log), its trace files (trace.jsonl and the rotated trace.<n>.jsonl,
// adapters/trace/readTrace.ts), and its game's logs in the folder (docs/FILE_LINK.md: mod.log, from_game.log,
// to_game.log, identity.txt, status.json, resync_cursor.txt, and any other *.log, *.txt, *.json, *.jsonl the game
// writes there, such as the detail dumps). Never a save, a temp file (a leading dot) or a report's own zip. Each file
// gets its name in the zip: pseudonymised (a dump's name can hold a name) and cut to a plain, safe file name.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export type PartFileKind = 'launcher' | 'trace' | 'game';

export interface PartFile {
  kind: PartFileKind;
  path: string;
  /** Its name in the part's zip. */
  entry: string;
  bytes: number;
  /** Modification time, ms. */
  modified: number;
}

/** A name a part's zip may hold: a plain file name, 1..128 of [A-Za-z0-9._-], not starting with a dot. */
export const ENTRY_NAME = /^(?!\.)[A-Za-z0-9._-]{1,128}$/;

/** The kind of a session folder's file, or undefined when it is not part of a report. */
export function partFileKind(name: string): PartFileKind | undefined {
  if (name.startsWith('.') || /^feverlink3-report/i.test(name)) return undefined;
  if (/^launcher(\.\d+)?\.log$/.test(name)) return 'launcher';
  if (/^trace(\.\d+)?\.jsonl$/.test(name)) return 'trace';
  if (/\.(log|txt|json|jsonl)$/i.test(name)) return 'game';
  return undefined;
}

/** `name` as a safe entry name: pseudonymised, other characters as `_`, at most 128, unique among `taken`. */
export function entryName(name: string, pseudonymise: (text: string) => string, taken: Set<string>): string {
  let base = pseudonymise(name).replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  if (base.length > 120) base = base.slice(base.length - 120);
  let entry = base;
  for (let n = 2; taken.has(entry); n++) entry = `${n}-${base}`;
  taken.add(entry);
  return entry;
}

/** The report's files of session folder `dir`, with their zip names. */
export async function partFiles(dir: string, pseudonymise: (text: string) => string): Promise<PartFile[]> {
  const taken = new Set<string>();
  const out: PartFile[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const kind = partFileKind(name);
    if (kind === undefined) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined || !info.isFile()) continue;
    out.push({ kind, path, entry: entryName(name, pseudonymise, taken), bytes: info.size, modified: info.mtimeMs });
  }
  return out;
}
