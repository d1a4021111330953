// The host's own chat line has no bound of its own (a line typed at its terminal): it is cut at the 500 code
// points a Chat carries, so every player decodes it (found by test/hostile/hostFuzz.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { joinedPlayer, startHost, waitFor, type TestHost } from '../support/session.ts';

let h: TestHost | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the host’s chat', () => {
  it('cuts a line longer than 500 code points to 500 (a character outside the BMP counts once)', async () => {
    h = await startHost();
    const p = await joinedPlayer(h.port, 'bob');
    const line = '😀'.repeat(300) + 'x'.repeat(300);
    h.host.chat(line);
    const chat = await waitFor(() => p.notices.find((n) => n.type === 'chat'), 5000, 'the chat');
    expect(chat.type === 'chat' && [...chat.text]).toHaveLength(500);
    expect(chat.type === 'chat' && chat.text).toBe('😀'.repeat(300) + 'x'.repeat(200));
    expect(p.player.droppedFrames).toBe(0);
  });
});
