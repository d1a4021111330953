// Repairs seen from the checksum-rounds chart (machines/checksumRounds.ts; spec "Resync policy", "Action verdicts") on
// a simulated clock: a resync round that starts for another reason than the policy (the host's button, hot join) is
// the repair and forgets a decision remembered inside the cooldown; a resync forgets every open action, so a verdict
// that comes after it for an action from before asks for nothing.
import { describe, expect, it } from 'vitest';
import { startChart } from './checksumHarness.ts';

/** A repair by the policy (ReplayFailed at 1 s) that ends at 10 s: the cooldown runs to 130 s. */
function afterPolicyRepair() {
  const h = startChart();
  h.start();
  h.run(1_000);
  h.send({ type: 'recv.ReplayFailed', now: h.clock.now(), from: 1, payload: { detail: 'no such segment' } });
  expect(h.repairs()).toEqual(['replay failed on bo: no such segment']);
  h.send({ type: 'repair.started', now: h.clock.now(), byPolicy: true });
  h.run(9_000);
  h.send({ type: 'repair.ended', now: h.clock.now() });
  h.run(10_000);
  h.send({ type: 'recv.ReplayFailed', now: h.clock.now(), from: 1, payload: { detail: 'again' } }); // at 20 s
  expect(h.logs()).toContain('repair decided in the cooldown: remembered');
  return h;
}

describe('checksum rounds: repairs that are not the policy’s', () => {
  it('the control: a decision remembered in the cooldown starts at the first tick after it', () => {
    const h = afterPolicyRepair();
    h.run(109_900);
    expect(h.repairs()).toHaveLength(1);
    h.run(100);
    expect(h.repairs()).toEqual(['replay failed on bo: no such segment', 'replay failed on bo: again (waited for the cooldown)']);
  });

  it('the host’s button (repair.started, byPolicy false) forgets it: no repair after the cooldown, however long', () => {
    const h = afterPolicyRepair();
    h.run(10_000);
    h.send({ type: 'repair.started', now: h.clock.now(), byPolicy: false }); // at 30 s, inside the cooldown
    expect(h.logs()).toContain('remembered repair cancelled');
    h.run(200_000); // the cooldown ends at 130 s, the button's round is still running: nothing
    h.send({ type: 'repair.ended', now: h.clock.now() });
    h.run(300_000); // and after its own cooldown: nothing either
    expect(h.repairs()).toEqual(['replay failed on bo: no such segment']);
    expect(h.context().policy.pending).toBeUndefined();
  });
});

describe('checksum rounds: a resync forgets every open action', () => {
  /** host applied action 1:7; bo has not answered when `between` runs; then bo refuses it. */
  function lateRefusal(between: (h: ReturnType<typeof startChart>) => void) {
    const h = startChart();
    h.start();
    h.run(1_000);
    h.verdict(0, 7, true);
    expect(h.context().verdicts.open.has('1:7')).toBe(true);
    between(h);
    h.verdict(1, 7, false);
    h.run(300_000); // past any cooldown: a remembered decision would have started
    return h;
  }

  it('the control: without a resync between, the refusal differs from the host’s verdict and asks for a repair', () => {
    const h = lateRefusal((c) => c.run(1_000));
    expect(h.repairs()).toEqual(['verdicts of 1:7 differ']);
  });

  it('a resync beginning clears the book: the refusal after it is of an action the host forgot, and asks for nothing', () => {
    const h = lateRefusal((c) => {
      c.send({ type: 'repair.started', now: c.clock.now(), byPolicy: false });
      expect(c.context().verdicts.open.size).toBe(0);
      c.run(20_000);
      c.send({ type: 'repair.ended', now: c.clock.now() });
    });
    expect(h.logs().filter((m) => m.startsWith('verdicts of'))).toEqual([]);
    expect(h.repairs()).toEqual([]);
  });
});
