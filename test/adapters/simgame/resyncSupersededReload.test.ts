// A game that stood still through two resync rounds reads round 1's load line when the cursor names the end of round
// 2's: it reads on, standing, to round 2's load (mod/feverlink3_resync.lua `pending`, 'superseded', S.skippingToLoad).
// The mod loaded again meanwhile (a new Lua state) loses that flag: this pins that nothing is lost with it. The
// continuing state reads its backlog from the session's start, meets round 1's load line again, finds the cursor past it
// again and skips again; it loads round 2's save once, and says one Hello for it (none of its own: it continues).
import { describe, expect, it } from 'vitest';
import { modSession, RUNNING } from './modSession.ts';

const s = modSession();
const count = (text: string, part: string): number => text.split(part).length - 1;

describe('the mod loaded again while it skips a superseded load line to the later load', () => {
  // laterLineRead: the skipping state read round 2's load line before the reload (it waits for its load); otherwise
  // 1.2 MB of lines between the two load lines (a frame reads at most 1 MiB) leave it skipping, round 2's line unread.
  it.each([
    { laterLineRead: true, filler: 0 },
    { laterLineRead: false, filler: 3 },
  ])('loads round 2’s save once and says one Hello for it (round 2’s line read before the reload: $laterLineRead)', async ({ laterLineRead, filler }) => {
    const { game, mod: first, loads } = await s.running();
    // two saves of this world at two times stand for the two rounds' saves
    s.toGame('ResyncSave', { id: 1, name: 'feverlink3-resync-1' });
    s.frames(game, 33);
    s.toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    s.frames(game, 3);
    const round2 = { t: s.savedAt('feverlink3-resync-2') };
    s.frames(game, 30);

    // the game stands still while the launcher writes both rounds (as in resyncSupersededLoadMod.test.ts)
    s.toGame('ResyncLoad', { id: 1, name: 'feverlink3-resync-1', sha256: s.sha256('feverlink3-resync-1') });
    s.toGame('Session', RUNNING);
    for (let i = 0; i < filler; i++) s.toGame('Chat', { text: `filler ${i} ${'x'.repeat(400_000)}`, from: 0, name: 'host' });
    s.toGame('ResyncLoad', { id: 2, name: 'feverlink3-resync-2', sha256: s.sha256('feverlink3-resync-2') });
    s.cursorAtEnd();
    s.toGame('Chat', { text: 'for the loaded world', from: 0, name: 'host' });
    s.frames(game, 2); // reads round 1's load line; finds it superseded and reads on, standing
    const before = s.modLog();
    expect(before).toContain('resync 1: feverlink3-resync-1 was replaced by a later load');
    expect(before.includes('resync 2: load feverlink3-resync-2 once')).toBe(laterLineRead); // the scenario
    expect(loads).toEqual([]);

    game.attach(null);
    first.close();
    const again = await s.loadMod(game);
    s.frames(game, 10);

    expect(loads).toEqual(['feverlink3-resync-2']);
    expect(s.fromGame('Hello')).toEqual([{ time: 0 }, { time: round2.t, save: 'feverlink3-resync-2' }]);
    const modLog = s.modLog();
    expect(modLog).toContain('loaded again in the same session and world');
    expect(count(modLog, 'resync 1: feverlink3-resync-1 was replaced by a later load')).toBe(2); // skipped again
    expect(count(modLog, 'for the loaded world')).toBe(1); // read once, by the loaded world
    expect(again.errors).toBe(0);
    again.close();
  });
});
