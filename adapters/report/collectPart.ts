// A launcher's part of a bug report (issue 14 item 2; ReportAsk {maxBytes, salt}): the session folder's report files
// (partFiles.ts) pseudonymised (pseudonymise.ts) and zipped to one file of at most maxBytes, newest first when cut
// (machines/rules/reportBudget.ts). Streamed: each file's newest 2 × maxBytes at most are pseudonymised line by line
// into a staging folder (older text could not fit; pseudonyms change lengths, so the bound is measured after the
// rule), then the plan picks from the staged sizes and the picked ranges are streamed into the zip.
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { partPlan, type PartCandidate } from '../../machines/rules/reportBudget.ts';
import { partFiles, type PartFile } from './partFiles.ts';
import { makePseudonymiser } from './pseudonymise.ts';
import { textRange } from './textRange.ts';
import { ZipFileWriter, type ZipResult } from './zipFileWriter.ts';

export interface CollectPartOptions {
  /** The session folder (launcher.log, the game's logs, trace.jsonl). */
  sessionDir: string;
  /** Where the part's zip goes; the staging folder is made beside it and removed after. */
  outPath: string;
  maxBytes: number;
  salt: string;
  /** Names to hide as whole words (the OS user name, the host name). */
  names?: readonly string[];
}

export interface PartEntry {
  name: string;
  bytes: number;
  cut: boolean;
}

export interface CollectedPart extends ZipResult {
  entries: PartEntry[];
  /** Entries left out whole (older than what filled the bound). */
  left: string[];
}

/** Tries with a smaller bound if a zip came out over maxBytes (the plan's margins make that not happen). */
const ATTEMPTS = 3;

async function stage(file: PartFile, stagingDir: string, maxBytes: number, pseudonymise: (t: string) => string): Promise<PartCandidate & { path: string }> {
  const path = join(stagingDir, file.entry);
  const out = createWriteStream(path);
  const from = Math.max(0, file.bytes - 2 * maxBytes);
  try {
    for await (const piece of textRange(file.path, { from, transform: pseudonymise })) {
      if (!out.write(piece)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  const { size } = await stat(path);
  return { name: file.entry, bytes: size, modified: file.modified, path };
}

/** Collects, pseudonymises and zips this launcher's part to `outPath`. */
export async function collectPart(o: CollectPartOptions): Promise<CollectedPart> {
  const pseudonymise = makePseudonymiser({ salt: o.salt, ...(o.names ? { names: o.names } : {}) });
  const stagingDir = `${o.outPath}.staging`;
  await rm(stagingDir, { recursive: true, force: true });
  await mkdir(stagingDir, { recursive: true });
  try {
    const files = await partFiles(o.sessionDir, pseudonymise);
    const staged = [];
    for (const f of files) staged.push(await stage(f, stagingDir, o.maxBytes, pseudonymise));
    let bound = o.maxBytes;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const plan = partPlan(staged, bound);
      const zip = await ZipFileWriter.create(o.outPath);
      const entries: PartEntry[] = [];
      try {
        for (const pick of plan.picked) {
          const file = staged.find((s) => s.name === pick.name)!;
          const bytes = await zip.addEntry(pick.name, textRange(file.path, { from: file.bytes - pick.bytes }));
          entries.push({ name: pick.name, bytes, cut: pick.cut });
        }
      } catch (error) {
        await zip.abort();
        throw error;
      }
      const result = await zip.close();
      if (result.bytes <= o.maxBytes) return { ...result, entries, left: plan.left };
      bound -= result.bytes - o.maxBytes + 4096;
    }
    await rm(o.outPath, { force: true });
    throw new Error(`part over ${o.maxBytes} bytes after ${ATTEMPTS} attempts`);
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
}
