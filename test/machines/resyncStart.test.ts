// The resync round chart at a start with games at different times (spec "Outsiders"; issue 11 item 5), on its
// simulated clock: `session.started` with outsiders starts a round at once with the reason START_ROUND_REASON (no
// cooldown: the chart has none, like a hot join), which runs as any round does and resumes the speed of the start;
// a start at one time starts nothing.
import { describe, expect, it } from 'vitest';
import { START_ROUND_REASON } from '../../machines/resync.ts';
import { RESYNC_TIMEOUTS } from '../../machines/rules/resyncRound.ts';
import { startResync, toVerifying } from './resyncHarness.ts';

function withTwo() {
  const h = startResync();
  h.send({ type: 'player.joined', id: 1, name: 'alice' }, { type: 'player.joined', id: 2, name: 'bob' });
  return h;
}

describe('the round of a start with games at different times', () => {
  it('starts at once with its reason, pauses, and copies the host’s world to every player', () => {
    const h = withTwo();
    h.send({ type: 'session.started', speed: 1, outsiders: [2] });
    expect(START_ROUND_REASON).toBe('start: games at different times');
    expect(h.value()).toBe('{"Round":"Pausing"}');
    expect(h.ctx()).toMatchObject({ id: 1, reason: START_ROUND_REASON, started: true, speedBefore: 1, speed: 0 });
    expect(h.of('out.progress')).toEqual([{ type: 'out.progress', id: 1, state: 'Pausing', reason: START_ROUND_REASON }]);
    expect(h.of('out.pause')).toEqual([{ type: 'out.pause', id: 1 }]);
    toVerifying(h, 10_000);
    // bob (the outsider) and alice are participants: both get the save and say Hello after it.
    expect(h.of('out.announced')[0]!.participants).toEqual([1, 2]);
    expect(h.of('out.load').flatMap((l) => l.to)).toEqual([0, 1, 2]);
    h.send({ type: 'checksum.verified' });
    expect(h.value()).toBe('"Idle"');
    expect(h.of('out.succeeded')).toEqual([{ type: 'out.succeeded', id: 1, speed: 1 }]);
    expect(h.of('out.progress').at(-1)).toEqual({ type: 'out.progress', id: 1, state: 'Idle', reason: START_ROUND_REASON, participants: [1, 2], result: 'verified' });
  });

  it('a session started paused stays paused after the round', () => {
    const h = withTwo();
    h.send({ type: 'session.started', speed: 0, outsiders: [1, 2] });
    toVerifying(h);
    h.send({ type: 'checksum.verified' });
    expect(h.of('out.succeeded')).toEqual([{ type: 'out.succeeded', id: 1, speed: 0 }]);
  });

  it('a failed start round leaves the session paused like any other, and the next start is the host’s', () => {
    const h = withTwo();
    h.send({ type: 'session.started', speed: 2, outsiders: [2] });
    h.clock.increment(RESYNC_TIMEOUTS.pausing);
    expect(h.value()).toBe('"Idle"');
    expect(h.of('out.failed')).toMatchObject([{ id: 1, state: 'Pausing' }]);
    expect(h.ctx().speed).toBe(0);
    h.send({ type: 'cmd.start', reason: 'button' });
    expect(h.ctx()).toMatchObject({ id: 2, reason: 'button' });
  });

  it('a player joining before the file is announced takes part in it', () => {
    const h = withTwo();
    h.send({ type: 'session.started', speed: 1, outsiders: [2] });
    h.send({ type: 'player.joined', id: 3, name: 'carol' });
    expect(h.ctx().id).toBe(1);
    toVerifying(h);
    expect(h.of('out.announced')[0]!.participants).toEqual([1, 2, 3]);
  });

  it('a start at one time (no outsiders, or an empty list) starts no round', () => {
    for (const outsiders of [undefined, []]) {
      const h = withTwo();
      h.send({ type: 'session.started', speed: 1, ...(outsiders ? { outsiders } : {}) });
      expect(h.value()).toBe('"Idle"');
      expect(h.ctx()).toMatchObject({ started: true, id: 0, speed: 1 });
      expect(h.emitted).toEqual([]);
    }
  });

  it('Idle’s description names the start round', () => {
    const h = startResync();
    const idle = h.actor.logic.states.Idle!;
    expect(idle.description).toMatch(/start: games at different times/);
  });
});
