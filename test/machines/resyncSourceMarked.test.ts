// The saving game reports an action partial before its SaveDone (spec "Repair source"; machines/resync.ts Saving):
// its verdicts and its SaveDone leave in that order, so its save holds the partly built world and the round asks the
// next source. The simulator's full-length seeds 672, 953, 1033, 1472, 1494, 1505, 1641: a hot join's round asked the
// host's game for its save, the game applied a command partly in that frame, and the round copied its world.
import { describe, expect, it } from 'vitest';
import { RESYNC_TIMEOUTS } from '../../machines/rules/resyncRound.ts';
import { startResync } from './resyncHarness.ts';

/** A started session with these players (the `marked` games marked partial), a round in Saving, every player in the session's world. */
function saving(players: { id: number; name: string; capable?: boolean }[], marked: number[] = []) {
  const h = startResync();
  for (const p of players) h.send({ type: 'player.joined', ...p });
  h.send({ type: 'session.started', speed: 2 });
  for (const id of marked) h.send({ type: 'game.partial', id });
  h.send({ type: 'cmd.start', reason: 'x' }, { type: 'pause.progress', waitingFor: [], inWorld: players.map((p) => p.id) });
  const sourceMarked: { from: number; names: string }[] = [];
  h.actor.on('out.sourceMarked', (e) => sourceMarked.push({ from: e.from, names: e.names }));
  return { h, sourceMarked };
}

describe('resync round: the saving game reports an action partial before its SaveDone', () => {
  it("the host's game: the first unmarked capable player is asked instead; the host's SaveDone is ignored", () => {
    const { h, sourceMarked } = saving([{ id: 1, name: 'alice' }, { id: 2, name: 'bob', capable: true }]);
    expect(h.of('out.save')).toEqual([{ type: 'out.save', id: 1, to: 0, name: 'feverlink3-resync-1' }]);
    h.clock.increment(RESYNC_TIMEOUTS.saving - 1_000);
    h.send({ type: 'game.partial', id: 0 }, { type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    expect(sourceMarked).toEqual([{ from: 0, names: "the host's game" }]);
    expect(h.of('out.save').at(-1)).toEqual({ type: 'out.save', id: 1, to: 2, name: 'feverlink3-resync-1' });
    expect(h.ctx()).toMatchObject({ source: 2, marked: [0] });
    expect(h.value()).toBe('{"Round":{"Saving":"WaitingForSave"}}');
    expect(h.of('out.ignored').at(-1)).toMatchObject({ what: "SaveDone not from the round's source", from: 0 });
    expect(h.of('out.sourceWarning')).toEqual([]);
    // the new source has its own time: 180 + 600 s from the ask, not what was left of the host's 180 s
    h.clock.increment(RESYNC_TIMEOUTS.saving);
    expect(h.of('out.failed')).toEqual([]);
    h.send({ type: 'recv.SaveDone', from: 2, id: 1, ok: true }, { type: 'source.uploaded', id: 1 });
    expect(h.value()).toBe('{"Round":{"Transferring":"AwaitingFile"}}');
  });

  it("with no player to ask, the host's save is kept and the warning says so; its SaveDone goes on", () => {
    const { h, sourceMarked } = saving([{ id: 1, name: 'alice' }]);
    h.send({ type: 'game.partial', id: 0 });
    expect(sourceMarked).toEqual([]);
    expect(h.of('out.save')).toHaveLength(1); // not asked twice: the save it makes is the one copied
    expect(h.of('out.sourceWarning')).toEqual([
      expect.objectContaining({ id: 1, text: expect.stringMatching(/no unmarked player can send its save.*may still be broken/) }),
    ]);
    h.send({ type: 'game.partial', id: 0 }); // a second partial verdict warns no more
    expect(h.of('out.sourceWarning')).toHaveLength(1);
    h.send({ type: 'recv.SaveDone', from: 0, id: 1, ok: true });
    expect(h.value()).toBe('{"Round":{"Transferring":"AwaitingFile"}}');
  });

  it('a repair source marked before its SaveDone: the next unmarked capable player is asked', () => {
    const players = [{ id: 1, name: 'alice', capable: true }, { id: 2, name: 'bob', capable: true }];
    const { h, sourceMarked } = saving(players, [0]);
    expect(h.ctx().source).toBe(1);
    h.send({ type: 'game.partial', id: 1 });
    expect(sourceMarked).toEqual([{ from: 1, names: 'alice' }]);
    expect(h.of('out.save').map((e) => e.to)).toEqual([1, 2]);
    // bob marked too: nobody is left, the host's world is copied with the warning
    h.send({ type: 'game.partial', id: 2 });
    expect(h.of('out.save').map((e) => e.to)).toEqual([1, 2, 0]);
    expect(h.of('out.sourceWarning').at(-1)!.text).toMatch(/every game is marked partial/);
  });

  it('a partial verdict after the SaveDone, or from another game, only marks it: the save was made before', () => {
    const { h, sourceMarked } = saving([{ id: 1, name: 'alice', capable: true }, { id: 2, name: 'bob', capable: true }], [0]);
    h.send({ type: 'game.partial', id: 2 }); // not the source
    h.send({ type: 'recv.SaveDone', from: 1, id: 1, ok: true }, { type: 'game.partial', id: 1 });
    expect(h.value()).toBe('{"Round":{"Saving":"Uploading"}}');
    expect(sourceMarked).toEqual([]);
    expect(h.of('out.save')).toHaveLength(1);
    expect(h.ctx().marked).toEqual([0, 2, 1]);
  });
});
