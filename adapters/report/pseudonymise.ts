// Pseudonymising a bug report's text with the request's salt (issue 14 item 2; ReportAsk.salt), pure: no I/O, the
// same input always gives the same output. The rule (also in docs, /tmp/report-docs.md):
//
//   1. Home folders. In every path to a person's home folder the user-name segment is replaced: `/home/<u>`,
//      `/Users/<u>`, `/var/home/<u>`, `C:\Users\<u>`, `C:\Documents and Settings\<u>` (any drive, any case of
//      `home`/`Users`), with `/`, `\` or a JSON-escaped `\\` as separators. The segment ends at the next separator,
//      quote, whitespace or one of `<>|:*?`; a segment with single spaces inside (`C:\Users\John Smith\…`) is taken
//      whole when a separator follows it.
//   2. Names. Each given name (the launcher gives the OS user name and the machine's host name) is replaced wherever it
//      stands as a whole word (not next to a letter, digit or `_`), ignoring case. Names shorter than 3 characters are
//      replaced only inside home paths (rule 1): a one-letter name would otherwise eat every such word of the log.
//   3. The pseudonym of a value v is `anon-` + the first 8 hex digits of HMAC-SHA256(key = salt, v in NFC, lower
//      case): the same value gives the same pseudonym in every game's part of one report (one salt), another report
//      gives another. A pseudonym already in the text is never replaced again, so the rule is idempotent.
//
// Player display names are not replaced (they are what the players chose to show each other, and a maintainer needs
// them to follow the logs), unless one equals a given name. Nothing else is touched.
import { createHmac } from 'node:crypto';

/** A pseudonym as rule 3 writes it. */
export const PSEUDONYM = /^anon-[0-9a-f]{8}$/;
const PSEUDONYM_ANYWHERE = /anon-[0-9a-f]{8}(?![0-9a-f])/g;

/** Names shorter than this are replaced only inside home paths. */
export const MIN_NAME_CHARS = 3;

export interface PseudonymRule {
  /** ReportAsk.salt. */
  salt: string;
  /** Names to hide as whole words: the OS user name, the host name. */
  names?: readonly string[];
}

/** The pseudonym of `value` under `salt` (rule 3). */
export function pseudonymFor(salt: string, value: string): string {
  return `anon-${createHmac('sha256', salt).update(value.normalize('NFC').toLowerCase()).digest('hex').slice(0, 8)}`;
}

const SEP = String.raw`(?:\\\\|\\|/)`;
const SEG_CHAR = String.raw`[^\\/"'\s<>|:*?\u0000-\u001f]`;
/** A home folder's prefix, then the user segment (with inner single spaces if a separator follows, else without). */
const HOME_PATH = new RegExp(
  String.raw`((?:(?<![A-Za-z0-9_])[A-Za-z]:)?${SEP}(?:home|Users|Documents and Settings)${SEP})(${SEG_CHAR}+(?: ${SEG_CHAR}+)*(?=${SEP})|${SEG_CHAR}+)`,
  'giu',
);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The whole-word pattern of the names (rule 2), or undefined when there is none to replace. */
function namesPattern(names: readonly string[]): RegExp | undefined {
  const usable = [...new Set(names.map((n) => n.trim().normalize('NFC')))]
    .filter((n) => [...n].length >= MIN_NAME_CHARS && !PSEUDONYM.test(n))
    .sort((a, b) => b.length - a.length);
  if (usable.length === 0) return undefined;
  return new RegExp(String.raw`(?<![\p{L}\p{N}_])(?:${usable.map(escapeRegExp).join('|')})(?![\p{L}\p{N}_])`, 'giu');
}

/** Applies `fn` to the text between the pseudonyms already in it, never to a pseudonym. */
function outsidePseudonyms(text: string, fn: (piece: string) => string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(PSEUDONYM_ANYWHERE)) {
    out += fn(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + fn(text.slice(last));
}

/** A pseudonymiser for one report and one machine: text → text with rule 1 and rule 2 applied. */
export function makePseudonymiser(rule: PseudonymRule): (text: string) => string {
  const names = namesPattern(rule.names ?? []);
  const cache = new Map<string, string>();
  const pseudonym = (value: string): string => {
    let p = cache.get(value);
    if (p === undefined) {
      p = pseudonymFor(rule.salt, value);
      if (cache.size < 4096) cache.set(value, p);
    }
    return p;
  };
  const homes = (piece: string) =>
    piece.replace(HOME_PATH, (_all, prefix: string, user: string) => prefix + (PSEUDONYM.test(user) ? user : pseudonym(user)));
  const words = (piece: string) => (names === undefined ? piece : piece.replace(names, (name) => pseudonym(name)));
  return (text: string) => outsidePseudonyms(outsidePseudonyms(text, homes), words);
}
