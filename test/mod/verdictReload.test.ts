// The verdicts a step decides leave with that step (mod/feverlink3_session.lua beforeStep), so a Lua state loaded
// again before the next frame loses none: the continuing state takes the applied items out unapplied and cannot tell
// their verdicts again. The simulator's seed 478 at full length: the host's mod was loaded again 60 ms after its engine
// threw halfway through a command; the `partial` verdict waited in the outbox for the next frame and was lost, so the
// host never marked its game and the repair copied its partly built world (spec "Repair source").
import { describe, expect, it } from 'vitest';
import { loadGame } from './support/luaMod.ts';
import { currentLua, disposers, LUA_FLAVOURS, setup, started, STEP, T0, tick, useLua } from './support/modScenario.ts';

describe.each(LUA_FLAVOURS)('mod in Lua %s: verdicts across a reload', (lua) => {
  useLua(lua);
  it('a partial verdict made in a step reaches from_game.log although the mod is loaded again before the next frame', async () => {
    const { s, g } = await setup(0, '1:0');
    g.init();
    s.send('Session', started);
    s.send('PeerClock', { from: 1, t: T0, ahead: 2, safe: T0 + 10 * STEP });
    s.send('Action', { stamp: T0 + 2 * STEP, seq: 1, body: { throw: true }, from: 1, allowed: true });
    s.send('Action', { stamp: T0 + 3 * STEP, seq: 2, body: { ok: 1 }, from: 1, allowed: true });
    tick(g, 20, 5); // one frame reads the actions, then the steps apply them: no frame after
    expect(g.engine().applied.map((a) => a.t)).toEqual([T0 + 2 * STEP, T0 + 3 * STEP]);
    g.close();
    // a new Lua state in the same session and world continues (mod_state.txt) and reads the backlog again
    const again = await loadGame({ sessionDir: s.dir, t0: T0 + 5 * STEP, lua: currentLua() });
    disposers.push(() => again.close());
    expect(again.init()).toBe(true);
    for (let i = 0; i < 3; i++) tick(again, 20);
    expect(s.modLog()).toContain('backlog read again: 2 items the previous Lua state had applied taken out unapplied');
    expect(again.engine().applied).toEqual([]); // not applied again
    const verdicts = s.outOf('ActionRefused');
    expect(verdicts).toHaveLength(2); // each once
    expect(verdicts[0]).toMatchObject({ seq: 1, from: 1, class: 'engine', partial: true });
    expect(verdicts[1]).toEqual({ seq: 2, from: 1, applied: true });
    expect(s.modLog()).toMatch(/refused 1:1 at 3000000400 \(engine\)/);
  });
});
