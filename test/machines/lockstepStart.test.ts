// At the start the host sends every game's latest clock again before the Session that starts the games, so a
// game that joined after the others' last Clock still paces itself to every peer from its first step.
import { describe, expect, it } from 'vitest';
import { startHost } from './lockstepHarness.ts';

describe('lockstep start', () => {
  it('replays each game’s latest PeerClock to all but that game, then the started Session', () => {
    const host = startHost();
    host.ready(0, 1000).ready(1, 1000).ready(2, 1000);
    host.take();
    host.send({ type: 'cmd.start', now: 0 });
    const sent = host.sent();
    const kinds = sent.map((e) => e.type);
    const sessionAt = kinds.indexOf('send.Session');
    expect(sessionAt).toBeGreaterThan(0);
    const clocks = sent.slice(0, sessionAt).filter((e) => e.type === 'send.PeerClock');
    expect(clocks.map((e) => (e as { except: number }).except).sort()).toEqual([0, 1, 2]);
    for (const e of clocks) expect(e).toMatchObject({ payload: { t: 1000, safe: 1400 } });
    expect(sent[sessionAt]).toMatchObject({ payload: { started: true } });
  });
});

describe('relay-only host (no game of its own)', () => {
  it('starts once the players’ games agree, without waiting for game 0', () => {
    const host = startHost({ hostGame: false });
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.value()).toBe('NotStarted');
    host.ready(1, 2000).ready(2, 2000);
    expect(host.value()).toBe('Running');
  });

  it('a host with a game still waits for it', () => {
    const host = startHost();
    host.send({ type: 'cmd.start', now: 0 });
    host.ready(1, 2000).ready(2, 2000);
    expect(host.value()).toBe('NotStarted');
    expect(host.context().waiting).toBe("the host's game has not said hello yet");
  });
});
