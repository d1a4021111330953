// The checksum-rounds chart (machines/checksumRounds.ts; spec "No overlap", "Light rounds", "Spread full rounds",
// "Chunk size and detail", "Resync policy", "Action verdicts") on a simulated clock: every timeout (the 5 s schedule,
// the 10 s mark of an overdue round, the 60 s drop of a regular and of a paused round), the requests it asks and
// what it logs in the spec's words. Model paths are in checksumRoundsModel.test.ts.
import { describe, expect, it } from 'vitest';
import { checksumRoundsMachine } from '../../machines/checksumRounds.ts';
import { GAMES, startChart } from './checksumHarness.ts';

const same = { money: 'm', edges: 'e', vehicles: 'v' };

describe('checksum rounds chart', () => {
  it('asks nothing before the session starts, however long', () => {
    const h = startChart();
    h.run(60_000);
    h.send({ type: 'recv.ReplayFailed', now: h.clock.now(), from: 1, payload: { detail: 'x' } });
    expect(h.value()).toBe('NotStarted');
    expect(h.out).toEqual([]);
  });

  it('asks a regular round every 5 s at the future stamp: full, spread over speed steps, from the first tick after the timer', () => {
    const h = startChart();
    h.start();
    h.run(4_900);
    expect(h.requests()).toEqual([]);
    h.run(100);
    expect(h.requests()).toEqual([{ n: 1, at: h.context().at, paused: false, spread: 2 }]);
    expect(h.context().regular).toMatchObject({ n: 1, waiting: [0, 1] });
    h.report(0, 1, same);
    h.report(1, 1, same);
    expect(h.out.at(-1)).toMatchObject({ type: 'out.roundEnded', n: 1, result: 'identical' });
    h.run(5_000);
    expect(h.requests().map((r) => r.n)).toEqual([1, 2]);
  });

  it('no overlap: a round still open at 5 s makes the next wait for the 10 s mark and the last report; logged at most once a minute', () => {
    const h = startChart();
    h.start();
    h.run(5_000); // round 1 asked at 5 s
    h.run(5_000);
    expect(h.value()).toMatchObject({ Started: { Schedule: 'Overdue' } });
    h.report(0, 1, same);
    h.report(1, 1, same); // complete at 10 s; the 10 s mark is 15 s
    h.run(4_900);
    expect(h.requests()).toHaveLength(1);
    h.run(100);
    expect(h.requests()).toHaveLength(2);
    expect(h.logs()).toContain('checksum: 1 round(s) waited for the previous one in the last 5 s (longest wait 5 s)');
    // Round 2 stays open 20 s: the next starts at the first tick after its last report.
    h.run(20_000);
    h.report(0, 2, same);
    h.report(1, 2, same);
    h.run(100);
    expect(h.requests()).toHaveLength(3);
    // Both waits within a minute of the first line: no second line yet.
    expect(h.logs().filter((m) => m.includes('waited for the previous one'))).toHaveLength(1);
    for (let k = 0; k < 4; k++) {
      const n = h.context().regular!.n;
      h.run(12_000);
      h.report(0, n, same);
      h.report(1, n, same);
      h.run(100);
    }
    expect(h.logs().filter((m) => m.includes('waited for the previous one')).at(-1)).toMatch(
      /^checksum: \d round\(s\) waited for the previous one in the last (6\d) s \(longest wait 1\d(\.\d)? s\)$/,
    );
  });

  it('drops a round not complete after 60 s in the spec’s words; its late reports are ignored', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    h.report(0, 1, same);
    h.run(59_900);
    expect(h.context().regular?.n).toBe(1);
    h.run(100);
    expect(h.logs()).toContain('checksum round 1 dropped: not reported by bo after 60 s');
    expect(h.out.filter((e) => e.type === 'out.roundEnded')).toEqual([{ type: 'out.roundEnded', n: 1, paused: false, result: 'dropped', differences: [] }]);
    h.report(1, 1, { ...same, edges: 'other' });
    expect(h.context().ignoredReports).toBe(1);
    expect(h.logs().some((m) => m.includes('differs'))).toBe(false);
    h.run(200);
    expect(h.requests().at(-1)!.n).toBe(2);
  });

  it('a game that leaves is no longer waited for', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    h.report(0, 1, same);
    h.games = [GAMES[0]!];
    h.send({ type: 'game.left', now: h.clock.now(), id: 1 });
    expect(h.out.at(-1)).toMatchObject({ type: 'out.roundEnded', n: 1, result: 'identical' });
  });

  it('a pause asks one paused round at pauseAt (hashed whole) and no regular round while paused; it is dropped after 60 s', () => {
    const h = startChart();
    h.start();
    h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 9_800 });
    expect(h.requests()).toEqual([{ n: 1, at: 9_800, paused: true }]);
    h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 9_800 }); // the same pause: nothing new
    h.run(30_000);
    expect(h.requests()).toHaveLength(1);
    h.report(0, 1, same);
    h.run(30_000);
    expect(h.logs()).toContain('checksum round 1 dropped: not reported by bo after 60 s');
    h.send({ type: 'session.running', now: h.clock.now(), speed: 4 });
    h.run(100);
    expect(h.requests()[1]).toMatchObject({ n: 2, paused: false, spread: 4 });
  });

  it('a paused round does not hold up the timer; a new pause replaces an open paused round', () => {
    const h = startChart();
    h.start();
    h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 9_800 });
    h.send({ type: 'session.running', now: h.clock.now(), speed: 1 });
    h.run(5_000);
    expect(h.requests().map((r) => [r.n, r.paused])).toEqual([[1, true], [2, false]]);
    h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 20_000 });
    expect(h.logs()).toContain('checksum round 1 dropped: not reported by host, bo after 5 s');
    expect(h.context().paused).toMatchObject({ n: 3, at: 20_000 });
  });

  it('a session that starts paused asks its paused round at once', () => {
    const h = startChart();
    h.tick();
    h.send({ type: 'session.paused', now: 0, pauseAt: 4_000 });
    expect(h.requests()).toEqual([{ n: 1, at: 4_000, paused: true }]);
  });

  it('light rounds: with fullChecksumEvery 3 the first and every third regular round are full', () => {
    const h = startChart({ fullChecksumEvery: 3 });
    h.start();
    for (let k = 1; k <= 5; k++) {
      h.run(5_000);
      h.report(0, k, same);
      h.report(1, k, same);
    }
    expect(h.requests().map((r) => [r.full, r.spread])).toEqual([
      [undefined, 2],
      [false, undefined],
      [false, undefined],
      [undefined, 2],
      [false, undefined],
    ]);
  });

  it('a difference is named by part and since when; detail rounds follow until one is identical; two rounds ask for a repair', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    h.report(0, 1, same);
    h.report(1, 1, { ...same, edges: 'forked' });
    expect(h.logs()).toContain('checksum round 1 differs: edges (since round 1: host: e | bo: forked)');
    h.run(5_000);
    expect(h.requests()[1]).toMatchObject({ n: 2, detail: true });
    h.report(0, 2, same);
    h.report(1, 2, { ...same, edges: 'forked' });
    expect(h.logs()).toContain('checksum round 2 differs: edges (since round 1: host: e | bo: forked)');
    expect(h.repairs()).toEqual(['parts edges differ in 2 rounds in a row']);
    h.run(5_000);
    h.report(0, 3, same);
    h.report(1, 3, same);
    h.run(5_000);
    expect(h.requests()[3]!.detail).toBeUndefined();
  });

  it('money is corrected with the host game’s Authority values and never asks for a repair', () => {
    const h = startChart();
    h.start();
    for (let n = 1; n <= 5; n++) {
      h.run(5_000);
      h.report(0, n, { ...same, money: 'a' }, { authority: { money: 1000, loan: 0 } });
      h.report(1, n, { ...same, money: 'b' }, { authority: { money: 990, loan: 0 } });
    }
    const authority = h.out.filter((e) => e.type === 'send.Authority');
    expect(authority).toHaveLength(5);
    expect(authority[0]).toEqual({ type: 'send.Authority', payload: { n: 1, values: { money: 1000 } }, source: 0 });
    expect(h.repairs()).toEqual([]);
  });

  it('skips a round whose reports are at another time as time_skew', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    const at = h.context().regular!.at;
    h.report(0, 1, same);
    h.send({ type: 'recv.ChecksumReport', now: h.clock.now(), from: 1, payload: { n: 1, time: at + 400, parts: { edges: 'x' } } });
    expect(h.logs()).toContain(`checksum round 1 skipped: time_skew (at ${at}; host ${at}, bo ${at + 400})`);
    expect(h.out.at(-1)).toMatchObject({ result: 'time_skew' });
  });

  it('sizes the chunk from the reported costs, the same for every game, and logs the change', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    h.report(0, 1, same, { cost: { entityNs: 20_000, stepMaxUs: 4_000, chunk: 200 } });
    h.report(1, 1, same, { cost: { entityNs: 40_000, stepMaxUs: 8_000, chunk: 200 } });
    expect(h.logs()).toContain('checksum chunk: 300 entities a step from now on (slowest bo: 40.00 µs an entity, was 200)');
    h.run(5_000);
    expect(h.requests()[1]).toMatchObject({ spread: 2, chunk: 300 });
  });

  it('differing verdicts and ReplayFailed ask for a repair at once; inside the cooldown it waits for the first tick after it', () => {
    const h = startChart();
    h.start();
    const verdict = (from: number, applied: boolean) =>
      h.send({ type: 'recv.ActionRefused', now: h.clock.now(), from, payload: { from: 1, seq: 4, ...(applied ? { applied } : { detail: 'no', class: 'engine' }) } });
    verdict(0, true);
    verdict(1, false);
    expect(h.repairs()).toEqual(['verdicts of 1:4 differ']);
    h.run(1_000);
    h.send({ type: 'recv.ReplayFailed', now: h.clock.now(), from: 1, payload: { detail: 'no such segment' } });
    expect(h.logs()).toContain('repair decided in the cooldown: remembered');
    h.run(118_900);
    expect(h.repairs()).toHaveLength(1);
    h.run(100);
    expect(h.repairs()).toEqual(['verdicts of 1:4 differ', 'replay failed on bo: no such segment (waited for the cooldown)']);
  });

  it('verdicts and ReplayFailed of a game outside the session’s world ask for nothing', () => {
    const h = startChart();
    h.start();
    const now = h.clock.now();
    h.send({ type: 'recv.ActionRefused', now, from: 0, payload: { from: 1, seq: 4, applied: true } });
    h.send({ type: 'recv.ActionRefused', now, from: 5, payload: { from: 1, seq: 4, detail: 'no', class: 'engine' } });
    h.send({ type: 'recv.ReplayFailed', now, from: 5, payload: { detail: 'other world' } });
    expect(h.repairs()).toEqual([]);
    expect(h.context().verdicts.open.get('1:4')?.verdicts.size).toBe(1);
  });

  it('a part left out as notReady is not compared; one that stays so for 300 s is logged once', () => {
    const h = startChart();
    h.start();
    for (let n = 1; n <= 62; n++) {
      h.run(5_000);
      h.report(0, n, same);
      h.report(1, n, { money: 'm', edges: 'e' }, { notReady: ['vehicles'] });
    }
    expect(h.repairs()).toEqual([]);
    expect(h.logs().filter((m) => m.startsWith('checksum: part vehicles not ready'))).toEqual([
      'checksum: part vehicles not ready for 300 s; it is left out of every round',
    ]);
  });

  it('every waiting state says what it waits for and on whom', () => {
    const { states } = checksumRoundsMachine.root;
    const started = states.Started!.states;
    expect(states.NotStarted!.description).toMatch(/Waits for the lockstep to start the session/);
    expect(started.Schedule!.states.Counting!.description).toMatch(/Waits checksumSeconds \(5 s/);
    expect(started.Schedule!.states.Overdue!.description).toMatch(/games in context\.regular\.waiting.*10 s mark/s);
    expect(started.Schedule!.states.Due!.description).toMatch(/waits for the first host tick.*context\.regular\.waiting/s);
    expect(started.Regular!.states.Idle!.description).toMatch(/waits for the schedule/);
    expect(started.Regular!.states.Open!.description).toMatch(/ChecksumReport of every game in context\.regular\.waiting.*60 s/s);
    expect(started.PausedRound!.states.Idle!.description).toMatch(/waits for a pause/);
    expect(started.PausedRound!.states.Open!.description).toMatch(/every game in context\.paused\.waiting.*60 s/s);
  });
});
