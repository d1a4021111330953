// The launcher's bridge to the game's file link: only the kinds a game may send are taken from from_game.log
// (bad lines reported and skipped), only the kinds the game reads are written to to_game.log, and the
// launchers' latency stamps (l on the way out, w/ro/rr on the way in) are added.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openGameLink } from '../../../adapters/fileLink/gameLink.ts';
import { forwardToGame, messageFromGame } from '../../../adapters/launcher/gameBridge.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const temp = tempFolders('fl3-bridge-');

describe('game bridge', () => {
  it('takes a valid Clock from the game and stamps when the launcher read it', () => {
    const logs: object[] = [];
    const before = Date.now();
    const m = messageFromGame('Clock', { t: 400, speed: 1, ahead: 2, safe: 800 }, (e) => logs.push(e));
    expect(m).toMatchObject({ kind: 'Clock', payload: { t: 400, safe: 800 } });
    expect((m!.payload as { hop: { l: number } }).hop.l).toBeGreaterThanOrEqual(before);
    expect(logs).toEqual([]);
  });

  it('reports and skips a kind a game may not send and a payload that does not validate', () => {
    const logs: { msg: string; why?: string }[] = [];
    expect(messageFromGame('Welcome', {}, (e) => logs.push(e))).toBeUndefined();
    expect(messageFromGame('Chat', { text: 'x'.repeat(501) }, (e) => logs.push(e))).toBeUndefined();
    expect(messageFromGame('Nonsense', {}, (e) => logs.push(e))).toBeUndefined();
    expect(logs.map((l) => l.msg)).toEqual(['game line skipped', 'game line skipped', 'game line skipped']);
    expect(logs[1]!.why).toContain('500');
  });

  it('writes only the kinds the game reads, with the receiver’s stamps on PeerClock', async () => {
    const dir = temp();
    const link = await openGameLink(dir, { name: 'p', id: 1, role: 'player' }, { watch: false });
    const log = () => {};
    forwardToGame(link, { kind: 'Ping', payload: { n: 1 } }, log);
    forwardToGame(link, { kind: 'PeerClock', payload: { from: 2, t: 200, ahead: 2, safe: 600 } }, log, () => ({ rtt: 12.5, off: -3 }));
    forwardToGame(link, { kind: 'Session', payload: { started: true, speed: 1, lead: 4 } }, log);
    await link.close();
    const lines = readFileSync(join(dir, 'to_game.log'), 'utf8').trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['PeerClock', 'Session']);
    const peer = JSON.parse(lines[0]!.split('\t')[1]!);
    expect(peer).toMatchObject({ from: 2, t: 200, safe: 600, hop: { ro: -3, rr: 12.5 } });
    expect(typeof peer.hop.w).toBe('number');
  });
});
