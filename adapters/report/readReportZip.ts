// Reading a bug report's zip for the inspector (issue 14 item 4: `feverlink3 inspect report.zip`): its report.json
// (the games, which are in and which are missing and why) and one game's trace lines (game-<id>/trace.<n>.jsonl …
// trace.1.jsonl, then trace.jsonl: oldest first, as a session folder's). Streamed with fflate's Unzip, 64 KiB of the
// file at a time; only the entries asked for are inflated. The index is bounded (1 MiB) and the trace by the part's
// bound (8 MiB of content per game), so a hostile zip cannot make it hold more.
import { open } from 'node:fs/promises';
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate';
import { gameFolder, REPORT_INDEX_FORMAT, type ReportIndex } from '../../machines/rules/reportIndex.ts';
import { REPORT_PART_MAX_BYTES } from '../../machines/rules/reportRound.ts';

const PIECE = 64 * 1024;
const INDEX_MAX_BYTES = 1024 * 1024;

/** Inflates the entries `want` picks (name → the most bytes it may have) of the zip at `path`. */
async function readEntries(path: string, want: (name: string) => number | undefined): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array[]>();
  const sizes = new Map<string, number>();
  let failure: Error | undefined;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (entry: UnzipFile) => {
    const max = want(entry.name);
    if (max === undefined || found.has(entry.name)) return;
    const pieces: Uint8Array[] = [];
    found.set(entry.name, pieces);
    sizes.set(entry.name, 0);
    entry.ondata = (error, data) => {
      if (error) return void (failure ??= new Error(`${entry.name}: ${error.message}`));
      const size = sizes.get(entry.name)! + data.length;
      sizes.set(entry.name, size);
      if (size > max) {
        failure ??= new Error(`${entry.name}: over ${max} bytes`);
        return entry.terminate();
      }
      pieces.push(data);
    };
    entry.start();
  };
  const file = await open(path, 'r');
  try {
    const buffer = new Uint8Array(PIECE);
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(buffer, 0, PIECE, position);
      position += bytesRead;
      unzip.push(buffer.slice(0, bytesRead), bytesRead === 0);
      if (failure) throw failure;
      if (bytesRead === 0) break;
    }
  } finally {
    await file.close();
  }
  const out = new Map<string, Uint8Array>();
  for (const [name, pieces] of found) out.set(name, Buffer.concat(pieces));
  return out;
}

/** The zip's report.json; throws when it is missing or not a FeverLink3 report. */
export async function readReportIndex(path: string): Promise<ReportIndex> {
  const entries = await readEntries(path, (name) => (name === 'report.json' ? INDEX_MAX_BYTES : undefined));
  const bytes = entries.get('report.json');
  if (!bytes) throw new Error('no report.json in it: not a FeverLink3 bug report');
  const index = JSON.parse(new TextDecoder().decode(bytes)) as ReportIndex;
  if (index.format !== REPORT_INDEX_FORMAT || !Array.isArray(index.players)) throw new Error('report.json is not a FeverLink3 bug report index');
  return index;
}

/** One line per game of the index: `<id> <name>: <n> files` or `<id> <name>: missing (<why>)`. */
export function reportGamesText(index: ReportIndex): string[] {
  return index.players.map((p) =>
    p.folder === undefined ? `game ${p.id} ${p.name}: missing (${p.missing ?? 'no part'})` : `game ${p.id} ${p.name}: ${p.folder}/, ${p.files?.length ?? 0} files, ${p.bytes ?? 0} bytes`,
  );
}

/** The rotated number of a trace file name (trace.jsonl → 0, trace.3.jsonl → 3), undefined for other names. */
function traceNumber(name: string): number | undefined {
  const m = /^trace(?:\.(\d{1,6}))?\.jsonl$/.exec(name);
  return m ? Number(m[1] ?? 0) : undefined;
}

/** Game `game`'s trace lines from the zip, oldest file first; throws when the game has no trace in it. */
export async function readReportTrace(path: string, game: number): Promise<string[]> {
  const prefix = `${gameFolder(game)}/`;
  const entries = await readEntries(path, (name) =>
    name.startsWith(prefix) && traceNumber(name.slice(prefix.length)) !== undefined ? REPORT_PART_MAX_BYTES : undefined,
  );
  if (entries.size === 0) throw new Error(`no trace of game ${game} in it`);
  const names = [...entries.keys()].sort((a, b) => traceNumber(b.slice(prefix.length))! - traceNumber(a.slice(prefix.length))!);
  const lines: string[] = [];
  for (const name of names) {
    for (const line of new TextDecoder().decode(entries.get(name)!).split('\n')) if (line.length > 0) lines.push(line);
  }
  return lines;
}
