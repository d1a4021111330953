// The repair policy (machines/rules/checksumPolicy.ts; spec "Resync policy"): each rule on examples, then fast-check
// over random outcome sequences on a simulated clock — a decision inside the cooldown is never dropped, no two repairs
// start in one cooldown, money alone never reloads — with floors on how often the runs hit each case.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  COOLDOWN_MS,
  DRIFT_LIMIT_MS,
  createPolicy,
  decide,
  due,
  judgeRound,
  repairEnded,
  repairStarted,
  replayFailed,
  verdictsDiffer,
  type ChecksumOutcome,
  type PolicyState,
  type PolicyStep,
} from '../../../machines/rules/checksumPolicy.ts';

const round = (differing: string[], full = true, leftOut: string[] = []): ChecksumOutcome => ({ full, differing, leftOut });

/** Judges rounds at the given host times; returns every step. */
function judgeAll(state: PolicyState, rounds: [number, ChecksumOutcome][]): { state: PolicyState; steps: PolicyStep[] } {
  const steps: PolicyStep[] = [];
  for (const [now, outcome] of rounds) {
    const step = judgeRound(state, outcome, now);
    steps.push(step);
    state = step.state;
  }
  return { state, steps };
}

describe('checksum policy rules', () => {
  it('money never reloads, however long it differs', () => {
    const rounds: [number, ChecksumOutcome][] = Array.from({ length: 200 }, (_, k) => [k * 5_000, round(['money'])]);
    const { steps, state } = judgeAll(createPolicy(), rounds);
    expect(steps.filter((s) => s.request || s.deferred)).toEqual([]);
    expect(state.streak).toBeUndefined();
  });

  it('an ordinary part: two consecutive rounds, whichever parts; a clean round resets', () => {
    const a = judgeAll(createPolicy(), [[0, round(['edges'])], [5_000, round([])], [10_000, round(['loan'])]]);
    expect(a.steps.map((s) => s.request)).toEqual([undefined, undefined, undefined]);
    const b = judgeAll(createPolicy(), [[0, round(['edges', 'money'])], [5_000, round(['townBuildings:Ulm'])]]);
    expect(b.steps[1]!.request).toBe('parts edges, townBuildings:Ulm differ in 2 rounds in a row');
    expect(b.state.streak).toBeUndefined(); // a decision resets the counters
  });

  it('drift parts: only after 300 s of difference in every round; a round without them resets the clock', () => {
    const drifting = (from: number, to: number) =>
      Array.from({ length: (to - from) / 5_000 + 1 }, (_, k) => [from + k * 5_000, round(['vehicles'])] as [number, ChecksumOutcome]);
    const a = judgeAll(createPolicy(), drifting(0, DRIFT_LIMIT_MS - 5_000));
    expect(a.steps.some((s) => s.request)).toBe(false);
    const b = judgeAll(a.state, [[DRIFT_LIMIT_MS, round(['script:towns'])]]);
    expect(b.steps[0]!.request).toBe('drift parts script:towns, vehicles differ in every round for 300 s');
    const c = judgeAll(createPolicy(), [...drifting(0, 200_000), [205_000, round([])], ...drifting(210_000, 505_000)]);
    expect(c.steps.some((s) => s.request)).toBe(false);
    expect(c.state.drift?.since).toBe(210_000);
  });

  it('a light round neither grows nor resets a streak of heavy parts only; a light part differing still counts', () => {
    const a = judgeAll(createPolicy(), [[0, round(['edges'])], [5_000, round([], false)], [10_000, round(['ids'])]]);
    expect(a.steps[1]!.state.streak).toMatchObject({ rounds: 1, parts: ['edges'] });
    expect(a.steps[2]!.request).toMatch(/^parts edges, ids differ/);
    const b = judgeAll(createPolicy(), [[0, round(['loan'])], [5_000, round([], false)], [10_000, round(['loan'])]]);
    expect(b.steps[1]!.state.streak).toBeUndefined();
    expect(b.steps[2]!.request).toBeUndefined();
    const c = judgeAll(createPolicy(), [[0, round(['nodeConfigs'])], [5_000, round([], false)]]);
    expect(c.state.drift).toMatchObject({ since: 0, parts: ['nodeConfigs'] }); // heavy drift part kept over a light round
  });

  it('a part left out as notReady keeps a run made of it, not one made of measured parts', () => {
    const a = judgeAll(createPolicy(), [[0, round(['loan'])], [5_000, round([], true, ['loan'])]]);
    expect(a.state.streak).toMatchObject({ rounds: 1 });
    const b = judgeAll(createPolicy(), [[0, round(['loan'])], [5_000, round([], true, ['stocks'])]]);
    expect(b.state.streak).toBeUndefined();
  });

  it('ReplayFailed and differing verdicts decide at once', () => {
    expect(replayFailed(createPolicy(), 'anna', 'no such segment', 0).request).toBe('replay failed on anna: no such segment');
    expect(verdictsDiffer(createPolicy(), '3:17', 0).request).toBe('verdicts of 3:17 differ');
  });

  it('inside the cooldown a decision is remembered (the first reason) and requested at the first tick after it', () => {
    let s = repairEnded(repairStarted(createPolicy(), true).state, 1_000);
    const first = verdictsDiffer(s, '1:1', 50_000);
    expect(first).toMatchObject({ deferred: 'verdicts of 1:1 differ' });
    expect(first.request).toBeUndefined();
    const second = replayFailed(first.state, 'bo', 'x', 60_000);
    expect(second.state.pending).toEqual({ reason: 'verdicts of 1:1 differ', since: 50_000 });
    s = second.state;
    expect(due(s, 1_000 + COOLDOWN_MS - 1).request).toBeUndefined();
    const fired = due(s, 1_000 + COOLDOWN_MS);
    expect(fired.request).toBe('verdicts of 1:1 differ (waited for the cooldown)');
    expect(fired.state.pending).toBeUndefined();
    expect(due(fired.state, 1_000 + COOLDOWN_MS + 1).request).toBeUndefined();
  });

  it('a shorter cooldown (the simulator\'s quarter-length sessions) holds a decision exactly that long', () => {
    const s = verdictsDiffer(repairEnded(repairStarted(createPolicy(30_000), true).state, 1_000), '1:1', 10_000).state;
    expect(due(s, 1_000 + 30_000 - 1).request).toBeUndefined();
    expect(due(s, 1_000 + 30_000).request).toBe('verdicts of 1:1 differ (waited for the cooldown)');
    expect(createPolicy().cooldownMs).toBe(COOLDOWN_MS);
  });

  it('a clean full round with every part measured cancels the remembered decision; a light or incomplete one does not', () => {
    const s = verdictsDiffer(repairEnded(createPolicy(), 0), '1:1', 10_000).state;
    expect(judgeRound(s, round(['money'], false), 15_000).cancelled).toBeUndefined();
    expect(judgeRound(s, round([], true, ['stocks']), 15_000).cancelled).toBeUndefined();
    expect(judgeRound(s, round(['vehicles']), 15_000).cancelled).toBeUndefined();
    const clean = judgeRound(s, round(['money']), 15_000);
    expect(clean.cancelled).toBe('verdicts of 1:1 differ');
    expect(clean.state.pending).toBeUndefined();
  });

  it('the host’s button or hot join is the repair: it forgets the remembered decision; the cooldown does not hold it', () => {
    const s = verdictsDiffer(repairEnded(createPolicy(), 0), '1:1', 10_000).state;
    const started = repairStarted(s, false);
    expect(started.cancelled).toBe('verdicts of 1:1 differ');
    expect(started.state).toMatchObject({ repairing: true, pending: undefined });
    // A decision while that repair runs is remembered, not dropped: the round need not replace what it was about.
    const during = decide(started.state, 'x', 20_000);
    expect(during).toMatchObject({ deferred: 'x', whileRepairing: true, state: { pending: { reason: 'x', since: 20_000 } } });
    expect(during.request).toBeUndefined();
    const ended = repairEnded(during.state, 30_000);
    expect(due(ended, 30_000 + COOLDOWN_MS - 1).request).toBeUndefined();
    expect(due(ended, 30_000 + COOLDOWN_MS).request).toBe('x (waited for the cooldown)');
  });

  it('a request starts the cooldown even when no repair follows it (autoResync off)', () => {
    const a = decide(createPolicy(), 'first', 0);
    expect(a.request).toBe('first');
    expect(decide(a.state, 'second', COOLDOWN_MS - 1).deferred).toBe('second');
    expect(decide(a.state, 'second', COOLDOWN_MS).request).toBe('second');
  });
});

// ---- random outcome sequences on a simulated clock -------------------------------------------------------------

const PARTS = ['money', 'loan', 'edges', 'ids', 'time', 'vehicles', 'stocks', 'script:towns', 'nodeConfigs', 'townBuildings:Ulm'];

type Input =
  | { kind: 'round'; advance: number; outcome: ChecksumOutcome }
  | { kind: 'replayFailed'; advance: number }
  | { kind: 'verdicts'; advance: number }
  | { kind: 'tick'; advance: number }
  /** The host's button (or hot join): a repair not by the policy. */
  | { kind: 'button'; advance: number }
  /** The running repair ends (finished or failed). */
  | { kind: 'repairEnds'; advance: number };

const outcomeArb = fc.record({
  full: fc.boolean(),
  // Clean rounds (or money alone) often enough to cancel remembered decisions and end runs.
  differing: fc.oneof({ weight: 2, arbitrary: fc.subarray(['money'] as string[]) }, { weight: 3, arbitrary: fc.subarray(PARTS, { maxLength: 3 }) }),
  leftOut: fc.oneof({ weight: 4, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: fc.subarray(PARTS, { maxLength: 2 }) }),
});
const inputArb = (parts: fc.Arbitrary<ChecksumOutcome>): fc.Arbitrary<Input> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.record({ kind: fc.constant('round' as const), advance: fc.integer({ min: 1_000, max: 40_000 }), outcome: parts }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('replayFailed' as const), advance: fc.integer({ min: 0, max: 40_000 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('verdicts' as const), advance: fc.integer({ min: 0, max: 40_000 }) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('tick' as const), advance: fc.integer({ min: 100, max: 60_000 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('button' as const), advance: fc.integer({ min: 0, max: 30_000 }) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('repairEnds' as const), advance: fc.integer({ min: 0, max: 90_000 }) }) },
  );

const roundsAndTicks = (outcomes: fc.Arbitrary<ChecksumOutcome>): fc.Arbitrary<Input> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('round' as const), advance: fc.integer({ min: 1_000, max: 40_000 }), outcome: outcomes }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), advance: fc.integer({ min: 100, max: 60_000 }) }) },
  );

interface Trace {
  requests: { at: number; reason: string }[];
  deferrals: number;
  /** Decisions remembered while a repair ran. */
  whileRepairing: number;
  waitedRequests: number;
  cancels: number;
  forgotten: number;
  violations: string[];
}

/**
 * Runs the inputs on a simulated clock. `autoResync`: a request starts the repair at once (a host that acts on it).
 * Checks the cooldown invariants as it goes and, at the end, that a remembered decision is still requested.
 */
function run(inputs: Input[], autoResync: boolean): Trace {
  let s = createPolicy();
  let now = 0;
  let lastCooldownAnchor: number | undefined; // the last request or repair end
  let remembered: string | undefined; // the decision the policy remembers, as seen from its steps
  const t: Trace = { requests: [], deferrals: 0, whileRepairing: 0, waitedRequests: 0, cancels: 0, forgotten: 0, violations: [] };
  const apply = (step: PolicyStep) => {
    if (step.deferred !== undefined) {
      t.deferrals++;
      if (step.whileRepairing) t.whileRepairing++;
      remembered ??= step.deferred;
    }
    if (step.cancelled !== undefined) {
      if (step.cancelled !== remembered) t.violations.push(`cancelled ${step.cancelled}, remembered ${remembered}`);
      remembered = undefined;
      t.cancels++;
    }
    if (step.request !== undefined) {
      if (s.repairing) t.violations.push(`request while a repair runs at ${now}`);
      if (lastCooldownAnchor !== undefined && now - lastCooldownAnchor < COOLDOWN_MS) t.violations.push(`request in the cooldown at ${now}`);
      if (remembered !== undefined && step.request !== `${remembered} (waited for the cooldown)`) {
        t.violations.push(`remembered ${remembered} dropped for ${step.request}`);
      }
      if (step.request.endsWith('(waited for the cooldown)')) t.waitedRequests++;
      remembered = undefined;
      t.requests.push({ at: now, reason: step.request });
      lastCooldownAnchor = now;
    }
    s = step.state;
    if (step.request !== undefined && autoResync) s = repairStarted(s, true).state;
  };
  for (const input of inputs) {
    now += input.advance;
    switch (input.kind) {
      case 'round':
        if (!s.repairing) apply(judgeRound(s, input.outcome, now)); // rounds during a repair are the Verifying rule's
        break;
      case 'replayFailed':
        apply(replayFailed(s, 'anna', 'x', now));
        break;
      case 'verdicts':
        apply(verdictsDiffer(s, '1:1', now));
        break;
      case 'tick':
        apply(due(s, now));
        break;
      case 'button':
        if (!s.repairing) {
          const step = repairStarted(s, false);
          if (step.cancelled !== undefined) t.forgotten++;
          remembered = undefined;
          s = step.state;
        }
        break;
      case 'repairEnds':
        if (s.repairing) {
          s = repairEnded(s, now);
          lastCooldownAnchor = now;
        }
        break;
    }
    if (!s.repairing && s.pending?.reason !== remembered) t.violations.push(`pending ${s.pending?.reason} but remembered ${remembered}`);
  }
  // The end: any repair ends, then ticks run past the cooldown: a remembered decision must be requested.
  if (s.repairing) {
    now += 1;
    s = repairEnded(s, now);
    lastCooldownAnchor = now;
  }
  const stillRemembered = remembered;
  for (let k = 0; k < 30; k++) {
    now += 10_000;
    apply(due(s, now));
  }
  if (stillRemembered !== undefined && remembered !== undefined) t.violations.push(`decision ${stillRemembered} dropped`);
  return t;
}

describe('checksum policy over random outcome sequences', () => {
  it('never drops a decision inside the cooldown and never starts two repairs in one cooldown', () => {
    const seen = { deferred: 0, whileRepairing: 0, waited: 0, cancelled: 0, forgotten: 0, twoRequests: 0 };
    fc.assert(
      fc.property(fc.array(inputArb(outcomeArb), { minLength: 5, maxLength: 80 }), fc.boolean(), (inputs, autoResync) => {
        const t = run(inputs, autoResync);
        expect(t.violations).toEqual([]);
        for (let k = 1; k < t.requests.length; k++) expect(t.requests[k]!.at - t.requests[k - 1]!.at).toBeGreaterThanOrEqual(COOLDOWN_MS);
        if (t.deferrals > 0) seen.deferred++;
        if (t.whileRepairing > 0) seen.whileRepairing++;
        if (t.waitedRequests > 0) seen.waited++;
        if (t.cancels > 0) seen.cancelled++;
        if (t.forgotten > 0) seen.forgotten++;
        if (t.requests.length > 1) seen.twoRequests++;
      }),
      { numRuns: 400, seed: 10_017 },
    );
    // The runs reached the cases the properties are about.
    expect(seen.deferred).toBeGreaterThanOrEqual(80);
    expect(seen.whileRepairing).toBeGreaterThanOrEqual(40);
    expect(seen.waited).toBeGreaterThanOrEqual(50);
    expect(seen.cancelled).toBeGreaterThanOrEqual(20);
    expect(seen.forgotten).toBeGreaterThanOrEqual(8);
    expect(seen.twoRequests).toBeGreaterThanOrEqual(60);
  });

  it('money alone never reloads, and money beside other parts changes no decision', () => {
    const moneyOnly = outcomeArb.map((o) => ({ ...o, differing: o.differing.includes('money') ? ['money'] : [] }));
    let moneyRounds = 0;
    fc.assert(
      fc.property(fc.array(roundsAndTicks(moneyOnly), { minLength: 20, maxLength: 120 }), (inputs) => {
        moneyRounds += inputs.filter((i) => i.kind === 'round' && i.outcome.differing.length > 0).length;
        expect(run(inputs, true).requests).toEqual([]);
      }),
      { numRuns: 200, seed: 10_018 },
    );
    expect(moneyRounds).toBeGreaterThan(1_000);

    let decided = 0;
    fc.assert(
      fc.property(fc.array(inputArb(outcomeArb), { maxLength: 80 }), (inputs) => {
        const without = inputs.map((i) => (i.kind === 'round' ? { ...i, outcome: { ...i.outcome, differing: i.outcome.differing.filter((p) => p !== 'money') } } : i));
        const withMoney = inputs.map((i) => (i.kind === 'round' ? { ...i, outcome: { ...i.outcome, differing: [...new Set([...i.outcome.differing, 'money'])] } } : i));
        const a = run(without, true).requests;
        expect(run(withMoney, true).requests).toEqual(a);
        if (a.length > 0) decided++;
      }),
      { numRuns: 200, seed: 10_019 },
    );
    expect(decided).toBeGreaterThanOrEqual(50);
  });
});
