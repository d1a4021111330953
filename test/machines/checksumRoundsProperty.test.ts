// The checksum-rounds chart under random command sequences (fast-check) on a simulated clock: host ticks, time
// passing, pauses and resumes, games reporting (equal, forked, late) or staying silent, leaving, verdicts. Invariants
// of "No overlap", the round timeout and the policy: at most one regular round open; regular rounds at least 5 s
// apart and never asked while paused; every round asked ends exactly once (identical, different, time_skew or
// dropped) and a drop comes 60 s after the ask; round numbers count up without a gap; repair requests at least
// 120 s apart. Coverage floors say the runs reached waits, drops, skips, differences and repairs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { checksumRoundsMachine, type ChecksumRoundsEmitted } from '../../machines/checksumRounds.ts';
import { COOLDOWN_MS } from '../../machines/rules/checksumPolicy.ts';

/** The host's tick in these runs (ms). */
const TICK_MS = 200;

const GAMES = [
  { id: 0, name: 'host' },
  { id: 1, name: 'bo' },
  { id: 2, name: 'cy' },
];

type Command =
  | { kind: 'wait'; ms: number }
  | { kind: 'report'; game: number; how: 'equal' | 'forked' | 'late' }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'leave'; game: number }
  | { kind: 'verdicts'; differ: boolean };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 100, max: 3_000 }), fc.integer({ min: 5_000, max: 30_000 })) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('report' as const), game: fc.integer({ min: 0, max: 2 }), how: fc.constantFrom('equal', 'equal', 'equal', 'forked', 'late') }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pause' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'resume' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), game: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('verdicts' as const), differ: fc.boolean() }) },
);

function runCommands(commands: Command[]) {
  const clock = new SimulatedClock();
  /** What the chart emitted, in order, with the host's pauses and resumes between (`session.*` markers). */
  const out: { at: number; e: ChecksumRoundsEmitted | { type: 'session.paused' | 'session.running' } }[] = [];
  const actor = createActor(checksumRoundsMachine, { clock, input: {}, systemId: 'checksumRounds' });
  actor.on('*', (e) => out.push({ at: clock.now(), e: e as ChecksumRoundsEmitted }));
  actor.start();
  let games = GAMES;
  let stamp = 10_000;
  let paused = false;
  let seq = 0;
  const tick = () => {
    stamp += 200;
    actor.send({ type: 'tick', now: clock.now(), at: stamp, games });
  };
  tick();
  actor.send({ type: 'session.running', now: 0, speed: 1 });
  for (const c of commands) {
    const now = clock.now();
    switch (c.kind) {
      case 'wait':
        for (let k = 0; k < c.ms / TICK_MS; k++) {
          clock.increment(TICK_MS);
          tick();
        }
        break;
      case 'report': {
        const { regular, paused: p } = actor.getSnapshot().context;
        const round = [regular, p].find((r) => r?.waiting.includes(c.game)) ?? regular ?? p;
        if (!round) break;
        const parts = { money: 'm', edges: c.how === 'forked' && c.game === 2 ? 'x' : 'e' };
        const time = c.how === 'late' ? round.at + 200 : round.at;
        actor.send({ type: 'recv.ChecksumReport', now, from: c.game, payload: { n: round.n, time, parts } });
        break;
      }
      case 'pause':
        if (!paused) {
          paused = true;
          out.push({ at: now, e: { type: 'session.paused' } });
          actor.send({ type: 'session.paused', now, pauseAt: stamp });
        }
        break;
      case 'resume':
        if (paused) {
          paused = false;
          out.push({ at: now, e: { type: 'session.running' } });
          actor.send({ type: 'session.running', now, speed: 2 });
        }
        break;
      case 'leave':
        if (games.some((g) => g.id === c.game)) {
          games = games.filter((g) => g.id !== c.game);
          actor.send({ type: 'game.left', now, id: c.game });
        }
        break;
      case 'verdicts':
        seq++;
        actor.send({ type: 'recv.ActionRefused', now, from: 0, payload: { from: 0, seq, applied: true } });
        actor.send({ type: 'recv.ActionRefused', now, from: 1, payload: c.differ ? { from: 0, seq, detail: 'no', class: 'engine' } : { from: 0, seq, applied: true } });
        break;
    }
  }
  // The end: the session pauses (no new regular round), and every round still open ends within the timeout.
  if (!paused) {
    out.push({ at: clock.now(), e: { type: 'session.paused' } });
    actor.send({ type: 'session.paused', now: clock.now(), pauseAt: stamp });
  }
  for (let k = 0; k < 60_000 / TICK_MS + 1; k++) {
    clock.increment(TICK_MS);
    tick();
  }
  actor.stop();
  return { out };
}

describe('checksum rounds under random commands (fast-check)', () => {
  it('keeps no overlap, the timeout, one end per round, numbering and the cooldown', () => {
    const seen = { waited: 0, dropped: 0, skipped: 0, different: 0, repairs: 0, paused: 0 };
    fc.assert(
      fc.property(fc.array(command, { minLength: 20, maxLength: 80 }), (commands) => {
        const { out } = runCommands(commands);
        const requests = out.filter((o) => o.e.type === 'send.ChecksumRequest') as { at: number; e: Extract<ChecksumRoundsEmitted, { type: 'send.ChecksumRequest' }> }[];
        const ends = out.filter((o) => o.e.type === 'out.roundEnded') as { at: number; e: Extract<ChecksumRoundsEmitted, { type: 'out.roundEnded' }> }[];
        // Round numbers count up from 1 without a gap; each round ends exactly once, after its ask.
        expect(requests.map((r) => r.e.payload.n)).toEqual(requests.map((_, i) => i + 1));
        for (const r of requests) {
          const end = ends.filter((x) => x.e.n === r.e.payload.n);
          expect(end).toHaveLength(1);
          expect(end[0]!.at).toBeGreaterThanOrEqual(r.at);
          if (end[0]!.e.result === 'dropped') expect(end[0]!.at - r.at).toBeLessThanOrEqual(60_000);
          if (end[0]!.e.result === 'dropped' && !r.e.payload.paused) expect(end[0]!.at - r.at).toBe(60_000);
        }
        // Regular rounds: one open at a time, at least 5 s apart, never asked while paused.
        const regular = requests.filter((r) => !r.e.payload.paused);
        for (let i = 1; i < regular.length; i++) {
          const previousEnd = ends.find((x) => x.e.n === regular[i - 1]!.e.payload.n)!;
          expect(regular[i]!.at).toBeGreaterThanOrEqual(previousEnd.at);
          expect(regular[i]!.at - regular[i - 1]!.at).toBeGreaterThanOrEqual(5_000);
        }
        let inPause = false;
        for (const o of out) {
          if (o.e.type === 'session.paused' || o.e.type === 'session.running') inPause = o.e.type === 'session.paused';
          if (o.e.type === 'send.ChecksumRequest' && !o.e.payload.paused) expect(inPause).toBe(false);
        }
        // Repairs: at least the cooldown apart.
        const repairs = out.filter((o) => o.e.type === 'out.repairRequested');
        for (let i = 1; i < repairs.length; i++) expect(repairs[i]!.at - repairs[i - 1]!.at).toBeGreaterThanOrEqual(COOLDOWN_MS);
        const logs = out.flatMap((o) => (o.e.type === 'out.log' ? [o.e.msg] : []));
        if (logs.some((m) => m.includes('waited for the previous one'))) seen.waited++;
        if (ends.some((x) => x.e.result === 'dropped')) seen.dropped++;
        if (ends.some((x) => x.e.result === 'time_skew')) seen.skipped++;
        if (ends.some((x) => x.e.result === 'different')) seen.different++;
        if (repairs.length > 0) seen.repairs++;
        if (out.filter((o) => o.e.type === 'session.paused').length > 1) seen.paused++; // a pause before the end's
      }),
      { numRuns: 80, seed: 51_515 },
    );
    expect(seen.waited).toBeGreaterThanOrEqual(40);
    expect(seen.dropped).toBeGreaterThanOrEqual(55);
    expect(seen.skipped).toBeGreaterThanOrEqual(30);
    expect(seen.different).toBeGreaterThanOrEqual(8);
    expect(seen.repairs).toBeGreaterThanOrEqual(30);
    expect(seen.paused).toBeGreaterThanOrEqual(30);
  }, 120_000);
});
