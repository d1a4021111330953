// A session that starts with games at different times (spec "Outsiders": "every game but the host's when the session
// starts with games at different times"; issue 11 item 5), on the lockstep chart with its simulated clock: the host's
// game is the reference; every ready game whose clock or Hello stands at another time starts as an outsider (hasWorld
// false: no stamp, no pause, relayed stalled with no safe, its actions refused with a host BuildVeto), the session
// starts at once and `startApart` tells the resync actor; the Hello of the round's load ends the mark. A start at
// one time is as before; a relay-only host (no world to copy) still waits for one time.
import { describe, expect, it } from 'vitest';
import type { ActionPayload } from '../../protocol/messages/index.ts';
import { futureStamp, STEP } from '../../machines/rules/lockstep.ts';
import { ofType, startHost } from './lockstepHarness.ts';
import type { Emitted } from './lockstepHarness.ts';

const build = (seq: number, stamp: number): ActionPayload => ({ stamp, seq, body: { op: 'build', seq }, category: 'build' });
const label = (e: Emitted) =>
  e.type === 'send.PeerClock' ? `clock ${e.payload.from}` : e.type === 'out.log' ? `log ${e.msg}` : e.type;

/** Host's game and game 1 at 10 000, game 2 at 13 400 (another save), all standing still. */
function apartHost(input: Parameters<typeof startHost>[0] = {}) {
  const host = startHost(input);
  host.ready(0, 10_000).ready(1, 10_000).ready(2, 13_400);
  host.take();
  return host;
}

describe('a start with games at different times', () => {
  it('starts at once at the host game’s time; the game that stands apart is an outsider', () => {
    const host = apartHost();
    host.send({ type: 'cmd.start', now: 50 });
    expect(host.value()).toBe('Running');
    const { games, startApart, session } = host.context();
    expect([0, 1, 2].map((id) => games[id]!.hasWorld)).toEqual([true, true, false]);
    expect(startApart).toEqual({ t: 10_000, outsiders: [{ id: 2, t: 13_400 }] });
    expect(session.started).toBe(true);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Outsider');
    expect(host.pacing(1)!.getSnapshot().value).toBe('Pacing');
    const out = host.take();
    // Every clock goes out again before the Session that starts the games; the outsider's flagged stalled, no safe.
    expect(out.filter((e) => e.type !== 'out.log').map(label)).toEqual(['clock 0', 'clock 1', 'clock 2', 'send.Session']);
    expect(ofType(out, 'send.PeerClock').find((e) => e.payload.from === 2)!.payload).toEqual({ from: 2, t: 13_400, ahead: 2, stalled: true });
    expect(ofType(out, 'send.Session')[0]!.payload).toMatchObject({ started: true, speed: 1 });
    expect(ofType(out, 'out.log')).toEqual([
      {
        type: 'out.log',
        msg: "session started with games at different times: outsiders until a resync round loads the host game's world",
        t: 10_000,
        outsiders: [{ id: 2, t: 13_400 }],
      },
    ]);
  });

  it('the outsider counts for no stamp and holds no pause; its actions are refused on every game', () => {
    const host = apartHost();
    host.send({ type: 'cmd.start', now: 0 });
    host.clockOf(0, 10_000, 0).clockOf(1, 10_000, 0).clockOf(2, 13_400, 0);
    host.take();
    // Its clock is relayed stalled without safe or need.
    host.clockOf(2, 13_600, 10, { need: 14_000 });
    expect(host.sent()).toEqual([{ type: 'send.PeerClock', to: 'allBut', except: 2, payload: { from: 2, t: 13_600, ahead: 2, stalled: true } }]);
    // Its action: the host's BuildVeto to every game, nothing relayed.
    host.send({ type: 'recv.Action', from: 2, payload: build(1, 14_000), now: 20 });
    expect(host.sent()).toEqual([
      { type: 'send.BuildVeto', to: 'all', payload: { seq: 1, owner: 2, why: "the game's world is not the session's yet", from: 0, name: 'host', host: true } },
    ]);
    // A pause stops at futureStamp over the session's world (the host's game and game 1 at speed 1 since 0), not
    // over the outsider standing 3 400 game-ms further.
    host.clock.increment(1_000);
    host.send({ type: 'cmd.pause', now: 1_000 });
    const lead = host.context().session.lead;
    expect(host.context().session.pauseAt).toBe(futureStamp(11_000, lead));
    // The pause order flushes once the games of the world stopped: the outsider is not waited for.
    const pauseAt = host.context().session.pauseAt!;
    host.send({ type: 'recv.Action', from: 1, payload: { seq: 7, body: { op: 'rename' }, pause: true }, now: 1_100 });
    host.clockOf(0, pauseAt, 1_200, { speed: 0, stop: true }).clockOf(1, pauseAt, 1_200, { speed: 0, stop: true });
    host.take();
    host.send({ type: 'tick', now: 1_300 });
    expect(ofType(host.take(), 'send.Action').map((e) => [e.payload.from, e.payload.stamp])).toEqual([[1, pauseAt]]);
  });

  it('the Hello of the round’s load ends the mark: the game paces and is paced to again', () => {
    const host = apartHost();
    host.send({ type: 'cmd.start', now: 0 });
    host.take();
    // A fresh Hello (not the load's) keeps it an outsider.
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 13_400 }, now: 5 });
    expect(host.context().games[2]!.hasWorld).toBe(false);
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 10_400, save: 'feverlink3-resync-1' }, now: 10, loaded: true });
    expect(host.context().games[2]!.hasWorld).toBe(true);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Pacing');
    host.take();
    host.clockOf(2, 10_400, 20, { speed: 0 });
    expect(host.sent()).toEqual([{ type: 'send.PeerClock', to: 'allBut', except: 2, payload: { from: 2, t: 10_400, ahead: 2, safe: 10_800 } }]);
    host.send({ type: 'recv.Action', from: 2, payload: build(2, 11_000), now: 30 });
    expect(ofType(host.take(), 'send.Action').map((e) => e.payload.from)).toEqual([2]);
  });

  it('started paused: pauseAt is the host game’s time, whatever the outsider’s', () => {
    const host = apartHost({ startSpeed: 0 });
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.value()).toBe('Paused');
    expect(host.sessionNow()).toMatchObject({ started: true, speed: 0, pauseAt: 10_000 });
    expect(host.context().games[2]!.hasWorld).toBe(false);
    expect(ofType(host.take(), 'out.log').map((e) => e.msg)).toEqual([
      "session started paused with games at different times: outsiders until a resync round loads the host game's world",
    ]);
  });

  it('a game whose Hello named another time is an outsider even when its clock stands at the host’s', () => {
    const host = startHost();
    host.ready(0, 10_000);
    host.send({ type: 'game.joined', id: 1, now: 0 }).send({ type: 'recv.Hello', from: 1, payload: { time: 9_000 }, now: 0 });
    host.clockOf(1, 10_000, 0, { speed: 0 });
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.context().startApart).toEqual({ t: 10_000, outsiders: [{ id: 1, t: 10_000, helloTime: 9_000 }] });
    expect(host.context().games[1]!.hasWorld).toBe(false);
  });

  it('compares every ready game with the host’s; several outsiders, each with its time', () => {
    const host = startHost();
    host.ready(0, 10_000).ready(3, 10_000 - 5 * STEP).ready(1, 10_000).ready(2, 20_000);
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.context().startApart).toEqual({ t: 10_000, outsiders: [{ id: 2, t: 20_000 }, { id: 3, t: 9_000 }] });
    expect(host.context().games[1]!.hasWorld).toBe(true);
  });

  it('a game not ready at the start is not compared: its Hello after the start makes it an outsider as before', () => {
    const host = startHost();
    host.ready(0, 10_000).ready(1, 10_000);
    host.send({ type: 'game.joined', id: 2, now: 0 });
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.value()).toBe('Running');
    expect(host.context().startApart).toBeUndefined();
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 13_000 }, now: 10 });
    expect(host.context().games[2]!.hasWorld).toBe(false);
    expect(host.context().startApart).toBeUndefined();
  });

  it('a start at one time is as before: no outsider, no startApart, the log line unchanged', () => {
    const host = startHost();
    host.ready(0, 10_000).ready(1, 10_000).ready(2, 10_000);
    host.take();
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.context().startApart).toBeUndefined();
    expect(Object.values(host.context().games).every((g) => g.hasWorld)).toBe(true);
    expect(ofType(host.take(), 'out.log').map((e) => e.msg)).toEqual(['session started']);
  });

  it('a relay-only host has no world to copy: it waits until the players stand at one time', () => {
    const host = startHost({ hostGame: false });
    host.ready(1, 10_000).ready(2, 13_400);
    host.take();
    host.send({ type: 'cmd.start', now: 0 });
    expect(host.value()).toBe('NotStarted');
    expect(ofType(host.take(), 'out.waiting').map((e) => e.reason)).toEqual([
      'the games stand at different times (game 1 at 10000; 2 at 13400); every game must load the same save ' +
        '(a host without a game of its own has no world to copy)',
    ]);
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 10_000 }, now: 10 });
    host.clockOf(2, 10_000, 10, { speed: 0 });
    expect(host.value()).toBe('Running');
    expect(host.context().startApart).toBeUndefined();
  });
});
