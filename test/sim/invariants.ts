// The invariants of issue 9 item 3, checked on every simulated session: the games that hold the session's world
// apply the same items at the same stamps in the same order (apply logs), nothing is applied after its stamp, no game
// steps past a peer's promise (its barrier), every action is applied exactly once on every such game or nowhere,
// worlds are equal at every common pause, the session makes progress; and an outsider's actions are refused
// everywhere, its own game included. Each check counts what it looked at (`checks`); a failure names the invariant
// and its first differing entry.
import type { GameRecord } from './simGame.ts';
import type { SessionRun, SimGameSlot } from './session.ts';

export const INVARIANTS = ['sameOrder', 'notLate', 'barrier', 'exactlyOnce', 'worldsEqual', 'progress', 'outsiderRefused'] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Failure {
  readonly invariant: Invariant;
  readonly detail: string;
}

export interface Verdict {
  readonly failures: Failure[];
  readonly checks: Record<Invariant, number>;
}

const key = (r: { from: number; seq: number }): string => `${r.from}:${r.seq}`;
const entry = (r: GameRecord): string => `t=${r.t} ${r.kind} ${key(r)} stamp=${r.stamp} ${r.ok ? 'applied' : 'refused by the engine'}`;

/** The applied items of a game below a stamp, in the order applied. */
function appliedBelow(slot: SimGameSlot, below: number): GameRecord[] {
  return (slot.game?.records ?? []).filter((r) => r.what === 'apply' && r.stamp < below);
}

export function checkRun(run: SessionRun): Verdict {
  const failures: Failure[] = [];
  const checks = Object.fromEntries(INVARIANTS.map((name) => [name, 0])) as Record<Invariant, number>;
  const fail = (invariant: Invariant, detail: string): void => {
    if (!failures.some((f) => f.invariant === invariant)) failures.push({ invariant, detail });
  };
  const world = run.slots.filter((s) => s.holdsWorld && s.game !== undefined);
  const window = (s: SimGameSlot): number => s.window ?? s.endT ?? 0;

  // progress
  checks.progress += 1;
  for (const p of run.problems) fail(p.invariant as Invariant, p.detail);

  // notLate: every item applied at its stamp, on every world game
  for (const s of world) {
    for (const r of s.game!.records) {
      if (r.what !== 'apply') continue;
      checks.notLate += 1;
      if (r.t !== r.stamp) fail('notLate', `${s.plan.name} applied ${key(r)} (${r.kind}) at t=${r.t}, stamp ${r.stamp}`);
    }
  }

  // barrier: recorded online, at every step of a world game
  for (const s of world) {
    checks.barrier += s.stepsChecked;
    const b = s.barrierBreaks[0];
    if (b) fail('barrier', `${s.plan.name} stepped out of t=${b.t} although ${run.slots[b.peer]!.plan.name} promised only ${b.promised}`);
  }

  // sameOrder: the apply logs of every pair, over the stamps both held the world for
  const reference = world[0];
  for (const s of world.slice(1)) {
    const below = Math.min(window(reference!), window(s));
    const a = appliedBelow(reference!, below);
    const b = appliedBelow(s, below);
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      checks.sameOrder += 1;
      const x = a[i];
      const y = b[i];
      if (x && y && entry(x) === entry(y)) continue;
      fail('sameOrder', `apply logs of ${reference!.plan.name} and ${s.plan.name} differ at entry ${i} (stamps < ${below}): `
        + `${x ? entry(x) : '(none)'} vs ${y ? entry(y) : '(none)'}`);
      break;
    }
  }

  // exactlyOnce: applied at most once per game; applied by one world game at s => by every world game holding s;
  // an action a world game sent that passed its stamp everywhere is applied or refused, never lost
  const appliedAt = new Map<string, { stamp: number; by: string }>();
  for (const s of world) {
    const seen = new Set<string>();
    for (const r of s.game!.records) {
      if (r.what !== 'apply') continue;
      const k = key(r);
      checks.exactlyOnce += 1;
      if (seen.has(k)) fail('exactlyOnce', `${s.plan.name} applied ${k} twice (again at t=${r.t})`);
      seen.add(k);
      if (r.stamp < window(s) && !appliedAt.has(k)) appliedAt.set(k, { stamp: r.stamp, by: s.plan.name });
    }
  }
  for (const [k, at] of appliedAt) {
    for (const s of world) {
      if (at.stamp >= window(s)) continue;
      checks.exactlyOnce += 1;
      const mine = s.game!.records.find((r) => r.what === 'apply' && key(r) === k);
      if (!mine) {
        const refused = s.game!.records.some((r) => r.what === 'refuse' && key(r) === k);
        fail('exactlyOnce', `${at.by} applied ${k} at ${at.stamp}; ${s.plan.name} ${refused ? 'refused it (vetoed)' : 'never applied it'}`);
      }
    }
  }
  for (const s of world) {
    for (const w of s.written?.actions ?? []) {
      if (world.some((o) => w.stamp >= window(o))) continue;
      checks.exactlyOnce += 1;
      const k = key(w);
      const anywhere = world.some((o) => o.game!.records.some((r) => key(r) === k && r.what !== 'step'));
      if (!anywhere) fail('exactlyOnce', `${s.plan.name}'s action ${k} stamped ${w.stamp} was neither applied nor refused anywhere`);
    }
  }

  // outsiderRefused: an outsider's actions are applied nowhere, its own game included
  for (const o of run.slots.filter((s) => !s.holdsWorld && s.game !== undefined && s.id !== undefined)) {
    checks.outsiderRefused += 1;
    const own = o.game!.records.find((r) => r.what === 'apply' && r.from === o.id && r.kind === 'action');
    if (own) fail('outsiderRefused', `the outsider ${o.plan.name} applied its own action ${key(own)} (stamp ${own.stamp})`);
    for (const w of o.written?.actions ?? []) {
      checks.outsiderRefused += 1;
      const k = key(w);
      const applier = [o, ...world].find((s) => s.game!.records.some((r) => r.what === 'apply' && key(r) === k));
      if (applier) fail('outsiderRefused', `the outsider ${o.plan.name}'s action ${k} (stamp ${w.stamp}) was applied on ${applier.plan.name}`);
    }
  }

  // worldsEqual: at every common pause
  for (const p of run.pauses) {
    checks.worldsEqual += p.hashes.length;
    const first = p.hashes[0]!;
    const other = p.hashes.find((h) => h.hash !== first.hash);
    if (other) {
      fail('worldsEqual', `at the pause at t=${p.t}: ${run.slots[first.index]!.plan.name} ${first.hash.slice(0, 12)} vs `
        + `${run.slots[other.index]!.plan.name} ${other.hash.slice(0, 12)}`);
    }
  }
  return { failures, checks };
}
