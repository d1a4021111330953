// The launcher's control files in the session folder: identity.txt and resync_cursor.txt (the session folder
// contract; spec: architecture.txt §2 "Where a session begins and where a reloaded mod resumes are positions").
// Both are small `key=value` / `<gen>:<offset>` texts, written by atomic replacement and read whole.
import { readTextFile, removeStaleTmpFiles, replaceFile, type ReplaceOptions } from './atomicFile.ts';
import { nodeLinkFs, type LinkFs } from './linkFs.ts';
import { formatPosition, parsePosition, type LinePosition } from './position.ts';
import { sessionPaths } from './sessionFolder.ts';

/** Who the game in this folder is, and where its session's lines begin in to_game.log. */
export interface Identity {
  /** Display name; control characters are written as spaces (one value per line). */
  name: string;
  /** Player id, 0 = the host. */
  id: number;
  role: 'host' | 'player';
  /** Position in to_game.log where this session's lines begin (`start=<gen>:<offset>`). */
  start: LinePosition;
}

export type ParsedIdentity = { ok: true; identity: Identity } | { ok: false; reason: string };

/** Largest player id (sender ids are u16 on the wire). */
export const MAX_PLAYER_ID = 65535;

/** identity.txt as text: `name=`, `id=`, `role=`, `start=` lines, each ending in `\n`. */
export function formatIdentity(identity: Identity): string {
  const name = identity.name.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `name=${name}\nid=${identity.id}\nrole=${identity.role}\nstart=${formatPosition(identity.start)}\n`;
}

/** `key=value` lines (value = everything after the first `=`; a trailing `\r` dropped); later keys win. */
export function parseKeyValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq).trim(), line.slice(eq + 1));
  }
  return values;
}

/** Parses identity.txt; unknown keys are ignored. Never throws. */
export function parseIdentity(text: string): ParsedIdentity {
  const values = parseKeyValues(text);
  const name = values.get('name');
  if (name === undefined) return { ok: false, reason: 'no name=' };
  const idText = values.get('id')?.trim() ?? '';
  if (!/^\d{1,5}$/.test(idText) || Number(idText) > MAX_PLAYER_ID) return { ok: false, reason: `bad id=${idText}` };
  const role = values.get('role')?.trim();
  if (role !== 'host' && role !== 'player') return { ok: false, reason: `bad role=${role ?? ''}` };
  const start = parsePosition(values.get('start') ?? '');
  if (!start.ok) return { ok: false, reason: `bad start=: ${start.reason}` };
  return { ok: true, identity: { name, id: Number(idText), role, start: start.position } };
}

/** Why `identity` cannot be written, or `undefined` when it can. */
export function identityProblem(identity: Identity): string | undefined {
  const { id, role, start } = identity;
  if (!Number.isSafeInteger(id) || id < 0 || id > MAX_PLAYER_ID) return `id ${id} is not 0..${MAX_PLAYER_ID}`;
  if (role !== 'host' && role !== 'player') return `role ${String(role)} is not host or player`;
  if (!Number.isSafeInteger(start.gen) || start.gen < 1) return `start generation ${start.gen} is not ≥ 1`;
  if (!Number.isSafeInteger(start.offset) || start.offset < 0) return `start offset ${start.offset} is not ≥ 0`;
  return undefined;
}

/** Writes identity.txt in `dir` by atomic replacement; rejects (TypeError) what {@link identityProblem} refuses. */
export async function writeIdentity(dir: string, identity: Identity, options?: ReplaceOptions): Promise<void> {
  const problem = identityProblem(identity);
  if (problem !== undefined) throw new TypeError(`identity: ${problem}`);
  await replaceFile(sessionPaths(dir).identity, formatIdentity(identity), options);
}

/** Reads identity.txt in `dir`: `undefined` when absent, else the parse result. */
export async function readIdentity(dir: string): Promise<ParsedIdentity | undefined> {
  const text = await readTextFile(sessionPaths(dir).identity);
  return text === undefined ? undefined : parseIdentity(text);
}

/**
 * The to_game.log generation last recorded in `dir` (identity.txt `start=`), or 0 when there is none. Only the
 * `start=` line is needed, so an identity with another field gone bad still yields its generation.
 */
export async function readRecordedGen(
  dir: string,
  fs: Pick<LinkFs, 'readText'> = nodeLinkFs(),
): Promise<{ gen: number; problem?: string }> {
  let text: string | undefined;
  try {
    text = await fs.readText(sessionPaths(dir).identity);
  } catch (error) {
    return { gen: 0, problem: `identity.txt unreadable: ${(error as Error).message}` };
  }
  if (text === undefined) return { gen: 0 };
  const start = parsePosition(parseKeyValues(text).get('start') ?? '');
  return start.ok ? { gen: start.position.gen } : { gen: 0, problem: `identity.txt: bad start=: ${start.reason}` };
}

/** Writes resync_cursor.txt (`<gen>:<offset>\n`) in `dir` by atomic replacement. */
export async function writeResyncCursor(dir: string, position: LinePosition, options?: ReplaceOptions): Promise<void> {
  const { gen, offset } = position;
  if (!Number.isSafeInteger(gen) || gen < 1 || !Number.isSafeInteger(offset) || offset < 0) {
    throw new TypeError(`resync cursor: bad position ${formatPosition(position)}`);
  }
  await replaceFile(sessionPaths(dir).resyncCursor, `${formatPosition(position)}\n`, options);
}

/** Reads resync_cursor.txt in `dir`: `undefined` when absent, else the position or why it does not parse. */
export async function readResyncCursor(dir: string): Promise<ReturnType<typeof parsePosition> | undefined> {
  const text = await readTextFile(sessionPaths(dir).resyncCursor);
  return text === undefined ? undefined : parsePosition(text);
}

/** Removes temporary files of identity.txt and resync_cursor.txt left by a launcher killed mid-replacement. */
export async function removeStaleControlTmpFiles(dir: string, options?: ReplaceOptions): Promise<number> {
  const paths = sessionPaths(dir);
  const identity = await removeStaleTmpFiles(paths.identity, options);
  return identity + (await removeStaleTmpFiles(paths.resyncCursor, options));
}
