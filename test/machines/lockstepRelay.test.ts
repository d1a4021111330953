// The host relay in the lockstep chart: PeerClock (12) to all but the origin and Action (50) to every game, its origin
// included (the origin applies its own action only with the host's copy), in the order the receivers must see them (prior-projects §2.6 H8), with allowed/category (spec "Action category and verdict"),
// the hop the host stamps ("Latency stamps"), and outsiders ("Outsiders").
import { describe, expect, it } from 'vitest';
import type { ActionPayload } from '../../protocol/messages/index.ts';
import { futureStamp } from '../../machines/rules/lockstep.ts';
import { ofType, runningHost, startHost } from './lockstepHarness.ts';
import type { Sent } from './lockstepHarness.ts';

const WALL = 1_790_000_000_000;
const action = (seq: number, extra: Partial<ActionPayload> = {}): ActionPayload => ({
  stamp: 12_000,
  seq,
  body: { op: 'build', seq },
  category: 'build',
  ...extra,
});

describe('PeerClock relay', () => {
  it('relays a clock to all but its origin, without speed and stop', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'cmd.pause', now: 40 }); // pauseAt 10 800: a need is taken while the session stands still
    host.take();
    host.clockOf(1, 10_200, 50, { need: 10_800, pause: 3, stop: true });
    expect(host.sent()).toEqual([
      {
        type: 'send.PeerClock',
        to: 'allBut',
        except: 1,
        payload: { from: 1, t: 10_200, ahead: 2, need: 10_800, safe: 10_600, pause: 3 },
      },
    ]);
  });

  it('keeps an origin’s Action before its next PeerClock', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'recv.Action', from: 1, payload: action(1), now: 10 });
    host.clockOf(1, 10_200, 11);
    host.send({ type: 'recv.Action', from: 1, payload: action(2), now: 12 });
    host.clockOf(1, 10_400, 13);
    const label = (e: Sent) => {
      if (e.type === 'send.Action') return `action ${e.payload.seq}`;
      return e.type === 'send.PeerClock' ? `clock ${e.payload.t}` : e.type;
    };
    const order = host.sent().map(label);
    expect(order).toEqual(['action 1', 'clock 10200', 'action 2', 'clock 10400']);
  });

  it('stamps the hop: keeps g and l, drops w/ro/rr, sets h, so and sr', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'rtt.updated', maxRtt: 40, rtt: { 1: 40 }, off: { 1: -25 } });
    const hop = { g: WALL - 60, l: WALL - 50, w: WALL, ro: 3, rr: 4, h: 1 };
    host.send({ type: 'recv.Clock', from: 1, payload: { t: 10_200, speed: 1, ahead: 2, hop }, now: 5, wall: WALL });
    const [relayed] = ofType(host.take(), 'send.PeerClock');
    expect(relayed!.payload.hop).toEqual({ g: WALL - 60, l: WALL - 50, h: WALL, so: -25, sr: 40 });
  });

  it('does not relay a clock before the game’s Hello, nor anything from a game that never joined', () => {
    const host = runningHost([0]);
    host.send({ type: 'game.joined', id: 4, now: 0 });
    host.clockOf(4, 10_000, 1).clockOf(4, 10_200, 2).clockOf(9, 10_000, 3);
    const out = host.take();
    expect(ofType(out, 'send.PeerClock')).toEqual([]);
    expect(ofType(out, 'out.log').map((e) => e.msg)).toEqual([
      'clock before hello not relayed',
      'message from a game that has not joined',
    ]);
  });
});

describe('Action relay', () => {
  it('relays to every game, its origin included (its copy), with from, allowed and the normalised category', () => {
    const host = runningHost([0, 1, 2], 10_000, { permissions: { build: { only: [2] }, bulldoze: 'hostOnly' } });
    const payload = action(7, { category: 'terraform', from: 99, allowed: true, pauseSeq: 5, pauseUpto: 6 });
    host.send({ type: 'recv.Action', from: 1, payload, now: 1 });
    expect(host.sent()).toEqual([
      {
        type: 'send.Action',
        to: 'all',
        payload: { stamp: 12_000, seq: 7, body: { op: 'build', seq: 7 }, category: 'other', from: 1, allowed: true },
      },
    ]);
  });

  it('relays a forbidden action too (allowed: false) and logs the first per player and category', () => {
    const host = runningHost([0, 1, 2], 10_000, { permissions: { build: { only: [2] }, bulldoze: 'hostOnly' } });
    host.send({ type: 'recv.Action', from: 1, payload: action(1), now: 1 });
    host.send({ type: 'recv.Action', from: 1, payload: action(2), now: 2 });
    host.send({ type: 'recv.Action', from: 1, payload: action(3, { category: 'bulldoze' }), now: 3 });
    host.send({ type: 'recv.Action', from: 2, payload: action(1), now: 4 });
    host.send({ type: 'recv.Action', from: 0, payload: action(1, { category: 'bulldoze' }), now: 5 });
    const out = host.take();
    expect(ofType(out, 'send.Action').map((e) => [e.payload.from, e.payload.seq, e.payload.allowed])).toEqual([
      [1, 1, false],
      [1, 2, false],
      [1, 3, false],
      [2, 1, true],
      [0, 1, true],
    ]);
    expect(ofType(out, 'out.log').map((e) => [e.msg, e.from, e.category])).toEqual([
      ['forbidden action relayed', 1, 'build'],
      ['forbidden action relayed', 1, 'bulldoze'],
    ]);
  });

  it('refuses (a host veto to all) an ordinary action without a stamp, and one from a game that is not ready', () => {
    const host = runningHost([0, 1]);
    host.send({ type: 'game.joined', id: 3, now: 0 });
    host.send({ type: 'recv.Action', from: 1, payload: action(1, { stamp: undefined }), now: 1 });
    host.send({ type: 'recv.Action', from: 3, payload: action(1), now: 2 });
    const out = host.take();
    expect(ofType(out, 'send.Action')).toEqual([]);
    // A veto, never a silent drop: the originator waits at the stamp for the host's copy of its own action.
    expect(ofType(out, 'send.BuildVeto').map((e) => [e.payload.owner, e.payload.seq])).toEqual([
      [1, 1],
      [3, 1],
    ]);
    expect(ofType(out, 'out.log').map((e) => e.msg)).toEqual([
      'action without a stamp refused',
      'action refused',
      'action from a game not ready refused',
      'action refused',
    ]);
  });
});

describe('outsiders', () => {
  it('a game that says hello in a started session is an outsider: relayed stalled, no stamp, refused', () => {
    const host = runningHost([0, 1], 10_000);
    host.send({ type: 'game.joined', id: 2, now: 100 });
    host.send({ type: 'recv.Hello', from: 2, payload: { time: 50_000 }, now: 100 });
    host.clockOf(2, 50_000, 100, { need: 50_400 });
    expect(ofType(host.take(), 'send.PeerClock').map((e) => e.payload)).toEqual([
      { from: 2, t: 50_000, ahead: 2, stalled: true },
    ]);
    // It counts for no stamp: the pause is futureStamp over games 0 and 1 (at 10 000, speed 0).
    host.send({ type: 'cmd.pause', now: 100 });
    expect(host.context().session.pauseAt).toBe(futureStamp(10_000, host.context().session.lead));
    host.take();
    // Its action is refused on every game with a host BuildVeto and not relayed.
    host.send({ type: 'recv.Action', from: 2, payload: action(4), now: 200 });
    expect(host.sent()).toEqual([
      {
        type: 'send.BuildVeto',
        to: 'all',
        payload: {
          seq: 4,
          owner: 2,
          why: "the game's world is not the session's yet",
          from: 0,
          name: 'host',
          host: true,
        },
      },
    ]);
  });

  it('a player that joined before the start and stands with the others is not an outsider', () => {
    const host = startHost({ hostName: 'Ada' });
    host.ready(0, 0).ready(1, 0).send({ type: 'cmd.start' });
    host.send({ type: 'recv.Action', from: 1, payload: action(1, { stamp: 800 }), now: 1 });
    expect(ofType(host.take(), 'send.Action')).toHaveLength(1);
  });
});
