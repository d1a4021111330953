// The "No overlap" wait log of the checksum-rounds chart (machines/checksumRounds.ts, rules/checksumWaits.ts) on a
// simulated clock: `checksum: <k> round(s) waited for the previous one in the last <s> s (longest wait <w> s)` at most
// once a minute, and every wait counted is written: a last batch held after a line is flushed at the first host tick
// a minute after that line, even when no round waits again.
import { describe, expect, it } from 'vitest';
import { startChart } from './checksumHarness.ts';

const same = { money: 'm', edges: 'e' };
const WAITED = /^checksum: (\d+) round\(s\) waited for the previous one in the last (\d+) s \(longest wait ([\d.]+) s\)$/;

/** Runs regular rounds whose last report comes `delays[k]` ms after round k+1 was asked; then 3 min of prompt ones. */
function rounds(delays: readonly number[]) {
  const h = startChart();
  h.start();
  h.run(5_000);
  for (const delay of [...delays, ...Array<number>(36).fill(300)]) {
    const n = h.context().regular!.n;
    h.run(delay);
    h.report(0, n, same);
    h.report(1, n, same);
    while (h.context().regular === undefined) h.run(100); // the next one is asked
  }
  const lines = h.timedLogs().filter((l) => WAITED.test(l.msg));
  return { h, lines, counts: lines.map((l) => Number(WAITED.exec(l.msg)![1])) };
}

describe('checksum rounds: the no-overlap wait log', () => {
  it('the last batch is written a minute after the line before it, though no round waits again', () => {
    // Round 1 reported after 7 s (waits, logged at once), round 2 after 10 s (waits, held), then prompt rounds only.
    const { lines } = rounds([7_000, 10_000]);
    expect(lines.map((l) => l.msg)).toEqual([
      'checksum: 1 round(s) waited for the previous one in the last 5 s (longest wait 5 s)',
      'checksum: 1 round(s) waited for the previous one in the last 60 s (longest wait 5.1 s)',
    ]);
    expect(lines[1]!.at - lines[0]!.at).toBe(60_000);
  });

  it('at most one line a minute, and every round that waited is counted in exactly one line', () => {
    // The last two wait within a minute of each other: the second (at least) is held after a line and needs the flush.
    const delays = [7_000, 12_000, 2_000, 6_000, 9_000, 1_000, 15_000, 8_000, 3_000, 11_000, 6_500, 4_000, 13_000, 7_500, 9_500, 7_000, 7_000];
    const { lines, counts } = rounds(delays);
    const waited = delays.filter((d) => d > 5_000).length;
    expect(counts.reduce((a, b) => a + b, 0)).toBe(waited);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.at - lines[i - 1]!.at).toBeGreaterThanOrEqual(60_000);
  });

  it('nothing to write: no line, however long', () => {
    const { lines } = rounds([1_000, 2_000, 4_000]);
    expect(lines).toEqual([]);
  });
});
