// The "No overlap" wait log of the checksum-rounds chart (spec "No overlap"): a regular round asked after the 5 s
// timer fired while the previous one was still open counts as waited; the host logs at most once a minute
// `checksum: <k> round(s) waited for the previous one in the last <s> s (longest wait <w> s)`. The first wait is
// logged when it is counted; waits counted less than a minute after a line are held and flushed at the first host
// tick a minute after that line, so the last batch is written too (docs/DECISIONS.md "No-overlap waits are flushed").
// Pure: time is the `now` passed in.

/** The no-overlap log line is written at most this often (ms). */
export const WAIT_LOG_EVERY_MS = 60_000;

export interface RoundWaits {
  /** Waits counted since the last line, the longest of them (ms), and the start of the first (ms). */
  count: number;
  longestMs: number;
  from: number | undefined;
  /** When the last line was written. */
  loggedAt: number | undefined;
  /** The 5 s timer fired while the regular round was open: the next round waits since then. */
  overdueSince: number | undefined;
}

export function createWaits(): RoundWaits {
  return { count: 0, longestMs: 0, from: undefined, loggedAt: undefined, overdueSince: undefined };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

function line(waits: RoundWaits, now: number): string {
  const s = Math.round((now - (waits.loggedAt ?? waits.from!)) / 1000);
  return `checksum: ${waits.count} round(s) waited for the previous one in the last ${s} s (longest wait ${seconds(waits.longestMs)} s)`;
}

/** A line may be written now: none yet, or the last one a minute ago or more. */
const lineDue = (waits: RoundWaits, now: number): boolean => waits.loggedAt === undefined || now - waits.loggedAt >= WAIT_LOG_EVERY_MS;

const logged = (now: number): RoundWaits => ({ count: 0, longestMs: 0, from: undefined, loggedAt: now, overdueSince: undefined });

/** A regular round is asked at `now`: counted as waited if the timer fired while its predecessor was open. */
export function noteAsked(waits: RoundWaits, now: number): { waits: RoundWaits; line?: string } {
  if (waits.overdueSince === undefined) return { waits };
  const next: RoundWaits = {
    count: waits.count + 1,
    longestMs: Math.max(waits.longestMs, now - waits.overdueSince),
    from: waits.from ?? waits.overdueSince,
    loggedAt: waits.loggedAt,
    overdueSince: undefined,
  };
  if (!lineDue(next, now)) return { waits: next };
  return { waits: logged(now), line: line(next, now) };
}

/** At a host tick: waits held since the last line are written once a minute has passed since it. */
export function flushWaits(waits: RoundWaits, now: number): { waits: RoundWaits; line?: string } {
  if (waits.count === 0 || !lineDue(waits, now)) return { waits };
  return { waits: { ...logged(now), overdueSince: waits.overdueSince }, line: line(waits, now) };
}
