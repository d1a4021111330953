// A resync's verification round and the regular round still open from before the reload (spec "No overlap": "A
// resync's verification round drops a regular round still open from before the reload"), on the checksum-rounds
// chart (machines/checksumRounds.ts) with a simulated clock.
import { describe, expect, it } from 'vitest';
import { startChart } from './checksumHarness.ts';

const same = { money: 'm', edges: 'e', vehicles: 'v' };

/** Round 1 asked at 5 s; host reports, bo does not; a resync (the host's button) pauses the session at 6 s. */
function resyncWithRoundOpen() {
  const h = startChart();
  h.start();
  h.run(5_000);
  expect(h.requests()).toEqual([expect.objectContaining({ n: 1, paused: false })]);
  h.report(0, 1, same);
  h.run(1_000);
  h.send({ type: 'repair.started', now: h.clock.now(), byPolicy: false });
  h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 12_000 }); // the resync's pause: paused round 2
  h.run(14_000); // saved, sent, loaded: 20 s
  return h;
}

const ends = (h: ReturnType<typeof startChart>, n: number) => h.out.filter((e) => e.type === 'out.roundEnded' && e.n === n);

describe('checksum rounds: a resync’s verification round', () => {
  it('drops a regular round still open from before the reload, in the spec’s words, and asks the verification round', () => {
    const h = resyncWithRoundOpen();
    expect(h.context().regular?.n).toBe(1);
    h.send({ type: 'verify.requested', now: h.clock.now(), pauseAt: 12_000 });
    expect(h.logs()).toContain('checksum round 1 dropped: not reported by bo after 15 s');
    const drop = h.out.find((e) => e.type === 'out.log' && e.msg.startsWith('checksum round 1 dropped'));
    expect(drop).toMatchObject({ level: 'warn', n: 1, cause: 'the resync’s verification round' });
    expect(ends(h, 1)).toEqual([{ type: 'out.roundEnded', n: 1, paused: false, result: 'dropped', differences: [] }]);
    expect(h.context().regular).toBeUndefined();
    expect(h.value()).toMatchObject({ Started: { Regular: 'Idle', PausedRound: 'Open' } });
    expect(h.requests().at(-1)).toEqual({ n: 3, at: 12_000, paused: true });
  });

  it('its late reports are ignored; it never ends twice; the verification round completes on its own', () => {
    const h = resyncWithRoundOpen();
    h.send({ type: 'verify.requested', now: h.clock.now(), pauseAt: 12_000 });
    const ignored = h.context().ignoredReports;
    h.report(1, 1, { ...same, edges: 'old world' });
    expect(h.context().ignoredReports).toBe(ignored + 1);
    h.report(0, 3, same);
    h.report(1, 3, same);
    expect(ends(h, 3)).toEqual([expect.objectContaining({ result: 'identical', paused: true })]);
    h.run(60_000); // past the old round's 60 s timeout: nothing more of it
    expect(ends(h, 1)).toHaveLength(1);
    expect(h.logs().some((m) => m.includes('differs'))).toBe(false);
  });

  it('after the resync the regular rounds go on 5 s apart; the dropped round held no round up (no wait logged)', () => {
    const h = resyncWithRoundOpen();
    h.send({ type: 'verify.requested', now: h.clock.now(), pauseAt: 12_000 });
    h.report(0, 3, same);
    h.report(1, 3, same);
    h.send({ type: 'repair.ended', now: h.clock.now() });
    h.send({ type: 'session.running', now: h.clock.now(), speed: 2 });
    h.run(100);
    const regular = () => h.requests().filter((r) => !r.paused);
    expect(regular().map((r) => r.n)).toEqual([1, 4]);
    h.report(0, 4, same);
    h.report(1, 4, same);
    h.run(5_000);
    expect(regular().map((r) => r.n)).toEqual([1, 4, 5]);
    expect(h.logs().filter((m) => m.includes('waited for the previous one'))).toEqual([]);
  });

  it('with no regular round open nothing is dropped for it (an open paused round is replaced, as by any pause)', () => {
    const h = startChart();
    h.start();
    h.run(5_000);
    h.report(0, 1, same);
    h.report(1, 1, same);
    h.send({ type: 'session.paused', now: h.clock.now(), pauseAt: 12_000 });
    h.send({ type: 'verify.requested', now: h.clock.now(), pauseAt: 12_000 });
    // Only the open paused round is replaced (as by any new pause); nothing is dropped for the verification.
    expect(h.logs().filter((m) => m.includes('dropped'))).toEqual(['checksum round 2 dropped: not reported by host, bo after 0 s']);
    expect(h.out.filter((e) => e.type === 'out.log' && e.cause !== undefined)).toEqual([]);
    expect(h.requests().map((r) => [r.n, r.paused])).toEqual([[1, false], [2, true], [3, true]]);
  });
});
