// One seed → one checked session, and many seeds → one summary (issue 9 items 1, 3 and 7): the plan drawn from the
// seed, the session run on one clock, the invariants checked, the apply logs hashed (the same seed gives the same
// hash, byte for byte), and what the session went through counted for the coverage floors.
import { createHash } from 'node:crypto';
import { checkRun, INVARIANTS, type Failure, type Invariant } from './invariants.ts';
import { drawPlan, type PlanOptions } from './plan.ts';
import { runSession, type SessionOptions, type SessionRun } from './session.ts';

export interface SeedResult {
  readonly seed: number;
  readonly failures: Failure[];
  readonly checks: Record<Invariant, number>;
  /** What the session went through (paused, stalled, freeze, reload, lateJoin, leave, cut, …). */
  readonly happened: string[];
  /** SHA-256 of every game's apply log, in game order. */
  readonly hash: string;
  readonly players: number;
  readonly simMs: number;
  readonly run: SessionRun;
}

export type SimOptions = PlanOptions & SessionOptions;

/** The apply logs of every game, one line per item, as hashed. */
export function applyLogText(run: SessionRun): string {
  const lines: string[] = [];
  for (const slot of run.slots) {
    for (const r of slot.game?.records ?? []) lines.push(`${slot.plan.name} ${r.what} t=${r.t} ${r.kind} ${r.from}:${r.seq} stamp=${r.stamp} ${r.ok ? 1 : 0}`);
  }
  return lines.join('\n');
}

export async function runSeed(seed: number, options: SimOptions = {}): Promise<SeedResult> {
  const plan = drawPlan(seed, options);
  const run = await runSession(plan, options);
  const { failures, checks } = checkRun(run);
  const hash = createHash('sha256').update(applyLogText(run)).digest('hex');
  const happened = new Set(run.happened);
  // an outsider (a late joiner, or a start without its Hello) sent actions: the host must have refused each one
  // everywhere, its own game included (outsiderRefused)
  if (run.slots.some((s) => s.written?.actions.some((w) => w.outsider))) happened.add('outsiderActed');
  return { seed, failures, checks, happened: [...happened].sort(), hash, players: plan.games.length - 1, simMs: run.simMs, run };
}

export interface Summary {
  sessions: number;
  failures: number;
  failingSeeds: number[];
  checks: Record<Invariant, number>;
  coverage: Record<string, number>;
  /** Simulated seconds in all. */
  simSeconds: number;
}

export function emptySummary(): Summary {
  return {
    sessions: 0, failures: 0, failingSeeds: [],
    checks: Object.fromEntries(INVARIANTS.map((n) => [n, 0])) as Record<Invariant, number>,
    coverage: {},
    simSeconds: 0,
  };
}

export function addToSummary(summary: Summary, r: SeedResult): void {
  summary.sessions += 1;
  summary.simSeconds = Math.round((summary.simSeconds + r.simMs / 1000) * 10) / 10;
  if (r.failures.length > 0) {
    summary.failures += 1;
    summary.failingSeeds.push(r.seed);
  }
  for (const name of INVARIANTS) summary.checks[name] += r.checks[name];
  for (const h of r.happened) summary.coverage[h] = (summary.coverage[h] ?? 0) + 1;
}

/** The summaries of several runs as one (the children of a `--jobs` run). */
export function mergeSummaries(parts: readonly Summary[]): Summary {
  const total = emptySummary();
  for (const part of parts) {
    total.sessions += part.sessions;
    total.failures += part.failures;
    total.failingSeeds.push(...part.failingSeeds);
    total.simSeconds = Math.round((total.simSeconds + part.simSeconds) * 10) / 10;
    for (const name of INVARIANTS) total.checks[name] += part.checks[name] ?? 0;
    for (const [what, count] of Object.entries(part.coverage)) total.coverage[what] = (total.coverage[what] ?? 0) + count;
  }
  total.failingSeeds.sort((a, b) => a - b);
  return total;
}

/** A failure as printed: the seed, the invariant and its first differing entry. */
export function failureText(r: SeedResult): string {
  return r.failures.map((f) => `seed ${r.seed}: ${f.invariant}: ${f.detail}`).join('\n');
}
