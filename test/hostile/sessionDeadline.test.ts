// The one unscaled join deadline (spec "Handshake": "closes it if no accepted Join arrived within 15 s of
// opening"; reliability-tests §7.4 L3): a silent socket on a host with the real clock gets Reject timeout
// after the real 15 s, while a well-behaved player keeps chatting and answering pings. The only slow test.
import { describe, expect, it } from 'vitest';
import { realClock } from '../../adapters/clock.ts';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { joinedPlayer, waitFor } from '../support/session.ts';
import { challengeOf, closedWith, openRaw, rejectOf, useHosts } from '../support/hostile.ts';

const host = useHosts();

describe('the real join deadline', () => {
  it('a silent socket gets Reject timeout after 15 s; a player keeps chatting meanwhile', { timeout: 25_000 }, async () => {
    expect(JOIN_DEADLINE_MS).toBe(15_000);
    const h = await host({}, { realClock: true }); // no joinDeadlineMs: the default
    const alice = await joinedPlayer(h.port, 'alice');
    const openedAt = realClock.now(); // before the host's side opens, so the bound below can only be loose
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    let said = 0;
    while (!raw.reject() && realClock.now() - openedAt < 20_000) {
      said += 1;
      const text = `tick ${said}`;
      alice.player.chat(text);
      await waitFor(() => h.notices.some((n) => n.type === 'chat' && n.text === text), 3000, text);
      await new Promise((r) => setTimeout(r, 250));
    }
    // A timer never fires early, so this lower bound holds however loaded the machine is.
    expect(realClock.now() - openedAt).toBeGreaterThanOrEqual(JOIN_DEADLINE_MS - 50);
    expect(await rejectOf(raw)).toEqual({ reason: 'timeout' });
    expect(await closedWith(h, conn)).toBe('timeout');
    expect(alice.ended()).toBeUndefined();
    expect(h.host.players().find((p) => p.name === 'alice')?.rtt).toBeDefined(); // pings answered meanwhile
  });
});
