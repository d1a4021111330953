// The resync round chart (machines/resync.ts; spec "Resync round" up to "Hot join") through every path and every
// timeout on a simulated clock: the happy path and its progress, each state's timeout (and Loading's that does not
// fail), the reasons naming what was missing, the session left paused after a failure, speed ignored during a round,
// the host reload modes, hot joins, the repair source, and the descriptions naming whom each state waits on.
import { describe, expect, it } from 'vitest';
import { resyncMachine } from '../../machines/resync.ts';
import { RESYNC_TIMEOUTS } from '../../machines/rules/resyncRound.ts';
import { SHA, startedWithTwo, startResync, toSending, toVerifying } from './resyncHarness.ts';

/** The states the progress went through (a Hello in Loading repeats Loading with the shorter `loading` list). */
const states = (h: ReturnType<typeof startResync>) => h.of('out.progress').map((p) => p.state).filter((s, i, all) => s !== all[i - 1]);

describe('resync round: the happy path', () => {
  it('runs Idle → Pausing → Saving → Transferring → Loading → Verifying → Idle with progress on every change', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'button' });
    expect(h.value()).toBe('{"Round":"Pausing"}');
    expect(h.of('out.pause')).toEqual([{ type: 'out.pause', id: 1 }]);
    h.send({ type: 'pause.progress', waitingFor: [1], inWorld: [] });
    expect(h.value()).toBe('{"Round":"Pausing"}');
    h.send({ type: 'pause.progress', waitingFor: [], inWorld: [] });
    expect(h.value()).toBe('{"Round":{"Saving":"WaitingForSave"}}');
    expect(h.of('out.save')).toEqual([{ type: 'out.save', id: 1, to: 0, name: 'feverlink3-resync-1' }]);
    h.send({ type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    expect(h.value()).toBe('{"Round":{"Transferring":"AwaitingFile"}}');
    h.send({ type: 'cmd.fileReady', id: 1, sha256: SHA, bytes: 300_000 });
    expect(h.value()).toBe('{"Round":{"Transferring":"Sending"}}');
    expect(h.of('out.announced')).toEqual([{ type: 'out.announced', id: 1, sha256: SHA, bytes: 300_000, participants: [1, 2] }]);
    // host_loads_early: the host's game is sent its load at the announcement.
    expect(h.of('out.load')).toEqual([{ type: 'out.load', id: 1, to: [0], name: 'feverlink3-resync-1', sha256: SHA }]);
    h.send({ type: 'recv.Hello', from: 0, time: 10_342_400 });
    h.send({ type: 'transfer.done', id: 1, player: 1 }, { type: 'transfer.done', id: 2, player: 2 });
    expect(h.value()).toBe('{"Round":{"Transferring":"Sending"}}'); // a done of another round counts for nothing
    h.send({ type: 'transfer.done', id: 1, player: 2 });
    expect(h.value()).toBe('{"Round":"Loading"}');
    expect(h.of('out.load')[1]).toEqual({ type: 'out.load', id: 1, to: [1, 2], name: 'feverlink3-resync-1', sha256: SHA });
    expect(h.of('out.progress').at(-1)).toMatchObject({ state: 'Loading', loading: [1, 2] });
    h.send({ type: 'recv.Hello', from: 1, time: 10_342_400 });
    expect(h.of('out.progress').at(-1)).toMatchObject({ state: 'Loading', loading: [2] });
    h.send({ type: 'recv.Hello', from: 2, time: 10_342_600 });
    expect(h.of('out.pauseAt').map((p) => [p.from, p.time, p.differ])).toEqual([
      [0, 10_342_400, false],
      [1, 10_342_400, false],
      [2, 10_342_600, true],
    ]);
    expect(h.ctx().pauseAt).toBe(10_342_600);
    expect(h.value()).toBe('{"Round":"Verifying"}');
    expect(h.of('out.verify')).toEqual([{ type: 'out.verify', id: 1 }]);
    h.send({ type: 'checksum.verified' });
    expect(h.value()).toBe('"Idle"');
    expect(h.of('out.succeeded')).toEqual([{ type: 'out.succeeded', id: 1, speed: 2 }]);
    expect(states(h)).toEqual(['Pausing', 'Saving', 'Transferring', 'Loading', 'Verifying', 'Idle']);
    expect(h.of('out.progress').at(-1)).toMatchObject({ result: 'verified' });
    expect(h.of('out.failed')).toEqual([]);
  });

  it('round ids count 1, 2, …; one round at a time: a start during a round is ignored and logged', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'a' }, { type: 'cmd.start', reason: 'b' });
    expect(h.ctx()).toMatchObject({ id: 1, reason: 'a' });
    expect(h.of('out.ignored')).toEqual([{ type: 'out.ignored', id: 1, what: 'start while a round runs' }]);
    toVerifying(h);
    h.send({ type: 'checksum.verified' }, { type: 'cmd.start', reason: 'c' });
    expect(h.ctx()).toMatchObject({ id: 2, reason: 'c' });
  });

  it('nothing starts before the session starts; a join then starts nothing', () => {
    const h = startResync();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'player.joined', id: 1, name: 'alice' });
    expect(h.value()).toBe('"Idle"');
    expect(h.of('out.progress')).toEqual([]);
    expect(h.of('out.ignored')[0]!.what).toBe('start before the session started');
  });

  it('a host alone skips the chunks and goes straight to Loading', () => {
    const h = startResync();
    h.send({ type: 'session.started', speed: 1 }, { type: 'cmd.start', reason: 'x' });
    toSending(h);
    expect(h.value()).toBe('{"Round":"Loading"}');
    expect(h.of('out.announced')[0]!.participants).toEqual([]);
  });

  it('speed requests and the host\'s pause/speed are ignored (logged) during a round; the previous speed resumes', () => {
    const h = startedWithTwo();
    h.send({ type: 'session.speed', speed: 3 }, { type: 'cmd.start', reason: 'x' });
    h.send({ type: 'recv.SpeedRequest', from: 2, speed: 1 }, { type: 'cmd.setSpeed', speed: 4 }, { type: 'cmd.pause' });
    expect(h.of('out.ignored').map((i) => [i.what, i.from])).toEqual([
      ['speed request during a round', 2],
      ["the host's speed during a round", undefined],
      ["the host's pause during a round", undefined],
    ]);
    toVerifying(h);
    h.send({ type: 'checksum.verified' });
    expect(h.of('out.succeeded')[0]!.speed).toBe(3);
  });
});

describe('resync round: timeouts and failures', () => {
  it('Pausing fails after exactly 120 s naming the games that did not stop; the session stays paused', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [0, 2], inWorld: [] });
    h.clock.increment(RESYNC_TIMEOUTS.pausing - 1);
    expect(h.value()).toBe('{"Round":"Pausing"}');
    h.clock.increment(1);
    expect(h.value()).toBe('"Idle"');
    expect(h.of('out.failed')).toEqual([
      { type: 'out.failed', id: 1, state: 'Pausing', reason: "pause not reached in 120 s by the host's game, bob", missing: [0, 2] },
    ]);
    expect(h.of('out.succeeded')).toEqual([]);
    expect(h.ctx().speed).toBe(0);
    expect(h.of('out.progress').at(-1)).toMatchObject({ state: 'Idle', result: 'failed' });
  });

  it('a player that leaves while the pause waits for it is no longer waited for', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [2], inWorld: [] }, { type: 'player.left', id: 2 });
    expect(h.value()).toBe('{"Round":{"Saving":"WaitingForSave"}}');
  });

  it("Saving fails after 180 s naming the host's game; a SaveDone of another game or round is ignored", () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: [] });
    h.send({ type: 'recv.SaveDone', from: 1, id: 1, ok: true }, { type: 'recv.SaveDone', from: 0, id: 7, ok: true });
    expect(h.of('out.ignored').map((i) => i.from)).toEqual([1, 0]);
    h.clock.increment(RESYNC_TIMEOUTS.saving - 1);
    expect(h.value()).toBe('{"Round":{"Saving":"WaitingForSave"}}');
    h.clock.increment(1);
    expect(h.of('out.failed')[0]).toMatchObject({ state: 'Saving', reason: "no save from the host's game in 180 s", missing: [0] });
  });

  it('a failed save fails the round with its detail', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: [] });
    h.send({ type: 'recv.SaveDone', from: 0, id: 1, ok: false, detail: 'disk full' });
    expect(h.of('out.failed')[0]!.reason).toBe("the save of the host's game failed: disk full");
  });

  it('Transferring fails after 600 s: the file not ready, or the participants whose chunks did not go out', () => {
    const a = startedWithTwo();
    a.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: [] }, { type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    a.clock.increment(RESYNC_TIMEOUTS.transferring);
    expect(a.of('out.failed')[0]).toMatchObject({ state: 'Transferring', reason: 'the save file was not ready in 600 s' });

    const b = startedWithTwo();
    b.send({ type: 'cmd.start', reason: 'x' });
    toSending(b);
    b.send({ type: 'transfer.done', id: 1, player: 1 });
    b.clock.increment(RESYNC_TIMEOUTS.transferring - 1);
    expect(b.value()).toBe('{"Round":{"Transferring":"Sending"}}');
    b.clock.increment(1);
    expect(b.of('out.failed')[0]).toMatchObject({ reason: 'the save did not reach bob in 600 s', missing: [2] });
  });

  it('Loading never fails: after 600 s it logs the games without Hello and verifies with the others', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' });
    toSending(h);
    h.send({ type: 'transfer.done', id: 1, player: 1 }, { type: 'transfer.done', id: 1, player: 2 });
    h.send({ type: 'recv.Hello', from: 0, time: 9 }, { type: 'recv.Hello', from: 1, time: 9 });
    h.clock.increment(RESYNC_TIMEOUTS.loading - 1);
    expect(h.value()).toBe('{"Round":"Loading"}');
    h.clock.increment(1);
    expect(h.value()).toBe('{"Round":"Verifying"}');
    expect(h.of('out.loadingTimedOut')).toEqual([{ type: 'out.loadingTimedOut', id: 1, missing: [2], names: 'bob' }]);
    expect(h.of('out.failed')).toEqual([]);
  });

  it('Verifying fails on a difference and after 120 s (naming who did not report); paused either way', () => {
    const a = startedWithTwo();
    a.send({ type: 'cmd.start', reason: 'x' });
    toVerifying(a);
    a.send({ type: 'checksum.differs', detail: 'money' });
    expect(a.of('out.failed')[0]).toMatchObject({ state: 'Verifying', reason: 'the verification checksum differs: money' });
    expect(a.ctx().speed).toBe(0);

    const b = startedWithTwo();
    b.send({ type: 'cmd.start', reason: 'x' });
    toVerifying(b);
    b.send({ type: 'checksum.waiting', players: [1] });
    b.clock.increment(RESYNC_TIMEOUTS.verifying - 1);
    expect(b.value()).toBe('{"Round":"Verifying"}');
    b.clock.increment(1);
    expect(b.of('out.failed')[0]).toMatchObject({ reason: 'the verification checksum was not complete in 120 s (not reported by alice)', missing: [1] });
  });

  it('after a failed round the next verified round resumes the paused speed (0): the session stays paused', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' });
    h.clock.increment(RESYNC_TIMEOUTS.pausing);
    h.send({ type: 'cmd.start', reason: 'y' });
    toVerifying(h);
    h.send({ type: 'checksum.verified' });
    expect(h.of('out.succeeded')[0]).toEqual({ type: 'out.succeeded', id: 2, speed: 0 });
  });

  it('the timeouts are named delays a session can override', () => {
    const h = startedWithTwo({}, resyncMachine.provide({ delays: { pausingTimeout: 5 } }));
    h.send({ type: 'cmd.start', reason: 'x' });
    h.clock.increment(5);
    expect(h.of('out.failed')).toHaveLength(1);
  });
});

describe('resync round: host reload modes', () => {
  it('hostLoadsEarly = false: the host is sent its load together with the players after the transfer', () => {
    const h = startedWithTwo({ hostLoadsEarly: false });
    h.send({ type: 'cmd.start', reason: 'x' });
    toSending(h);
    expect(h.of('out.load')).toEqual([]);
    h.send({ type: 'recv.Hello', from: 0, time: 1 }); // not awaited yet: nothing moves
    expect(h.of('out.pauseAt')).toEqual([]);
    h.send({ type: 'transfer.done', id: 1, player: 1 }, { type: 'transfer.done', id: 1, player: 2 });
    expect(h.of('out.load').map((l) => l.to)).toEqual([[0, 1, 2]]);
    expect(h.ctx().awaiting).toEqual([0, 1, 2]);
  });

  it('hostReloads = false: the host is never sent a load and its Hello is not awaited', () => {
    const h = startedWithTwo({ hostReloads: false });
    h.send({ type: 'cmd.start', reason: 'x' });
    toSending(h);
    h.send({ type: 'transfer.done', id: 1, player: 1 }, { type: 'transfer.done', id: 1, player: 2 });
    expect(h.of('out.load').map((l) => l.to)).toEqual([[1, 2]]);
    expect(h.ctx().awaiting).toEqual([1, 2]);
  });
});

describe('resync round: hot join and participants', () => {
  it('a join in a started session starts a `new player` round; a returner a `player returned` round', () => {
    const a = startedWithTwo();
    a.send({ type: 'player.joined', id: 3, name: 'carol' });
    expect(a.ctx()).toMatchObject({ id: 1, reason: 'new player' });
    const b = startedWithTwo();
    b.send({ type: 'player.joined', id: 3, name: 'carol', returned: true });
    expect(b.ctx().reason).toBe('player returned');
  });

  it('a joiner before the announcement takes part; after it, waits and starts the next round when this one ends', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: [] }, { type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    h.send({ type: 'player.joined', id: 3, name: 'carol' });
    h.send({ type: 'cmd.fileReady', id: 1, sha256: SHA, bytes: 10 });
    expect(h.ctx().participants).toEqual([1, 2, 3]);
    h.send({ type: 'player.joined', id: 4, name: 'dave', returned: true });
    expect(h.ctx().participants).toEqual([1, 2, 3]); // fixed at the announcement
    for (const p of [1, 2, 3]) h.send({ type: 'transfer.done', id: 1, player: p });
    expect(h.ctx().awaiting).toEqual([0, 1, 2, 3]);
    h.send({ type: 'checksum.verified' }); // not in Verifying: nothing
    expect(h.value()).toBe('{"Round":"Loading"}');
    h.clock.increment(RESYNC_TIMEOUTS.loading);
    h.send({ type: 'checksum.differs' });
    // Failed, then at once the remembered joiner's round (no cooldown), with the returner's reason.
    expect(h.ctx()).toMatchObject({ id: 2, reason: 'player returned', queued: [] });
    expect(h.value()).toBe('{"Round":"Pausing"}');
    toSending(h);
    expect(h.ctx().participants).toEqual([1, 2, 3, 4]);
  });

  it('a participant that leaves is not waited for in Transferring or Loading', () => {
    const h = startedWithTwo();
    h.send({ type: 'cmd.start', reason: 'x' });
    toSending(h);
    h.send({ type: 'transfer.done', id: 1, player: 1 }, { type: 'player.left', id: 2 });
    expect(h.value()).toBe('{"Round":"Loading"}');
    h.send({ type: 'recv.Hello', from: 0, time: 1 }, { type: 'player.left', id: 1 });
    expect(h.value()).toBe('{"Round":"Verifying"}');
  });
});

describe('resync round: repair source', () => {
  // every player's game is ready in the session's world
  const toSaving = (h: ReturnType<typeof startResync>) =>
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: h.ctx().players.map((p) => p.id) });

  it("a host marked partial: the first unmarked capable player saves; its SaveDone, then its upload, go on", () => {
    const h = startResync();
    h.send(
      { type: 'player.joined', id: 1, name: 'alice' },
      { type: 'player.joined', id: 2, name: 'bob', capable: true },
      { type: 'player.joined', id: 3, name: 'carol', capable: true },
      { type: 'session.started', speed: 1 },
      { type: 'game.partial', id: 0 },
      { type: 'game.partial', id: 2 },
    );
    toSaving(h);
    expect(h.of('out.save')).toEqual([{ type: 'out.save', id: 1, to: 3, name: 'feverlink3-resync-1' }]);
    h.send({ type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    expect(h.value()).toBe('{"Round":{"Saving":"WaitingForSave"}}'); // only the source's counts
    h.send({ type: 'recv.SaveDone', from: 3, id: 1, ok: true });
    expect(h.value()).toBe('{"Round":{"Saving":"Uploading"}}');
    h.clock.increment(RESYNC_TIMEOUTS.saving); // 180 s is not the limit with a source
    h.send({ type: 'source.uploaded', id: 1 });
    expect(h.value()).toBe('{"Round":{"Transferring":"AwaitingFile"}}');
    toVerifying(h);
    h.send({ type: 'checksum.verified' });
    expect(h.ctx().marked).toEqual([]); // a verified round ends the marks
  });

  it('an outsider the pause reported is never the source (its own world is not the session’s)', () => {
    const h = startResync();
    h.send(
      { type: 'player.joined', id: 1, name: 'alice', capable: true },
      { type: 'player.joined', id: 2, name: 'bob', capable: true },
      { type: 'session.started', speed: 1 },
      { type: 'game.partial', id: 0 },
    );
    h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: [2] });
    expect(h.of('out.save')).toEqual([{ type: 'out.save', id: 1, to: 2, name: 'feverlink3-resync-1' }]);
  });

  it('a hot joiner whose game has not said Hello yet is never the source: the host’s world is copied with the warning', () => {
    const h = startResync();
    h.send(
      { type: 'player.joined', id: 1, name: 'alice' },
      { type: 'session.started', speed: 1 },
      { type: 'game.partial', id: 0 },
      // carol can serve, but her game has not said Hello: the pause reports only alice in the session's world
      { type: 'player.joined', id: 2, name: 'carol', capable: true },
    );
    expect(h.of('out.progress')[0]).toMatchObject({ state: 'Pausing', reason: 'new player' });
    h.send({ type: 'pause.progress', waitingFor: [], inWorld: [1] });
    expect(h.of('out.save')).toEqual([{ type: 'out.save', id: 1, to: 0, name: 'feverlink3-resync-1' }]);
    expect(h.of('out.sourceWarning')[0]!.text).toMatch(/no unmarked player can send its save/);
  });

  it('Saving with a source times out after 180 + 600 s; the source leaving fails the round', () => {
    const mk = () => {
      const h = startResync();
      h.send({ type: 'player.joined', id: 1, name: 'alice', capable: true }, { type: 'session.started', speed: 1 }, { type: 'game.partial', id: 0 });
      toSaving(h);
      return h;
    };
    const a = mk();
    a.clock.increment(RESYNC_TIMEOUTS.sourceSaving - 1);
    expect(a.of('out.failed')).toEqual([]);
    a.clock.increment(1);
    expect(a.of('out.failed')[0]).toMatchObject({ reason: 'no save from alice in 780 s', missing: [1] });
    const b = mk();
    b.send({ type: 'recv.SaveDone', from: 1, id: 1, ok: true }, { type: 'player.left', id: 1 });
    expect(b.of('out.failed')[0]).toMatchObject({ reason: 'the repair source alice left before its save arrived', missing: [1] });
  });

  it('with no player that can serve, the host\'s world is copied with a warning', () => {
    const h = startResync();
    h.send({ type: 'player.joined', id: 1, name: 'alice' }, { type: 'session.started', speed: 1 }, { type: 'game.partial', id: 0 });
    toSaving(h);
    expect(h.of('out.save')[0]!.to).toBe(0);
    expect(h.of('out.sourceWarning')[0]!.text).toMatch(/no unmarked player can send its save.*may still be broken/);
    const n = startResync({ hostReloads: false });
    n.send({ type: 'player.joined', id: 1, name: 'alice', capable: true }, { type: 'session.started', speed: 1 }, { type: 'game.partial', id: 0 });
    toSaving(n);
    expect(n.of('out.save')[0]!.to).toBe(0);
    expect(n.of('out.sourceWarning')[0]!.text).toMatch(/the host does not reload/);
  });
});

describe('resync round: descriptions', () => {
  it('every waiting state says on whom it waits', () => {
    const round = resyncMachine.root.states.Round!.states;
    expect(resyncMachine.root.states.Idle!.description).toMatch(/host or the policy.*player to join/s);
    expect(round.Pausing!.description).toMatch(/every ready game in the session's world \(context\.waitingFor/);
    expect(round.Saving!.description).toMatch(/saving game \(context\.source/);
    expect(round.Saving!.states.WaitingForSave!.description).toMatch(/SaveDone of the saving game/);
    expect(round.Saving!.states.Uploading!.description).toMatch(/repair source \(context\.source\)/);
    expect(round.Transferring!.states.AwaitingFile!.description).toMatch(/host's launcher/);
    expect(round.Transferring!.states.Sending!.description).toMatch(/each participant named in context\.sending/);
    expect(round.Loading!.description).toMatch(/each game named in context\.awaiting/);
    expect(round.Verifying!.description).toMatch(/ready games.*context\.awaiting/s);
  });
});
