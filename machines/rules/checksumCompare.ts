// Comparing one checksum round's reports (spec "Light rounds", "Spread full rounds", "The free-id queue part freeq",
// ChecksumReport 33). A report whose time is not the round's `at` (a chunk read after its step) skips the round as
// time_skew: different worlds are never compared. A light round drops the heavy lanes of every report. A part some
// game lists as notReady is left out. freeq is compared at the newest n every report names, and left out when a
// game has no freeq, another epoch or no common n. Any other part present in one report and absent in another
// differs. Authority values (money, loan) that differ are named for the host's Authority. Pure.
import { isHeavyPart } from './checksumPolicy.ts';

/** checksum::FREEQ_PART. */
export const FREEQ_PART = 'freeq';

export interface RoundReport {
  game: number;
  time: number;
  parts: Readonly<Record<string, string | number>>;
  notReady?: readonly string[];
  authority?: Readonly<Record<string, number>>;
}

export interface PartDifference {
  part: string;
  /** The games grouped by the value they reported (`undefined`: the part is missing from their report). */
  groups: { value: string | number | undefined; games: number[] }[];
}

export type RoundComparison =
  | { kind: 'time_skew'; times: { game: number; time: number }[] }
  | {
      kind: 'compared';
      differences: PartDifference[];
      /** Parts some game left out as notReady. */
      leftOut: string[];
      /** Authority names whose values differ between the games. */
      authorityDiffers: string[];
      /** Why freeq was left out, if it was. */
      freeqLeftOut?: string;
    };

/** freeq = <epoch>|<n>:<h>|…, parsed; undefined when it has another shape. */
export function parseFreeq(value: string | number | undefined): { epoch: string; marks: Map<number, string> } | undefined {
  if (typeof value !== 'string') return undefined;
  const [epoch, ...rest] = value.split('|');
  if (epoch === undefined || epoch === '') return undefined;
  const marks = new Map<number, string>();
  for (const mark of rest) {
    const m = /^(\d+):(.+)$/.exec(mark);
    if (!m) return undefined;
    marks.set(Number(m[1]), m[2]!);
  }
  return { epoch, marks };
}

/** freeq at the newest common n: the hash each game has there, or why it is left out. */
function freeqValues(reports: readonly RoundReport[]): { values: Map<number, string> } | { leftOut: string } {
  const parsed = reports.map((r) => ({ game: r.game, freeq: parseFreeq(r.parts[FREEQ_PART]) }));
  if (parsed.some((p) => p.freeq === undefined)) return { leftOut: 'a game has no freeq' };
  const epochs = new Set(parsed.map((p) => p.freeq!.epoch));
  if (epochs.size > 1) return { leftOut: 'another epoch' };
  const common = [...parsed[0]!.freeq!.marks.keys()].filter((n) => parsed.every((p) => p.freeq!.marks.has(n)));
  if (common.length === 0) return { leftOut: 'no common n' };
  const newest = Math.max(...common);
  return { values: new Map(parsed.map((p) => [p.game, `${p.freeq!.epoch}|${newest}:${p.freeq!.marks.get(newest)}`])) };
}

function groupsOf(values: readonly (readonly [number, string | number | undefined])[]): PartDifference['groups'] {
  const groups: PartDifference['groups'] = [];
  for (const [game, value] of values) {
    const group = groups.find((g) => g.value === value);
    if (group) group.games.push(game);
    else groups.push({ value, games: [game] });
  }
  return groups;
}

/** Compares the reports of one round asked at `at` (`full` false: a light round). */
export function compareRound(round: { at: number; full: boolean }, reports: readonly RoundReport[]): RoundComparison {
  const sorted = [...reports].sort((a, b) => a.game - b.game);
  if (sorted.some((r) => r.time !== round.at)) {
    return { kind: 'time_skew', times: sorted.map((r) => ({ game: r.game, time: r.time })) };
  }
  const leftOut = [...new Set(sorted.flatMap((r) => r.notReady ?? []))].sort();
  const names = new Set(sorted.flatMap((r) => Object.keys(r.parts)));
  const differences: PartDifference[] = [];
  let freeqLeftOut: string | undefined;
  for (const part of [...names].sort()) {
    if (leftOut.includes(part) || (!round.full && isHeavyPart(part))) continue;
    let values: (readonly [number, string | number | undefined])[];
    if (part === FREEQ_PART) {
      const freeq = freeqValues(sorted);
      if ('leftOut' in freeq) {
        freeqLeftOut = freeq.leftOut;
        continue;
      }
      values = sorted.map((r) => [r.game, freeq.values.get(r.game)] as const);
    } else {
      values = sorted.map((r) => [r.game, Object.hasOwn(r.parts, part) ? r.parts[part] : undefined] as const);
    }
    const groups = groupsOf(values);
    if (groups.length > 1) differences.push({ part, groups });
  }
  const authorityNames = new Set(sorted.flatMap((r) => Object.keys(r.authority ?? {})));
  const authorityDiffers = [...authorityNames].sort().filter((name) => new Set(sorted.map((r) => r.authority?.[name])).size > 1);
  return { kind: 'compared', differences, leftOut, authorityDiffers, ...(freeqLeftOut === undefined ? {} : { freeqLeftOut }) };
}
