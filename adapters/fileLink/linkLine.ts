// One link line: `<Kind>\t<json>\n` (spec: architecture.txt §2, the file link; the session folder contract).
// Kind is the spec's message name, json the payload exactly as on the wire, on one line. A line carries no number:
// its place in the file is its order. Parsing never throws; an unknown kind is not an error at this level.

/** A parsed link line: the message name and its JSON payload. */
export type LinkLine = { kind: string; payload: unknown };

/** The result of {@link parseLinkLine}: the line, or why it does not parse. */
export type ParsedLine = { ok: true; line: LinkLine } | { ok: false; reason: string };

/** Longest kind accepted; the spec's names are short (PlayerJoined, ActionRefused, …). */
export const MAX_KIND_LENGTH = 64;

const KIND = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Whether `kind` can name a link line: a letter, then letters, digits or `_`, at most 64 characters. */
export function isLinkKind(kind: string): boolean {
  return kind.length <= MAX_KIND_LENGTH && KIND.test(kind);
}

/**
 * Formats one link line, newline included: `"<kind>\t<json>\n"`.
 *
 * @remarks `JSON.stringify` escapes every control character, so the JSON is always one line. `undefined` is written
 * as `null`. Throws a `TypeError` for a kind that is not a link kind or a payload JSON cannot carry (a BigInt, a
 * cycle): both are programming errors of the sender, never input from the other side.
 */
export function formatLinkLine(kind: string, payload: unknown): string {
  if (!isLinkKind(kind)) throw new TypeError(`not a link line kind: ${JSON.stringify(kind.slice(0, MAX_KIND_LENGTH))}`);
  let json: string | undefined;
  try {
    json = JSON.stringify(payload);
  } catch (error) {
    throw new TypeError(`payload of ${kind} is not JSON: ${(error as Error).message}`);
  }
  return `${kind}\t${json ?? 'null'}\n`;
}

/**
 * Parses one link line given without its `\n` (a trailing `\r` is tolerated: JSON allows the white space).
 * Never throws: a line with no tab, a kind that is not a name, or JSON that does not parse gives a reason.
 */
export function parseLinkLine(text: string): ParsedLine {
  const tab = text.indexOf('\t');
  if (tab < 0) return { ok: false, reason: 'no tab between kind and payload' };
  const kind = text.slice(0, tab);
  if (!isLinkKind(kind)) return { ok: false, reason: `bad kind ${JSON.stringify(kind.slice(0, 40))}` };
  try {
    return { ok: true, line: { kind, payload: JSON.parse(text.slice(tab + 1)) as unknown } };
  } catch (error) {
    return { ok: false, reason: `bad JSON: ${(error as Error).message}` };
  }
}
