// fast-check sequences against the resync round chart (machines/resync.ts): joins, leaves, disconnects and returns
// (caught up: `player.returned`, no round; or not: `player.joined` returned, a `player returned` round), marks,
// failed saves, differing checksums, stale events and waits at random points between steps that move the round on.
// Whatever happens: a round always ends, never two run at once, ids count 1, 2, … without a gap, every round ends
// with exactly one of succeeded / failed, the session is paused after every failure, a caught-up returner starts no
// round and one that is not takes part in a round (now or the next), and the repair source is always a player ready in
// the session's world (the latest joiner's game has not said Hello). Statistics floors make sure the sequences reach
// every ending.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResyncEmitted, ResyncEvent } from '../../machines/resync.ts';
import { RESYNC_TIMEOUTS } from '../../machines/rules/resyncRound.ts';
import { SHA, startResync, type ResyncHarness } from './resyncHarness.ts';

type Step =
  | { kind: 'advance' }
  | { kind: 'join'; id: number; returned: boolean; capable: boolean }
  | { kind: 'leave'; id: number }
  /**
   * A player's connection drops (it leaves the round's roster) and it comes back `after` steps later (or at the end of
   * the sequence): caught up (it kept the session's world: `player.returned`; the host catches up only between
   * rounds) or not (`player.joined` returned: a `player returned` round, or the running one).
   */
  | { kind: 'disconnect'; id: number; after: number; caughtUp: boolean }
  | { kind: 'partial'; id: number }
  | { kind: 'saveFails' }
  | { kind: 'differs' }
  | { kind: 'stale' }
  | { kind: 'wait'; ms: number }
  | { kind: 'start' }
  | { kind: 'speed'; from: number };

const player = fc.integer({ min: 1, max: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: 'advance' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('join' as const), id: player, returned: fc.boolean(), capable: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), id: player }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('disconnect' as const), id: player, after: fc.integer({ min: 0, max: 6 }), caughtUp: fc.boolean() }),
  },
  // the host's game half the time: its mark makes a player the repair source
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('partial' as const), id: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 })) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'saveFails' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'differs' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stale' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1_000, 60_000, 121_000, 181_000, 601_000, 781_000) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'start' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('speed' as const), from: player }) },
);

/** The event that moves the round on from where it stands (what a well-behaved session and games would send). */
function advance(h: ResyncHarness): ResyncEvent | undefined {
  const c = h.ctx();
  const v = h.value();
  // The latest joiner's game has not said Hello yet when there are several players (it must never be the source).
  const inWorld = c.players.slice(0, c.players.length > 1 ? -1 : undefined).map((p) => p.id);
  if (v.includes('Pausing')) return { type: 'pause.progress', waitingFor: [], inWorld };
  if (v.includes('WaitingForSave')) return { type: 'recv.SaveDone', from: c.source, id: c.id, ok: true };
  if (v.includes('Uploading')) return { type: 'source.uploaded', id: c.id };
  if (v.includes('AwaitingFile')) return { type: 'cmd.fileReady', id: c.id, sha256: SHA, bytes: 9 };
  if (v.includes('Sending')) return { type: 'transfer.done', id: c.id, player: c.sending[0]! };
  if (v.includes('Loading')) return { type: 'recv.Hello', from: c.awaiting[0]!, time: 1000 + c.awaiting[0]! };
  if (v.includes('Verifying')) return { type: 'checksum.verified' };
  return undefined;
}

function toEvent(h: ResyncHarness, s: Step): ResyncEvent | undefined {
  const c = h.ctx();
  switch (s.kind) {
    case 'advance':
      return advance(h);
    case 'join':
      return { type: 'player.joined', id: s.id, name: `p${s.id}`, returned: s.returned, capable: s.capable };
    case 'leave':
      return { type: 'player.left', id: s.id };
    case 'partial':
      return { type: 'game.partial', id: s.id };
    case 'saveFails':
      return { type: 'recv.SaveDone', from: c.source, id: c.id, ok: false, detail: 'boom' };
    case 'differs':
      return { type: 'checksum.differs', detail: 'money' };
    case 'stale':
      return { type: 'cmd.fileReady', id: c.id + 7, sha256: SHA, bytes: 1 };
    case 'start':
      return { type: 'cmd.start', reason: 'button' };
    case 'speed':
      return { type: 'recv.SpeedRequest', from: s.from, speed: 3 };
    case 'wait':
    case 'disconnect':
      return undefined; // runSequence sends it (and the return after it)
  }
}

/** The rounds as the emitted events tell them: start (Pausing), end (Idle progress), and the outcome events. */
function checkRounds(emitted: readonly ResyncEmitted[]): { verified: number; failedIn: string[]; hotJoins: number } {
  let running: number | undefined;
  let lastId = 0;
  let outcome: 'succeeded' | 'failed' | undefined;
  const failedIn: string[] = [];
  let verified = 0;
  let hotJoins = 0;
  for (const e of emitted) {
    if (e.type === 'out.progress' && e.state === 'Pausing') {
      expect(running, 'a round started while another runs').toBeUndefined();
      expect(e.id).toBe(lastId + 1);
      running = lastId = e.id;
      outcome = undefined;
      if (e.reason === 'new player' || e.reason === 'player returned') hotJoins++;
    } else if (e.type === 'out.succeeded' || e.type === 'out.failed') {
      expect(e.id).toBe(running);
      expect(outcome, 'a round ended twice').toBeUndefined();
      outcome = e.type === 'out.succeeded' ? 'succeeded' : 'failed';
      if (e.type === 'out.failed') failedIn.push(e.state);
      else verified++;
    } else if (e.type === 'out.progress' && e.state === 'Idle') {
      expect(e.id).toBe(running);
      expect(outcome, 'a round ended without an outcome').toBeDefined();
      expect(e.result).toBe(outcome === 'succeeded' ? 'verified' : 'failed');
      running = undefined;
    } else if (e.type !== 'out.ignored' && e.type !== 'out.progress') {
      expect(running, `${e.type} outside a round`).toBe(e.id);
    }
  }
  return { verified, failedIn, hotJoins };
}

const ALL_TIMEOUTS = Object.values(RESYNC_TIMEOUTS).reduce((a, b) => a + b, 0);

describe('resync round: random sequences', () => {
  /** Runs one sequence; checks the invariants; returns what happened. */
  function runSequence(steps: Step[], hostReloads: boolean, hostLoadsEarly: boolean) {
    const h = startResync({ hostReloads, hostLoadsEarly });
    h.send({ type: 'player.joined', id: 1, name: 'p1', capable: true }, { type: 'session.started', speed: 2 });
    /** Players whose connection dropped: when (the step index) and how they come back. */
    const away = new Map<number, { at: number; caughtUp: boolean }>();
    const returns = { caughtUp: 0, withRound: 0, disconnects: 0, playerSources: 0 };
    const comeBack = (id: number, caughtUp: boolean) => {
      away.delete(id);
      const rounds = h.ctx().id;
      // The host catches a returner up only between rounds (HostSession.resyncRunning); during one it is reloaded.
      if (caughtUp && h.value() === '"Idle"') {
        h.send({ type: 'player.returned', id, name: `p${id}`, capable: true });
        expect(h.ctx().id, 'a caught-up returner starts no round').toBe(rounds);
        returns.caughtUp++;
      } else {
        h.send({ type: 'player.joined', id, name: `p${id}`, returned: true, capable: true });
        // it starts a round, takes part in the running one, or waits for the next one (the file was announced)
        expect(h.value()).not.toBe('"Idle"');
        if (h.ctx().file !== undefined) expect(h.ctx().queued).toContain(id);
        returns.withRound++;
      }
      expect(h.ctx().players.some((p) => p.id === id)).toBe(true);
    };
    for (const [i, s] of steps.entries()) {
      for (const [id, back] of away) if (back.at <= i) comeBack(id, back.caughtUp);
      const failedBefore = h.of('out.failed').length;
      const savesBefore = h.of('out.save').length;
      if (s.kind === 'wait') h.clock.increment(s.ms);
      else if (s.kind === 'disconnect') {
        if (!h.ctx().players.some((p) => p.id === s.id)) continue;
        h.send({ type: 'player.left', id: s.id });
        away.set(s.id, { at: i + 1 + s.after, caughtUp: s.caughtUp });
        returns.disconnects++;
        expect(h.ctx().players.some((p) => p.id === s.id)).toBe(false);
      } else {
        if (s.kind === 'join' || s.kind === 'leave') away.delete(s.id); // joined afresh, or gone for good
        const e = toEvent(h, s);
        if (e) h.send(e);
      }
      // The repair source is a player ready in the session's world (or the host's game).
      for (const save of h.of('out.save').slice(savesBefore)) {
        expect([0, ...h.ctx().inWorld]).toContain(save.to);
        if (save.to !== 0) returns.playerSources++;
      }
      // Paused after every failure: the speed in force is 0 right after the failed round.
      if (h.of('out.failed').length > failedBefore) expect(h.ctx().speed).toBe(0);
    }
    for (const [id, back] of away) comeBack(id, back.caughtUp);
    // With nothing more happening, every round ends within its timeouts (at most one remembered joiner round more).
    // (The simulated clock fires a timer set during an increment only at a later increment: step by 10 s.)
    const wasRunning = h.value() !== '"Idle"';
    for (let waited = 0; waited < 2 * ALL_TIMEOUTS && h.value() !== '"Idle"'; waited += 10_000) h.clock.increment(10_000);
    expect(h.value()).toBe('"Idle"');
    const r = checkRounds(h.emitted);
    // Every round id 1..n started has ended.
    expect(h.of('out.progress').filter((p) => p.state === 'Idle').length).toBe(h.ctx().id);
    h.actor.stop();
    return { ...r, ...returns, wasRunning, rounds: h.ctx().id };
  }

  const sequences = fc.tuple(fc.array(step, { minLength: 10, maxLength: 60 }), fc.boolean(), fc.boolean());

  it('a round always ends, never two at once, paused after every failure (with statistics floors)', () => {
    const totals = { runs: 0, verified: 0, hotJoins: 0, failedIn: {} as Record<string, number>, endedByClock: 0, disconnects: 0, caughtUp: 0, withRound: 0, playerSources: 0 };
    fc.assert(
      fc.property(sequences, ([steps, hostReloads, hostLoadsEarly]) => {
        const r = runSequence(steps, hostReloads, hostLoadsEarly);
        totals.runs++;
        totals.verified += r.verified;
        totals.hotJoins += r.hotJoins;
        totals.disconnects += r.disconnects;
        totals.caughtUp += r.caughtUp;
        totals.withRound += r.withRound;
        totals.playerSources += r.playerSources;
        if (r.wasRunning) totals.endedByClock++;
        for (const s of r.failedIn) totals.failedIn[s] = (totals.failedIn[s] ?? 0) + 1;
      }),
      { numRuns: 400, seed: 11 },
    );
    // Floors (seed 11, 400 runs; measured: see FLOORS).
    expect(totals.runs).toBe(400);
    expect(totals.verified).toBeGreaterThanOrEqual(FLOORS.verified);
    expect(totals.hotJoins).toBeGreaterThanOrEqual(FLOORS.hotJoins);
    expect(totals.endedByClock).toBeGreaterThanOrEqual(FLOORS.endedByClock);
    expect(totals.disconnects).toBeGreaterThanOrEqual(FLOORS.disconnects);
    expect(totals.caughtUp).toBeGreaterThanOrEqual(FLOORS.caughtUp);
    expect(totals.withRound).toBeGreaterThanOrEqual(FLOORS.withRound);
    expect(totals.playerSources).toBeGreaterThanOrEqual(FLOORS.playerSources);
    for (const state of ['Pausing', 'Saving', 'Transferring', 'Verifying']) {
      expect(totals.failedIn[state] ?? 0, `failures in ${state}`).toBeGreaterThanOrEqual(FLOORS.failedPerState);
    }
  });

  it('fc.statistics: the sequences end in every way (each label at least 2 % of runs)', () => {
    const lines: string[] = [];
    fc.statistics(
      sequences,
      ([steps, hostReloads, hostLoadsEarly]) => {
        const r = runSequence(steps, hostReloads, hostLoadsEarly);
        if (r.rounds === 0) return 'no round';
        const last = r.failedIn.length > 0 && r.verified === 0 ? `only failures (first in ${r.failedIn[0]})` : r.verified > 0 && r.failedIn.length > 0 ? 'verified and failed rounds' : 'only verified rounds';
        return last;
      },
      { numRuns: 300, seed: 12, logger: (line) => lines.push(line) },
    );
    const share = (label: string) => Number(lines.find((l) => l.startsWith(label))?.match(/(\d+(?:\.\d+)?)%$/)?.[1] ?? 0);
    for (const label of ['only verified rounds', 'verified and failed rounds', 'only failures (first in Pausing)', 'only failures (first in Saving)', 'only failures (first in Transferring)']) {
      expect(share(label), `${label}\n${lines.join('\n')}`).toBeGreaterThanOrEqual(2);
    }
  });
});

// Measured (seed 11, 400 runs): 217 verified rounds, 310 hot-join rounds, 220 runs ended by the clock alone, failures
// in Pausing 68, Saving 54, Transferring 83, Verifying 80; 108 disconnects, 28 returns caught up, 77 reloaded; 12
// rounds saved by a player (the repair source).
const FLOORS = { verified: 200, hotJoins: 280, endedByClock: 195, failedPerState: 45, disconnects: 95, caughtUp: 20, withRound: 70, playerSources: 10 };
