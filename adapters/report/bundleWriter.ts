// The host's ONE zip of a bug report (issue 14 item 2; lockstep.md "Bug reports"): a folder per game
// (machines/rules/reportIndex.ts gameFolder: game-<id>/) holding that game's part unpacked, and report.json written
// last (session, versions, players, times, what is missing and why). Opened when the round starts and written to its
// file as each part arrives (zipFileWriter.ts: fflate's streaming Zip); a part is first read through once to check it
// (readPart.ts: names, bound, a readable zip), so a bad part adds nothing, then copied entry by entry. Memory stays
// within one part's pieces and the writer's 1 MiB of pending output. Parts are added one at a time, in arrival order.
import { gameFolder, reportIndex, type IncludedPart, type ReportIndex, type ReportIndexInput } from '../../machines/rules/reportIndex.ts';
import { readPart } from './readPart.ts';
import { ZipFileWriter, type ZipResult } from './zipFileWriter.ts';

export const REPORT_INDEX_NAME = 'report.json';

export type AddPartResult = { ok: true; files: string[]; bytes: number } | { ok: false; why: string };

export class BundleWriter {
  readonly #zip: ZipFileWriter;
  readonly #included: IncludedPart[] = [];
  /** Parts are added one after the other. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(zip: ZipFileWriter) {
    this.#zip = zip;
  }

  /** Starts the zip at `path`. */
  static async create(path: string): Promise<BundleWriter> {
    return new BundleWriter(await ZipFileWriter.create(path));
  }

  get path(): string {
    return this.#zip.path;
  }

  /** The games whose part is in. */
  get included(): readonly IncludedPart[] {
    return this.#included;
  }

  /** Checks the part zip of game `game` and copies it into the game's folder; refused whole if it is bad. */
  addPart(game: number, partPath: string, maxBytes: number): Promise<AddPartResult> {
    const run = this.#queue.then(() => this.#addPart(game, partPath, maxBytes));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Writes report.json (the included parts filled in) and closes the zip. */
  async finish(index: Omit<ReportIndexInput, 'included'>): Promise<ZipResult & { index: ReportIndex }> {
    await this.#queue;
    const json = reportIndex({ ...index, included: this.#included });
    await this.#zip.addEntry(REPORT_INDEX_NAME, [new TextEncoder().encode(`${JSON.stringify(json, null, 2)}\n`)]);
    return { ...(await this.#zip.close()), index: json };
  }

  /** Drops the zip (the round was abandoned). */
  async abort(): Promise<void> {
    await this.#queue;
    await this.#zip.abort();
  }

  async #addPart(game: number, partPath: string, maxBytes: number): Promise<AddPartResult> {
    if (this.#included.some((p) => p.id === game)) return { ok: false, why: 'part already in' };
    const checked = await readPart(partPath, maxBytes);
    if (!checked.ok) return checked;
    const folder = gameFolder(game);
    let entry: { push(data: Uint8Array, final: boolean): void } | undefined;
    const copied = await readPart(partPath, maxBytes, {
      start: (name) => (entry = this.#zip.openEntry(`${folder}/${name}`)),
      data: (data, final) => entry!.push(data, final),
      between: () => this.#zip.drain(),
    });
    // The file changed between the two readings: the zip may hold part of it, which report.json then lists.
    if (!copied.ok) return copied;
    const part = { id: game, files: copied.files.map((f) => f.name), bytes: copied.bytes };
    this.#included.push(part);
    return { ok: true, files: part.files, bytes: part.bytes };
  }
}
