// report.json, the index of a bug report's zip (issue 14 item 2: session, versions, players, times, what is missing
// and why), pure. The host's bundle writer (adapters/report/bundleWriter.ts) fills it in and writes it last; the
// inspector reads it to list the games of a report. `folder` names the game's folder in the zip.

/** The index's format tag and version (a reader refuses another format). */
export const REPORT_INDEX_FORMAT = 'feverlink3-report';
export const REPORT_INDEX_VERSION = 1;

/** A game's folder in the zip: `game-<id>` (the host's own game is game-0). */
export function gameFolder(id: number): string {
  return `game-${id}`;
}

export interface ReportPlayer {
  id: number;
  name: string;
  /** The FeverLink3 version the player joined with (the host's own for game 0). */
  version?: string;
}

/** A game whose part is in the zip: the files of its folder and their bytes (uncompressed). */
export interface IncludedPart {
  id: number;
  files: string[];
  bytes: number;
}

export interface ReportIndexInput {
  report: number;
  /** The session's id as the Welcome names it. */
  session: string;
  askedBy: { id: number; name: string };
  note?: string;
  /** The host's FeverLink3 version and the protocol number. */
  hostVersion: string;
  protocol: number;
  players: readonly ReportPlayer[];
  /** Wall clock, ms since 1970: when the request came and when the zip was closed. */
  askedAt: number;
  builtAt: number;
  included: readonly IncludedPart[];
  missing: readonly { id: number; name: string; why: string }[];
}

export interface ReportIndex {
  format: typeof REPORT_INDEX_FORMAT;
  version: typeof REPORT_INDEX_VERSION;
  report: number;
  session: string;
  askedBy: { id: number; name: string };
  note?: string;
  versions: { host: string; protocol: number; players: Record<string, string> };
  times: { asked: string; built: string; seconds: number };
  players: { id: number; name: string; folder?: string; files?: string[]; bytes?: number; missing?: string }[];
  missing: { id: number; name: string; why: string }[];
}

/** The index: every asked player once, with its folder and files or why it is missing. */
export function reportIndex(input: ReportIndexInput): ReportIndex {
  const included = new Map(input.included.map((p) => [p.id, p]));
  const missing = new Map(input.missing.map((m) => [m.id, m]));
  const versions: Record<string, string> = {};
  for (const p of input.players) if (p.version !== undefined) versions[String(p.id)] = p.version;
  const players = input.players.map((p) => {
    const part = included.get(p.id);
    if (part) return { id: p.id, name: p.name, folder: gameFolder(p.id), files: part.files, bytes: part.bytes };
    return { id: p.id, name: p.name, missing: missing.get(p.id)?.why ?? 'not asked' };
  });
  return {
    format: REPORT_INDEX_FORMAT,
    version: REPORT_INDEX_VERSION,
    report: input.report,
    session: input.session,
    askedBy: input.askedBy,
    ...(input.note === undefined ? {} : { note: input.note }),
    versions: { host: input.hostVersion, protocol: input.protocol, players: versions },
    times: {
      asked: new Date(input.askedAt).toISOString(),
      built: new Date(input.builtAt).toISOString(),
      seconds: Math.max(0, Math.round((input.builtAt - input.askedAt) / 100) / 10),
    },
    players,
    missing: input.missing.map((m) => ({ id: m.id, name: m.name, why: m.why })),
  };
}
