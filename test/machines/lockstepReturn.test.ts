// A game that came back caught up (issue 12; wire-protocol "Reconnect", "Catching up"; lockstep.md "Catching up",
// "Stalls and outsiders"): the session sends the lockstep `game.returned` after the `game.left` of the drop. The
// game is added again ready with the session's world and, in a started session, catches up as a stalled game: marked
// at once with the host's promise = futureStamp at the return, listed in Session.stalled, relayed stalled with that
// promise, its actions below it refused with the host's BuildVeto, no pause held; the mark ends when its clock
// reaches the promise (`out.caughtUp` once; HostLockstep.onCaughtUp). Before the start it is just ready, unmarked.
// Time is the events' `now` (a simulated clock where an actor needs one): nothing sleeps.
import { describe, expect, it } from 'vitest';
import { attachLockstep } from '../../actors/host/hostLockstep.ts';
import type { HostSession } from '../../actors/host/hostSession.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { futureStamp, movedSinceMark, STEP, updateStalls } from '../../machines/rules/lockstep.ts';
import type { GameView } from '../../machines/rules/lockstepTypes.ts';
import * as steps from '../../machines/rules/lockstepSteps.ts';
import type { ActionPayload, ClockPayload } from '../../protocol/messages/index.ts';
import { ofType, runningHost, startHost, type Emitted } from './lockstepHarness.ts';

const label = (e: Emitted) => (e.type === 'out.log' ? `log ${e.msg}` : e.type);
const action = (seq: number, stamp: number): ActionPayload => ({ seq, stamp, body: { op: 'build', seq }, category: 'build' });

/**
 * Games 0, 1, 2 run from 10 000; game 2's connection drops at 1 000 ms (game.left); 0 and 1 run on and report
 * 12 000 at 2 000 ms; game 2 comes back at 2 000 ms. Returns the host and the promise the return must give.
 */
function returned() {
  const host = runningHost([0, 1, 2], 10_000);
  host.clockOf(0, 10_200, 200, { speed: 1 }).clockOf(1, 10_200, 200, { speed: 1 }).clockOf(2, 10_200, 200, { speed: 1 });
  host.send({ type: 'game.left', id: 2, now: 1_000 });
  host.clockOf(0, 12_000, 2_000, { speed: 1 }).clockOf(1, 12_000, 2_000, { speed: 1 });
  host.take();
  const lead = host.context().session.lead;
  const promise = futureStamp(12_000, lead);
  host.send({ type: 'game.returned', id: 2, now: 2_000 });
  return { host, lead, promise };
}

describe('a game that came back caught up (game.returned)', () => {
  it('comes back an outsider when it dropped as one (hasWorld false): no mark, its pacing Outsider, its actions vetoed', () => {
    const host = runningHost([0, 1, 2], 10_000);
    host.send({ type: 'game.left', id: 2, now: 1_000 });
    host.take();
    host.send({ type: 'game.returned', id: 2, now: 2_000, hasWorld: false });
    const game = host.context().games[2]!;
    expect(game).toMatchObject({ id: 2, ready: true, hasWorld: false });
    expect(game.stalled).toBeUndefined();
    expect(host.context().returning).toEqual([]);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Outsider');
    expect(host.take().map(label)).toEqual(['log game returned: still an outsider']);
  });

  it('is ready with the session’s world and stalled at once with promise = futureStamp at the return', () => {
    const { host, lead, promise } = returned();
    const game = host.context().games[2]!;
    expect(game).toMatchObject({ id: 2, ready: true, hasWorld: true, stalled: { promise, since: 2_000 } });
    expect(game.stalled).not.toHaveProperty('t'); // where it stands is unknown until its first clock
    expect(game.clock).toBeUndefined();
    expect(host.context().returning).toEqual([2]);
    // Its pacing chart is there again, stalled with the same mark; the pause order does not wait for it.
    expect(host.pacing(2)!.getSnapshot().value).toBe('Stalled');
    expect(host.pacing(2)!.getSnapshot().context.mark).toEqual(game.stalled);
    const out = host.take();
    expect(out.map(label)).toEqual(['log game returned: it catches up as a stalled game', 'send.Session']);
    expect(out[1]).toEqual({ type: 'send.Session', to: 'all', payload: { started: true, speed: 1, lead, stalled: [2] } });
    expect(host.sessionNow().stalled).toEqual([2]);
  });

  it('relays its first clock flagged stalled with the host’s promise as safe', () => {
    const { host, promise } = returned();
    host.take();
    host.clockOf(2, 10_800, 2_100, { speed: 1 });
    expect(host.sent()).toEqual([
      { type: 'send.PeerClock', to: 'allBut', except: 2, payload: { from: 2, t: 10_800, ahead: 2, safe: promise, stalled: true } },
    ]);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Stalled');
  });

  it('refuses its actions stamped below the promise with the host’s BuildVeto, relays those at or above it', () => {
    const { host, promise } = returned();
    host.clockOf(2, 10_800, 2_100, { speed: 1 });
    host.take();
    host.send({ type: 'recv.Action', from: 2, payload: action(7, promise - STEP), now: 2_150 });
    host.send({ type: 'recv.Action', from: 2, payload: action(8, promise), now: 2_160 });
    const sent = host.sent();
    expect(sent.map((e) => e.type)).toEqual(['send.BuildVeto', 'send.Action']);
    expect(sent[0]).toEqual({
      type: 'send.BuildVeto',
      to: 'all',
      payload: { seq: 7, owner: 2, why: 'stamped below the host promise for the stalled game', from: 0, name: 'host', host: true },
    });
    // (To whom an Action goes is onAction's business: only that it is relayed, unchanged in stamp, is checked.)
    expect(sent[1]).toMatchObject({ type: 'send.Action', payload: { from: 2, seq: 8, stamp: promise } });
  });

  it('counts for no stamp while marked: the running stamp is the other games’ alone', () => {
    const { host, lead } = returned();
    // Ahead of the others but short of its promise (12 800): still marked, it sets no stamp.
    host.clockOf(2, 12_600, 2_000, { speed: 0 });
    expect(host.context().games[2]!.stalled).toBeDefined();
    host.take();
    host.send({ type: 'cmd.pause', now: 2_000 });
    expect(host.context().session.pauseAt).toBe(futureStamp(12_000, lead));
  });

  it('is neither un-marked nor marked anew by the stall rule before its first clock; its promise follows the others', () => {
    const { host, lead, promise } = returned();
    host.take();
    host.send({ type: 'tick', now: 2_000 }); // nothing moved: the promise is the stall rule's own
    expect(host.take()).toEqual([]);
    host.clockOf(0, 12_600, 2_600, { speed: 1 }).clockOf(1, 12_600, 2_600, { speed: 1 });
    host.take();
    // 30 s without a clock of its own: no stall of its own (it is marked), no end; the promise rises with the
    // others (nobody has been told it yet: no PeerClock without its clock), no Session.
    host.send({ type: 'tick', now: 32_000 });
    const raised = host.context().games[2]!.stalled!;
    expect(raised.promise).toBeGreaterThan(promise);
    expect(raised).toEqual({ promise: futureStamp(12_600 + 29_400, lead), since: 2_000 });
    expect(host.take()).toEqual([]);
    expect(host.pacing(2)!.getSnapshot().context.mark).toEqual(raised);
    expect(host.sessionNow().stalled).toEqual([2]);
    // Its first clock goes out with the raised promise; from then on it counts as moving: the promise stays.
    host.clockOf(2, 10_800, 32_100, { speed: 1 });
    expect(ofType(host.take(), 'send.PeerClock').map((e) => e.payload.safe)).toEqual([raised.promise]);
    host.clockOf(0, 50_000, 40_000, { speed: 1 }).clockOf(1, 50_000, 40_000, { speed: 1 });
    host.take();
    host.send({ type: 'tick', now: 40_000 });
    expect(host.take()).toEqual([]);
    expect(host.context().games[2]!.stalled).toEqual(raised);
  });

  it('ends the mark when its clock reaches the promise: Session without it, its own PeerClock, caught up once', () => {
    const { host, promise } = returned();
    host.clockOf(2, 10_800, 2_100, { speed: 1 });
    host.send({ type: 'tick', now: 2_200 });
    host.take();
    host.clockOf(2, promise - STEP, 2_300, { speed: 1 });
    expect(ofType(host.take(), 'out.caughtUp')).toEqual([]);
    host.clockOf(2, promise, 2_400, { speed: 1, safe: promise + 400 });
    const out = host.take();
    expect(out.map(label)).toEqual([
      'log stall ended: the game reached the host promise',
      'send.Session',
      'out.caughtUp',
      'send.PeerClock',
    ]);
    expect(ofType(out, 'send.Session')[0]!.payload).not.toHaveProperty('stalled');
    expect(out[2]).toEqual({ type: 'out.caughtUp', id: 2 });
    expect(ofType(out, 'send.PeerClock')[0]!.payload).toEqual({ from: 2, t: promise, ahead: 2, safe: promise + 400 });
    expect(host.context().games[2]!.stalled).toBeUndefined();
    expect(host.context().returning).toEqual([]);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Pacing');
    // Caught up once: later clocks and ticks say nothing more of it.
    host.clockOf(2, promise + STEP, 2_500, { speed: 1 });
    host.send({ type: 'tick', now: 2_600 });
    expect(ofType(host.take(), 'out.caughtUp')).toEqual([]);
  });

  it('a mark ended in a running tick’s stall pass (pacing.ended) is caught up too', () => {
    const { host } = returned();
    host.clockOf(2, 10_800, 2_100, { speed: 1 });
    const context = host.context();
    // The pass's report that game 2's mark ended (its pacing chart saw its clock at the promise at a tick).
    const passed = { ...context, ...steps.onStallReport(context, { change: 'cleared', id: 2 }) };
    const settled = steps.settleStalls(passed);
    expect(settled.out.map(label)).toEqual(['log stall ended: the game reached the host promise', 'send.Session', 'out.caughtUp']);
    expect(settled.out[2]).toEqual({ type: 'out.caughtUp', id: 2 });
    expect(settled.patch.returning).toEqual([]);
    // An ordinary stalled game's end (not a returner) says nothing of catching up.
    const other = { ...context, returning: [] };
    const plain = steps.settleStalls({ ...other, ...steps.onStallReport(other, { change: 'cleared', id: 2 }) });
    expect(ofType(plain.out, 'out.caughtUp')).toEqual([]);
  });

  it('holds no pause: the pause order flushes without its stop, as for any stalled game', () => {
    const { host } = returned();
    host.clockOf(2, 10_800, 2_100, { speed: 1 });
    host.send({ type: 'cmd.pause', now: 2_100 });
    const pauseAt = host.context().session.pauseAt!;
    host.send({ type: 'recv.Action', from: 1, payload: { seq: 1, body: { op: 'rename' }, pause: true }, now: 2_100 });
    host.clockOf(0, pauseAt, 3_000, { speed: 0, stop: true }).clockOf(1, pauseAt, 3_000, { speed: 0, stop: true });
    host.take();
    host.send({ type: 'tick', now: 3_000 });
    expect(host.context().pauseOrder.waitingFor).toEqual([]);
    expect(ofType(host.take(), 'send.Action').map((e) => e.payload.pauseSeq)).toEqual([1]);
    expect(host.context().games[2]!.stalled).toBeDefined(); // still catching up: its mark outlives the pause
  });

  it('forgets a returner that leaves again or loads a save before it caught up: no caughtUp', () => {
    const a = returned().host;
    a.send({ type: 'game.left', id: 2, now: 2_100 });
    expect(a.context().returning).toEqual([]);
    expect(a.pacing(2)).toBeUndefined();
    expect(ofType(a.take(), 'send.Session').at(-1)!.payload.stalled).toBeUndefined();

    const b = returned();
    b.host.send({ type: 'recv.Hello', from: 2, payload: { time: 12_000 }, now: 2_100, loaded: true });
    expect(b.host.context().returning).toEqual([]);
    b.host.clockOf(2, b.promise, 2_200, { speed: 1 });
    expect(ofType(b.host.take(), 'out.caughtUp')).toEqual([]);
  });

  it('a game still in the session when it returns is replaced: its old clock dropped, marked anew', () => {
    const host = runningHost([0, 1, 2], 10_000);
    host.clockOf(0, 12_000, 2_000, { speed: 1 }).clockOf(1, 12_000, 2_000, { speed: 1 }).clockOf(2, 30_000, 2_000, { speed: 1 });
    const chart = host.pacing(2)!;
    host.take();
    host.send({ type: 'game.returned', id: 2, now: 2_000 });
    // Its own old clock counts for nothing: the promise is the others' futureStamp.
    const promise = futureStamp(12_000, host.context().session.lead);
    expect(host.context().games[2]).toEqual({ id: 2, ready: true, hasWorld: true, advancedAt: 2_000, stalled: { promise, since: 2_000 } });
    expect(host.pacing(2)).toBe(chart);
    expect(chart.getSnapshot().value).toBe('Stalled');
    expect(ofType(host.take(), 'send.Session').map((e) => e.payload.stalled)).toEqual([[2]]);
  });

  it('in a paused session is marked too: Session with pauseAt and it stalled; the mark outlives the pause', () => {
    const host = runningHost([0, 1, 2], 10_000);
    host.send({ type: 'game.left', id: 2, now: 100 });
    host.send({ type: 'cmd.pause', now: 200 });
    const pauseAt = host.context().session.pauseAt!;
    host.clockOf(0, pauseAt, 1_000, { speed: 0, stop: true }).clockOf(1, pauseAt, 1_000, { speed: 0, stop: true });
    host.take();
    host.send({ type: 'game.returned', id: 2, now: 1_000 });
    const promise = futureStamp(pauseAt, host.context().session.lead);
    expect(host.context().games[2]!.stalled).toEqual({ promise, since: 1_000 });
    const session = ofType(host.take(), 'send.Session');
    expect(session.map((e) => e.payload)).toEqual([{ started: true, speed: 0, pauseAt, lead: host.context().session.lead, stalled: [2] }]);
    host.clockOf(2, pauseAt, 2_000, { speed: 0, stop: true }); // it ran to pauseAt: short of the promise, still marked
    host.send({ type: 'tick', now: 3_000 });
    expect(host.context().games[2]!.stalled).toEqual({ promise, since: 1_000 });
    expect(ofType(host.take(), 'out.caughtUp')).toEqual([]);
  });

  it('in a session not yet started is just ready with its world: no mark, no Session', () => {
    const host = startHost();
    host.ready(0, 1_000).ready(1, 1_000).ready(2, 1_000);
    host.send({ type: 'game.left', id: 2, now: 10 });
    host.take();
    host.send({ type: 'game.returned', id: 2, now: 20 });
    expect(host.context().games[2]).toEqual({ id: 2, ready: true, hasWorld: true, advancedAt: 20 });
    expect(host.context().returning).toEqual([]);
    expect(host.pacing(2)!.getSnapshot().value).toBe('Pacing');
    expect(host.take().map(label)).toEqual(['log game returned']);
    // The start waits for its clock like any ready game's, then starts with it.
    host.send({ type: 'cmd.start', now: 30 });
    expect(host.value()).toBe('NotStarted');
    host.clockOf(2, 1_000, 40, { speed: 0 });
    expect(host.value()).toBe('Running');
    expect(ofType(host.take(), 'out.caughtUp')).toEqual([]);
  });

  it('the host’s own game never leaves, so never returns', () => {
    const host = runningHost([0, 1], 10_000);
    const before = host.context().games;
    host.send({ type: 'game.returned', id: 0, now: 5 });
    expect(host.context().games).toBe(before);
    expect(host.take()).toEqual([]);
  });
});

describe('the stall rule over a returned game’s mark (no `t`)', () => {
  const other: GameView = { id: 0, ready: true, hasWorld: true, advancedAt: 0, bestT: 12_000, clock: { t: 12_000, speed: 1, ahead: 2, safe: 12_400, receivedAt: 2_000 } };
  const mark = { promise: futureStamp(12_000, 2), since: 2_000 };
  const back: GameView = { id: 2, ready: true, hasWorld: true, advancedAt: 2_000, stalled: mark };

  it('without a clock: neither ended nor marked anew, whatever the time; the promise follows the pacing games', () => {
    const update = updateStalls({ games: [other, back], now: 60_000, running: true, lead: 2 });
    expect(update.cleared).toEqual([]);
    expect(update.marked).toEqual([]);
    expect(update.raised).toEqual([2]);
    expect(update.games[1]!.stalled).toEqual({ ...mark, promise: futureStamp(12_000 + 58_000, 2) });
    expect(movedSinceMark(back, mark)).toBe(false);
    // Paused (not running): nothing changes.
    expect(updateStalls({ games: [other, back], now: 60_000, running: false, lead: 2 }).raised).toEqual([]);
  });

  it('with a clock after the return: it counts as moving, the promise stays; at the promise the mark ends', () => {
    const moving = { ...back, clock: { t: 10_800, speed: 1 as const, ahead: 2, receivedAt: 2_100 } };
    expect(movedSinceMark(moving, mark)).toBe(true);
    expect(updateStalls({ games: [other, moving], now: 60_000, running: true, lead: 2 })).toMatchObject({ cleared: [], marked: [], raised: [] });
    const there = { ...moving, clock: { ...moving.clock, t: mark.promise } };
    expect(updateStalls({ games: [other, there], now: 60_000, running: true, lead: 2 }).cleared).toEqual([2]);
  });

  it('a mark of the stall rule (with `t`) is judged as before', () => {
    const marked = { ...back, stalled: { ...mark, t: 10_000 }, clock: { t: 10_000, speed: 0 as const, ahead: 2, receivedAt: 0 } };
    expect(movedSinceMark(marked, marked.stalled)).toBe(false);
    expect(movedSinceMark({ ...marked, clock: { ...marked.clock, t: 10_200 } }, marked.stalled)).toBe(true);
    const { clock: _none, ...noClock } = marked;
    expect(movedSinceMark(noClock, marked.stalled)).toBe(true); // as before: no raise without a clock
  });
});

describe('HostLockstep: the session’s `returned` notice and onCaughtUp', () => {
  it('forwards `returned` as game.returned and calls onCaughtUp once when the returner’s mark ends', () => {
    const clock = createSimulatedClock();
    const notices: ((n: unknown) => void)[] = [];
    /** The session's own catch-up chart is told too (HostSession.caughtUp). */
    const sessionTold: number[] = [];
    const fake = {
      options: { hostName: 'Ada' },
      currentPermissions: () => ({}),
      on: (fn: (n: unknown) => void) => (notices.push(fn), () => undefined),
      broadcast: () => undefined,
      setReady: () => undefined,
      useSessionSource: () => undefined,
      caughtUp: (id: number) => sessionTold.push(id),
    } as unknown as HostSession;
    const lockstep = attachLockstep(fake, { clock, wallClock: () => 0, log: () => undefined }, { tickMs: 1_000_000 });
    const notify = (n: unknown) => notices.forEach((fn) => fn(n));
    const clockOf = (from: number, t: number, extra: Partial<ClockPayload> = {}) =>
      notify({ type: 'game', from, message: { kind: 'Clock', payload: { t, speed: 1, ahead: 2, safe: t + 400, ...extra } } });
    const caught: number[] = [];
    const offA = lockstep.onCaughtUp((id) => caught.push(id));
    const removed: number[] = [];
    lockstep.onCaughtUp((id) => removed.push(id))();
    lockstep.onCaughtUp(() => {
      throw new Error('a listener bug is logged, never passed on');
    });
    for (const id of [0, 1]) {
      if (id !== 0) notify({ type: 'joined', id, name: `p${id}` });
      notify({ type: 'game', from: id, message: { kind: 'Hello', payload: { time: 10_000 } } });
      clockOf(id, 10_000, { speed: 0 });
    }
    lockstep.start();
    expect(String(lockstep.actor.getSnapshot().value)).toBe('Running');
    notify({ type: 'left', id: 1, name: 'p1', away: true });
    clock.increment(1_000);
    clockOf(0, 11_000);
    notify({ type: 'returned', id: 1, name: 'p1' });
    const mark = lockstep.actor.getSnapshot().context.games[1]!.stalled!;
    expect(mark).toEqual({ promise: futureStamp(11_000, lockstep.actor.getSnapshot().context.session.lead), since: 1_000 });
    clockOf(1, 10_400);
    expect(caught).toEqual([]);
    clockOf(1, mark.promise);
    clockOf(1, mark.promise + STEP);
    expect(caught).toEqual([1]);
    expect(sessionTold).toEqual([1]);
    expect(removed).toEqual([]);
    offA();
    lockstep.stop();
  });
});
