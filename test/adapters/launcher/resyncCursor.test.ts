// The game forwarder with the resync cursor (adapters/launcher/resyncCursor.ts), on an in-memory session folder: a
// ResyncLoad is appended, resync_cursor.txt names the byte just after it, and what comes meanwhile is written after,
// in order (never between the line and the cursor); one forwarder per link.
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { MemoryFs } from '../../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameLink } from '../../../adapters/fileLink/memoryLink.ts';
import { gameForwarder } from '../../../adapters/launcher/resyncCursor.ts';
import type { Message } from '../../../actors/wire.ts';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the game forwarder', () => {
  it('writes the resync cursor right after a ResyncLoad line, the later messages after it in order', async () => {
    const fs = new MemoryFs();
    const clock = createSimulatedClock();
    const link = await openMemoryGameLink(fs, '/s/p', { name: 'p', id: 1, role: 'player' }, { clock });
    const logs: unknown[] = [];
    const forward = gameForwarder(link, (e) => logs.push(e));
    expect(gameForwarder(link, () => {})).toBe(forward);
    const chat = (text: string): Message => ({ kind: 'Chat', payload: { text, from: 0, name: 'host' } });
    forward(chat('before'));
    forward({ kind: 'ResyncLoad', payload: { id: 3, name: 'feverlink3-resync-3', sha256: 'ab'.repeat(32) } });
    forward(chat('after 1'));
    forward({ kind: 'Session', payload: { started: true, speed: 0, lead: 2, pauseAt: 4000 } });
    forward(chat('after 2'));
    for (let i = 0; i < 20; i++) await settle();

    const text = fs.readText('/s/p/to_game.log')!;
    const lines = text.split('\n').filter(Boolean).map((l) => l.slice(0, l.indexOf('\t')));
    expect(lines).toEqual(['Chat', 'ResyncLoad', 'Chat', 'Session', 'Chat']);
    const loadEnd = text.indexOf('\n', text.indexOf('ResyncLoad\t')) + 1;
    expect(fs.readText('/s/p/resync_cursor.txt')).toBe(`1:${loadEnd}\n`);
    expect(text.slice(loadEnd)).toMatch(/^Chat\t.*"after 1"/);
    expect(logs).toContainEqual({ msg: `resync 3: load sent to the game; resync cursor 1:${loadEnd}` });
    await link.close();
  });
});
