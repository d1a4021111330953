// Held strict builds as the host sees them (wire-protocol.txt BuildVeto 52, BuildCommit 53, "Who may send what",
// "Outsiders"; lockstep.md "Stalls and outsiders"; architecture.txt "Held builds in a paused game"): the host books
// every relayed Action whose body says it is a held strict build (`held: true`, veto-only validation) or a parked one
// (`commit: true`, made in a pause, applied only with its BuildCommit). The book makes the two things that decide a
// held build's fate deterministic, because the host is the one place that sees them in one order:
//  - a game's veto is relayed only while it can still reach every game before any applies the build: for a held
//    build, while the vetoer's own promise (its highest `safe`) has not passed the build's stamp (a game applies a
//    stamp only once every peer promised past it, and the veto is written before the Clock line that would); for a
//    parked build, while no BuildCommit of it was relayed. A later veto is not relayed: logged, and answered to the
//    vetoer alone with `late: true` (it holds the build at its stamp until an answer, then applies it as the others);
//  - the 10 s rule: a parked build whose BuildCommit has not come 10 s (host clock) after its record was relayed is
//    refused on every game with the host's BuildVeto, its originator included, and a BuildCommit after that is
//    refused the same way. No game drops a parked build on its own clock (two games' clocks would disagree about a
//    commit that arrives at 10 s: a fork).
// Pure functions; the chart (machines/lockstep.ts) calls them through rules/lockstepSteps.ts.
import type { ActionPayload } from './lockstepTypes.ts';

/** How long a parked build waits for its BuildCommit at the host (ms of the host's clock). */
export const PARKED_COMMIT_MS = 10_000;
/** The most held builds the host keeps in its book (one more drops the oldest, logged: its veto would be dropped). */
export const MAX_BOOKED = 4096;

/** One held build the host relayed. */
export interface BookedBuild {
  owner: number;
  seq: number;
  /** The stamp of its Action (for a parked build, what the record carried; its BuildCommit names the real one). */
  stamp: number;
  /** Parked (`commit: true`): applied only with its BuildCommit. */
  parked: boolean;
  /** The host's clock when its record was relayed. */
  since: number;
}

/** The held builds the host relayed, by `owner:seq`, in the order they were booked. */
export type BuildBook = Readonly<Record<string, BookedBuild>>;

export const buildKey = (owner: number, seq: number): string => `${owner}:${seq}`;

/** What a relayed Action makes of the book: `parked` for `body.commit === true`, `held` for `body.held === true`. */
export function heldKindOf(payload: ActionPayload): 'parked' | 'held' | undefined {
  const body = payload.body as Record<string, unknown> | null | undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  if (body['commit'] === true) return 'parked';
  if (body['held'] === true) return 'held';
  return undefined;
}

/** The book with one more build (the oldest dropped past MAX_BOOKED: returned as `evicted`). */
export function book(bookIn: BuildBook, build: BookedBuild): { book: BuildBook; evicted: BookedBuild | undefined } {
  const next: Record<string, BookedBuild> = { ...bookIn, [buildKey(build.owner, build.seq)]: build };
  const keys = Object.keys(next);
  if (keys.length <= MAX_BOOKED) return { book: next, evicted: undefined };
  const oldest = next[keys[0]!]!;
  delete next[keys[0]!];
  return { book: next, evicted: oldest };
}

/** The book without `owner:seq`. */
export function unbook(bookIn: BuildBook, owner: number, seq: number): BuildBook {
  const key = buildKey(owner, seq);
  if (bookIn[key] === undefined) return bookIn;
  const { [key]: _gone, ...rest } = bookIn;
  return rest;
}

/**
 * Why a game's veto of `owner:seq` is not relayed, if it is not: no held build of that number is booked (unknown,
 * already committed, vetoed or expired), or the vetoer had promised past a held build's stamp before it vetoed.
 */
export function vetoLateness(bookIn: BuildBook, owner: number, seq: number, vetoerSafe: number | undefined): string | undefined {
  const build = bookIn[buildKey(owner, seq)];
  if (build === undefined) return 'no held build of that number waits (unknown, committed, vetoed or expired)';
  if (!build.parked && vetoerSafe !== undefined && vetoerSafe > build.stamp) {
    return `the vetoing game had promised ${vetoerSafe}, past the build's stamp ${build.stamp}: some game may have applied it`;
  }
  return undefined;
}

/**
 * The book after time `now`: the parked builds waiting longer than PARKED_COMMIT_MS (`expired`, to refuse on every
 * game), and, dropped silently, the held builds every game has passed (`slowest` > stamp). A held build of an owner
 * that left stays until every game passed it: it waits in every game's queue, and a veto of it must still reach them.
 * (The parked builds of an owner that leaves are refused when it leaves: lockstepSteps/builds.ts `closeParkedOf`.)
 */
export function expire(bookIn: BuildBook, now: number, slowest: number): { book: BuildBook; expired: BookedBuild[] } {
  const next: Record<string, BookedBuild> = {};
  const expired: BookedBuild[] = [];
  let changed = false;
  for (const [key, build] of Object.entries(bookIn)) {
    if (build.parked && now - build.since >= PARKED_COMMIT_MS) {
      expired.push(build);
      changed = true;
    } else if (!build.parked && slowest > build.stamp) changed = true;
    else next[key] = build;
  }
  return { book: changed ? next : bookIn, expired };
}
