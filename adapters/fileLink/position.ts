// A reader's place in a line file: (generation, bytes consumed), written `<gen>:<offset>` (spec: architecture.txt §2;
// the session folder contract: identity.txt start=, resync_cursor.txt).

/** Where a reader stands in a line file: the file's generation and the bytes of it consumed (complete lines only). */
export interface LinePosition {
  gen: number;
  offset: number;
}

export type ParsedPosition = { ok: true; position: LinePosition } | { ok: false; reason: string };

/** `<gen>:<offset>`, the form identity.txt and resync_cursor.txt use. */
export function formatPosition(position: LinePosition): string {
  return `${position.gen}:${position.offset}`;
}

const POSITION = /^(\d{1,16}):(\d{1,16})$/;

/**
 * Parses `<gen>:<offset>` (surrounding white space allowed): gen ≥ 1, offset ≥ 0, decimal safe integers.
 * Never throws.
 */
export function parsePosition(text: string): ParsedPosition {
  const match = POSITION.exec(text.trim());
  if (!match) return { ok: false, reason: `not <gen>:<offset>: ${JSON.stringify(text.slice(0, 40))}` };
  const gen = Number(match[1]);
  const offset = Number(match[2]);
  if (!Number.isSafeInteger(gen) || !Number.isSafeInteger(offset)) return { ok: false, reason: 'number past 2^53' };
  if (gen < 1) return { ok: false, reason: 'generation 0 (generations start at 1)' };
  return { ok: true, position: { gen, offset } };
}
