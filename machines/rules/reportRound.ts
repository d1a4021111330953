// The host's bug-report round, pure (spec wire-protocol.txt ReportAsk 23 … ReportPart 41, "Bug reports";
// lockstep.md "Bug reports"): which games a round waits for, which parts arrived, which are missing and why. The
// chart machines/report.ts calls these from one-line actions; they are tested on their own.
//
// Each asked game gets its own transfer id (ReportAsk.id), so a ReportPart names the game it belongs to and a part
// sent by another player than the one asked is refused. A game is either received, missing (with why) or awaited.

/** ReportAsk.maxBytes: the most bytes one game's part may have (lockstep.md: 8 MiB per game). */
export const REPORT_PART_MAX_BYTES = 8 * 1024 * 1024;
/** Parts not in this long after the ask are listed as missing (lockstep.md: 60 s). */
export const REPORT_PARTS_TIMEOUT_MS = 60_000;
/** The host's zip must be closed this long after the last part (local I/O only; never waited for forever). */
export const REPORT_BUILD_TIMEOUT_MS = 120_000;
/** The bundle must be handed to the asker's connection within this (the save transfer's 10 minutes). */
export const REPORT_SEND_TIMEOUT_MS = 600_000;

/** Why a game's part is not in the report, as report.json and the log word it. */
export const MISSING_WHY = {
  timeout: 'no part after 60 s',
  left: (reason: string) => `left during the report (${reason})`,
  refused: (why: string) => `part refused: ${why}`,
} as const;

/** A game of the session, as the round names it. */
export interface ReportGame {
  id: number;
  name: string;
}

export interface MissingPart extends ReportGame {
  why: string;
}

/** One round's book: the games asked, each with its transfer id, and what became of their parts. */
export interface RoundBook {
  asked: (ReportGame & { transfer: number })[];
  received: number[];
  missing: MissingPart[];
}

/** A fresh book: each game gets the next transfer id from `firstTransfer` on (in the order given). */
export function openRound(games: readonly ReportGame[], firstTransfer: number): RoundBook {
  const seen = new Set<number>();
  const asked: RoundBook['asked'] = [];
  for (const g of games) {
    if (seen.has(g.id)) continue;
    seen.add(g.id);
    asked.push({ id: g.id, name: g.name, transfer: firstTransfer + asked.length });
  }
  return { asked, received: [], missing: [] };
}

/** The games whose part is still awaited. */
export function awaited(book: RoundBook): ReportGame[] {
  const done = new Set([...book.received, ...book.missing.map((m) => m.id)]);
  return book.asked.filter((g) => !done.has(g.id)).map(({ id, name }) => ({ id, name }));
}

/** Whether `game`'s part is still awaited. */
export function isAwaited(book: RoundBook, game: number): boolean {
  return awaited(book).some((g) => g.id === game);
}

/** The part of `game` arrived whole (ignored unless it was awaited). */
export function partArrived(book: RoundBook, game: number): RoundBook {
  return isAwaited(book, game) ? { ...book, received: [...book.received, game] } : book;
}

/** `game` will send no part, for `why` (ignored unless it was awaited). */
export function partMissing(book: RoundBook, game: number, why: string): RoundBook {
  const g = book.asked.find((a) => a.id === game);
  if (g === undefined || !isAwaited(book, game)) return book;
  return { ...book, missing: [...book.missing, { id: g.id, name: g.name, why }] };
}

/** Every part still awaited is missing, for `why` (the 60 s ran out). */
export function restMissing(book: RoundBook, why: string): RoundBook {
  return awaited(book).reduce((b, g) => partMissing(b, g.id, why), book);
}

/** The names of games, for a log line: `Ada, Bob`. */
export function namesOf(games: readonly ReportGame[]): string {
  return games.map((g) => g.name).join(', ');
}
