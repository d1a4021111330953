// What of a launcher's files goes into its part of a bug report, pure (issue 14 item 2; lockstep.md "Bug reports":
// at most maxBytes, 8 MiB, per game, newest first when cut). The collector (adapters/report/collectPart.ts) lists the
// files with their size and modification time; this picks them newest first, whole while they fit, then the newest
// end of the first one that does not fit, and nothing older. The bound covers the zip itself: every entry's headers
// and deflate's worst-case growth are counted, so the zip of what is picked is never over maxBytes.

/** A file the part could hold: its name in the zip, its size and its modification time (ms). */
export interface PartCandidate {
  name: string;
  bytes: number;
  modified: number;
}

/** A file picked: its last `bytes` bytes (all of it unless `cut`). */
export interface PartPick {
  name: string;
  bytes: number;
  /** Only the file's end is kept (its older beginning did not fit). */
  cut: boolean;
  /** The file's whole size. */
  size: number;
}

export interface PartPlan {
  picked: PartPick[];
  /** Files left out whole: older than what filled the bound. */
  left: string[];
}

/** End of central directory record. */
const END_RECORD = 22;

const NAME_ENCODER = new TextEncoder();

/** A zip entry's fixed cost: local header (30) + data descriptor (16) + central header (46), the name twice. */
export function entryOverhead(name: string): number {
  return 30 + 16 + 46 + 2 * NAME_ENCODER.encode(name).length;
}

/** Deflate's worst-case growth of `bytes` (stored blocks: 5 bytes a block; counted per 16 KiB, plus a margin). */
export function deflateGrowth(bytes: number): number {
  return Math.ceil(bytes / 16_384) * 5 + 16;
}

/** The most content bytes that fit in `room` zip bytes as one entry named `name` (0 if none). */
export function contentRoom(name: string, room: number): number {
  let content = room - entryOverhead(name) - deflateGrowth(room);
  if (content < 0) content = 0;
  return content;
}

/** The zip size bound of `picks` (what partPlan keeps under maxBytes). */
export function zipBound(picks: readonly { name: string; bytes: number }[]): number {
  return END_RECORD + picks.reduce((sum, p) => sum + entryOverhead(p.name) + deflateGrowth(p.bytes) + p.bytes, 0);
}

/** The files newest first (ties: by name), whole while they fit in maxBytes, then the newest end of the next. */
export function partPlan(files: readonly PartCandidate[], maxBytes: number): PartPlan {
  const order = [...files].sort((a, b) => b.modified - a.modified || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const picked: PartPick[] = [];
  const left: string[] = [];
  let room = maxBytes - END_RECORD;
  let full = false;
  for (const f of order) {
    if (full) {
      left.push(f.name);
      continue;
    }
    const whole = entryOverhead(f.name) + deflateGrowth(f.bytes) + f.bytes;
    if (whole <= room) {
      picked.push({ name: f.name, bytes: f.bytes, cut: false, size: f.bytes });
      room -= whole;
      continue;
    }
    full = true;
    const bytes = Math.min(f.bytes, contentRoom(f.name, room));
    if (bytes > 0) {
      picked.push({ name: f.name, bytes, cut: true, size: f.bytes });
      room -= entryOverhead(f.name) + deflateGrowth(bytes) + bytes;
    } else left.push(f.name);
  }
  return { picked, left };
}
