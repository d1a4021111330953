// The mod loaded again right after the frame that loaded a resync save, before the new Lua state's first frame wrote
// mod_state.txt (the load empties it and init clears the load's marker). Before the fix the next Lua state found no
// state and started fresh: read to_game.log from the session's start, said a Hello without the save (the host takes it
// for a fresh start), loaded the round's save a second time and said another Hello, and its own action numbers began
// at 1 again. Now init writes mod_state.txt (feverlink3_session.lua), with the time the save was loaded at
// (`resyncLoadedAt`): the host's copy of an own action made before the load, which follows the load line, is still
// applied by the continuing state, as by the state that loaded.
import { describe, expect, it } from 'vitest';
import { modSession, RUNNING } from './modSession.ts';

const s = modSession();

describe('the mod loaded again between the frame that loaded a resync save and the next frame', () => {
  it('continues: no Hello without the save, no second load, and the host’s copy of an own action made before the load is applied', async () => {
    const { game, mod: first, loads } = await s.running();
    s.toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    s.frames(game, 3);
    const savedAt = s.savedAt('feverlink3-resync-1');
    game.issue({ type: 'spend', amount: 1000 }); // an own action the host has not sent back before the load
    s.frames(game, 3);
    const [own] = s.fromGame('Action');
    expect(own).toMatchObject({ seq: 1, body: { type: 'spend', amount: 1000 } });
    expect(Number(own!.stamp)).toBeGreaterThan(savedAt);

    s.toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: 'ab'.repeat(32) });
    s.frames(game, 1);
    s.cursorAtEnd();
    s.toGame('Session', RUNNING);
    s.frames(game, 1); // loads: a new Lua state starts (init)
    expect(loads).toEqual(['feverlink3-resync-1']);

    game.attach(null);
    first.close();
    const again = await s.loadMod(game); // before that state's first frame
    s.toGame('Action', { ...own, category: 'spend', from: 1, allowed: true }); // the host's copy, after the load line
    s.frames(game, 40);

    expect(loads).toEqual(['feverlink3-resync-1']); // was: loaded a second time
    expect(s.fromGame('Hello')).toEqual([{ time: 0 }, { time: savedAt, save: 'feverlink3-resync-1' }]); // was: + {time}, + {save}
    expect(game.applied).toBe(1); // the own action, applied once in the loaded world
    expect(game.time()).toBeGreaterThan(Number(own!.stamp));
    const modLog = s.modLog();
    expect(modLog).toContain('loaded again in the same session and world');
    expect(modLog).toContain('own Action 1:1 made before the resync load: the host\'s copy');
    expect(again.errors).toBe(0);
    again.close();
  });
});
