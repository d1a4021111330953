// Actions in flight (docs/SECURITY.md "What the host holds"; docs/ENGINE.md §7): every game holds the Actions
// relayed to it until their stamps, and the mod bounds that queue (1024 items of one origin, 8192 in all). A
// game that refused an item for room would apply less than another game: a fork. So the host, which sees every
// relayed Action in one order, keeps the queues well inside the mod's bounds and refuses the excess on EVERY
// game with its BuildVeto, which is deterministic. It counts, per origin, the stamps it relayed that lie past the
// slowest game's reported time: the host's view of a game's time lags behind the game, so its count is never
// below what any game holds. Half the mod's bounds leave room for the origin's own actions still in transit.

/** Actions of one origin the host lets be in flight at once (the mod holds 1024). */
export const MAX_IN_FLIGHT_PER_ORIGIN = 512;
/** Actions of all origins in flight at once (the mod holds 8192). */
export const MAX_IN_FLIGHT = 4096;

/** Per origin, the stamps of the Actions relayed that no game is known to have passed (ascending). */
export type InFlight = Readonly<Record<number, readonly number[]>>;

/** The stamps still in flight once every game is known to stand at or past `slowest`. */
function pruned(stamps: readonly number[], slowest: number): readonly number[] {
  let i = 0;
  while (i < stamps.length && stamps[i]! <= slowest) i++;
  return i === 0 ? stamps : stamps.slice(i);
}

/**
 * What `settle` needs to know of a record without walking it: how many stamps it holds and its earliest first stamp.
 * Kept beside each record `record` makes (a WeakMap: the record stays plain data in the chart's context); a record
 * made elsewhere (a test, an older snapshot) is walked once and then known.
 */
interface Summary {
  total: number;
  earliest: number;
}

const summaries = new WeakMap<InFlight, Summary>();

function summaryOf(inFlight: InFlight): Summary {
  let summary = summaries.get(inFlight);
  if (summary === undefined) {
    let total = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const origin in inFlight) {
      const stamps = inFlight[origin as unknown as number]!;
      total += stamps.length;
      // A record never holds an empty list (record adds to one, settle drops emptied ones), so the first stamp tells.
      if (stamps[0]! < earliest) earliest = stamps[0]!;
    }
    summary = { total, earliest };
    summaries.set(inFlight, summary);
  }
  return summary;
}

/**
 * Drops what every game has passed; returns the pruned record and the total still in flight. The same record when
 * nothing is passed, as between two Clocks (the relay's hot path: no walk and no new objects per Action then).
 */
export function settle(inFlight: InFlight, slowest: number): { inFlight: InFlight; total: number } {
  const { total, earliest } = summaryOf(inFlight);
  if (earliest > slowest) return { inFlight, total };
  const next: Record<number, readonly number[]> = {};
  let left = 0;
  let first = Number.POSITIVE_INFINITY;
  for (const [origin, stamps] of Object.entries(inFlight)) {
    const kept = pruned(stamps, slowest);
    if (kept.length === 0) continue;
    next[Number(origin)] = kept;
    left += kept.length;
    if (kept[0]! < first) first = kept[0]!;
  }
  // Its summary is known here: the next settle need not walk it again.
  summaries.set(next, { total: left, earliest: first });
  return { inFlight: next, total: left };
}

/** Why one more Action of `from` cannot go out now, if it cannot. */
export function inFlightRefusal(inFlight: InFlight, total: number, from: number): string | undefined {
  if ((inFlight[from]?.length ?? 0) >= MAX_IN_FLIGHT_PER_ORIGIN) {
    return `${MAX_IN_FLIGHT_PER_ORIGIN} actions of this game are still waiting for their stamps`;
  }
  if (total >= MAX_IN_FLIGHT) return `${MAX_IN_FLIGHT} actions are still waiting for their stamps`;
  return undefined;
}

/** Records a relayed Action of `from` stamped `stamp` (kept in ascending order). */
export function record(inFlight: InFlight, from: number, stamp: number): InFlight {
  // slice, not a spread: a plain copy of the numbers, without the iteration protocol.
  const stamps = inFlight[from]?.slice() ?? [];
  let i = stamps.length;
  while (i > 0 && stamps[i - 1]! > stamp) i--;
  stamps.splice(i, 0, stamp);
  const next = { ...inFlight, [from]: stamps };
  // Its summary follows from the old one's: one stamp more, the earliest perhaps this one.
  const before = summaries.get(inFlight);
  if (before !== undefined) summaries.set(next, { total: before.total + 1, earliest: Math.min(before.earliest, stamps[0]!) });
  return next;
}
