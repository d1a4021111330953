// A mod loaded again (a new Lua state, same session and world) reads to_game.log again from the session's start; that
// backlog holds every ResyncSave the previous Lua state carried out. Read again, a ResyncSave must not save again
// (mod/feverlink3_resync.lua `save`): the second save wrote the CURRENT world over the round's file (while the host's
// launcher may be hashing and sending it: the players get a file that mixes two worlds or fails its SHA-256) and sent a
// second SaveDone for a round that had its answer. Before the fix the backlog's last ResyncSave was carried out again
// at the backlog's end.
import { describe, expect, it } from 'vitest';
import { modSession } from './modSession.ts';

const s = modSession();

describe('a mod loaded again after it saved for resync rounds', () => {
  it('carries out no ResyncSave of its backlog again: the rounds’ files keep their worlds, one SaveDone per round', async () => {
    const { game, mod: first, saves } = await s.running('name=Host\nid=0\nrole=host\nstart=1:0\n');
    // round 1: the host's game saves and loads its own save (the host reloads)
    s.resyncRound(game, 1);
    s.frames(game, 35);
    // round 2: saved; the launcher is still sending the file (Transferring), its load line not written yet
    s.toGame('ResyncSave', { id: 2, name: 'feverlink3-resync-2' });
    s.frames(game, 3);
    s.frames(game, 40); // the world runs on past the save
    const round1File = s.saveFile('feverlink3-resync-1');
    const round2File = s.saveFile('feverlink3-resync-2');
    expect(saves).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']);
    expect(s.fromGame('SaveDone')).toEqual([{ id: 1, ok: true }, { id: 2, ok: true }]);

    game.attach(null);
    first.close();
    const again = await s.loadMod(game);
    s.frames(game, 10);

    const modLog = s.modLog();
    expect(modLog).toContain('loaded again in the same session and world');
    expect(modLog).toContain('backlog read again');
    expect(saves).toEqual(['feverlink3-resync-1', 'feverlink3-resync-2']); // was: feverlink3-resync-2 saved again
    expect(s.saveFile('feverlink3-resync-2').equals(round2File)).toBe(true); // still round 2's world
    expect(s.saveFile('feverlink3-resync-1').equals(round1File)).toBe(true);
    expect(s.fromGame('SaveDone')).toEqual([{ id: 1, ok: true }, { id: 2, ok: true }]); // no second answer for round 2
    // both ResyncSave lines were met in the backlog (the scenario) and left alone
    expect(modLog).toContain('resync 1: ResyncSave read again in the backlog');
    expect(modLog).toContain('resync 2: ResyncSave read again in the backlog');
    expect(again.errors).toBe(0);
    again.close();
  });
});
