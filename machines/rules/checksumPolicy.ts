// The repair policy (spec "Resync policy", "Action verdicts", "Light rounds"): a pure value the checksum-rounds chart
// (machines/checksumRounds.ts) calls with the host's clock on every compared round outside a resync round, on a
// ReplayFailed, on differing verdicts and at every host tick. It decides when a repair (a resync round) is due:
//
//   money                never; corrected through Authority
//   drift parts          one of them differed in every round for 300 s (a round with none of them resets the clock)
//   any other part       two consecutive rounds in which some ordinary part differs (a clean round resets)
//   ReplayFailed         at once
//   differing verdicts   at once
//
// A decision resets the counters. A decision less than 120 s after the end of the previous repair (or after the
// previous request, see docs/DECISIONS.md), or while a repair runs, is remembered (one, the first reason) and
// requested at the first tick after the cooldown; a full round in which every part was measured and no non-money part
// differs cancels it; a repair that starts for another reason (the host's button, hot join) forgets it. One repair
// runs at a time.
// A part is "unmeasured" in a round when it is heavy and the round light, or a game left it out as notReady: such a
// round neither grows nor resets a streak or a drift clock made only of unmeasured parts.

/** Money: never reloads; corrected through Authority. */
export const MONEY_PARTS: readonly string[] = ['money'];
/** Drift parts (plus every `script:*`): a repair only after 300 s of difference in every round. */
export const DRIFT_PARTS: readonly string[] = ['vehicles', 'onboard', 'persons', 'stocks', 'nodeConfigs'];
/** ChecksumPolicy::HEAVY_PARTS (plus every `townBuildings:<town>`): only in full rounds. */
export const HEAVY_PARTS: readonly string[] = ['edges', 'constructions', 'nodeConfigs', 'townBuildings', 'ids'];

/** How long a drift part differs in every round before a repair (ms). */
export const DRIFT_LIMIT_MS = 300_000;
/** Policy decisions within this long of the previous repair wait for its end (ms). */
export const COOLDOWN_MS = 120_000;
/** Ordinary parts: a repair when they differ in this many consecutive rounds. */
export const STREAK_LIMIT = 2;

export const isMoneyPart = (part: string): boolean => MONEY_PARTS.includes(part);
export const isDriftPart = (part: string): boolean => DRIFT_PARTS.includes(part) || part.startsWith('script:');
export const isHeavyPart = (part: string): boolean => HEAVY_PARTS.includes(part) || part.startsWith('townBuildings:');

/** What the policy is told of a compared round (machines/rules/checksumCompare.ts makes it). */
export interface ChecksumOutcome {
  /** A full round: the heavy lanes were compared. */
  full: boolean;
  /** The parts that differ between the games (money included; the policy ignores it). */
  differing: readonly string[];
  /** The parts some game left out as notReady (not compared this round). */
  leftOut: readonly string[];
}

/** Consecutive rounds in which something differed, and the parts that did. */
export interface PartRun {
  rounds: number;
  /** Host clock (ms) of the first round of the run. */
  since: number;
  parts: readonly string[];
}

export interface PolicyState {
  /** The ordinary parts' streak. */
  streak: PartRun | undefined;
  /** The drift parts' clock. */
  drift: PartRun | undefined;
  /** A decision made inside the cooldown, waiting for its end. */
  pending: { reason: string; since: number } | undefined;
  /** When the cooldown started: the end of the last repair or the last request, whichever is later. */
  cooldownFrom: number | undefined;
  /** A repair (resync round) runs now. */
  repairing: boolean;
  /** The cooldown's length (COOLDOWN_MS; the simulator's short sessions scale it down). */
  cooldownMs: number;
}

/** What one call decided besides the new state. */
export interface PolicyStep {
  state: PolicyState;
  /** A repair is requested now, for this reason. */
  request?: string;
  /**
   * A decision inside the cooldown, or while a repair runs, remembered: requested at the first tick after the cooldown
   * (the one that follows the running repair's end).
   */
  deferred?: string;
  /** `deferred` was decided while a repair runs. */
  whileRepairing?: true;
  /** The remembered decision was cancelled: the worlds match (a clean full round) or another repair started. */
  cancelled?: string;
}

export function createPolicy(cooldownMs = COOLDOWN_MS): PolicyState {
  return { streak: undefined, drift: undefined, pending: undefined, cooldownFrom: undefined, repairing: false, cooldownMs };
}

/** The cooldown runs at `now`. */
export function inCooldown(state: PolicyState, now: number): boolean {
  return state.cooldownFrom !== undefined && now - state.cooldownFrom < state.cooldownMs;
}

const WAITED = ' (waited for the cooldown)';

/**
 * A decision: requested now, or remembered when inside the cooldown or while a repair runs. A running repair need not
 * replace what the decision was about: differing verdicts of an item its pause flushed after the save (docs/DECISIONS.md
 * "A decision while a repair runs is remembered"); if it did, the first clean full round after it cancels the decision.
 */
export function decide(state: PolicyState, reason: string, now: number): PolicyStep {
  const reset: PolicyState = { ...state, streak: undefined, drift: undefined };
  if (state.repairing || inCooldown(state, now)) {
    const why = state.repairing ? { whileRepairing: true as const } : {};
    if (state.pending) return { state: reset, deferred: reason, ...why };
    return { state: { ...reset, pending: { reason, since: now } }, deferred: reason, ...why };
  }
  // Past the cooldown a remembered decision goes first (one at a time, the first reason).
  const request = state.pending ? state.pending.reason + WAITED : reason;
  return { state: { ...reset, pending: undefined, cooldownFrom: now }, request };
}

/** ChecksumPolicy::due: at a host tick, the remembered decision once the cooldown is over. */
export function due(state: PolicyState, now: number): PolicyStep {
  if (!state.pending || state.repairing || inCooldown(state, now)) return { state };
  return { state: { ...state, pending: undefined, cooldownFrom: now }, request: state.pending.reason + WAITED };
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])].sort();

/** A run grown by this round's differing parts, kept when all of its parts went unmeasured, else ended. */
function nextRun(run: PartRun | undefined, differing: readonly string[], unmeasured: (p: string) => boolean, now: number) {
  if (differing.length > 0) {
    return run ? { rounds: run.rounds + 1, since: run.since, parts: union(run.parts, differing) } : { rounds: 1, since: now, parts: union([], differing) };
  }
  return run && run.parts.every(unmeasured) ? run : undefined;
}

/** Judges a compared round (outside a resync round) on its non-money parts. */
export function judgeRound(state: PolicyState, outcome: ChecksumOutcome, now: number): PolicyStep {
  const nonMoney = outcome.differing.filter((p) => !isMoneyPart(p));
  let cancelled: string | undefined;
  let s = state;
  if (s.pending && outcome.full && outcome.leftOut.length === 0 && nonMoney.length === 0) {
    cancelled = s.pending.reason;
    s = { ...s, pending: undefined };
  }
  const unmeasured = (p: string) => (!outcome.full && isHeavyPart(p)) || outcome.leftOut.includes(p);
  const streak = nextRun(s.streak, nonMoney.filter((p) => !isDriftPart(p)), unmeasured, now);
  const drift = nextRun(s.drift, nonMoney.filter(isDriftPart), unmeasured, now);
  s = { ...s, streak, drift };
  const withCancel = (step: PolicyStep): PolicyStep => (cancelled === undefined ? step : { ...step, cancelled });
  if (streak && streak.rounds >= STREAK_LIMIT) {
    return withCancel(decide(s, `parts ${streak.parts.join(', ')} differ in ${STREAK_LIMIT} rounds in a row`, now));
  }
  // Only a round in which a drift part differs confirms the clock (one kept over unmeasured rounds waits for one).
  if (drift && drift.rounds > 0 && nonMoney.some(isDriftPart) && now - drift.since >= DRIFT_LIMIT_MS) {
    const seconds = Math.round((now - drift.since) / 1000);
    return withCancel(decide(s, `drift parts ${drift.parts.join(', ')} differ in every round for ${seconds} s`, now));
  }
  return withCancel({ state: s });
}

/** A game's ReplayFailed: a repair at once (cooldown permitting). */
export function replayFailed(state: PolicyState, game: string, detail: string, now: number): PolicyStep {
  return decide(state, `replay failed on ${game}: ${detail}`, now);
}

/** Two games answered one action differently (rules/verdictBook.ts): a repair at once (cooldown permitting). */
export function verdictsDiffer(state: PolicyState, action: string, now: number): PolicyStep {
  return decide(state, `verdicts of ${action} differ`, now);
}

/**
 * A repair starts. `byPolicy` false: the host's button or hot join — that round is the repair and forgets a remembered
 * decision; the cooldown does not apply to it. Counters reset: the reload replaces the worlds they were about.
 */
export function repairStarted(state: PolicyState, byPolicy: boolean): PolicyStep {
  const next: PolicyState = { ...state, repairing: true, streak: undefined, drift: undefined, pending: undefined };
  return !byPolicy && state.pending ? { state: next, cancelled: state.pending.reason } : { state: next };
}

/** The repair ended (finished or failed): the cooldown starts now. */
export function repairEnded(state: PolicyState, now: number): PolicyState {
  return { ...state, repairing: false, cooldownFrom: Math.max(now, state.cooldownFrom ?? now) };
}
