// Joins per address over real TCP (docs/SECURITY.md "Joins per address"): ids are never given twice, so one
// address that joins and leaves in a loop is refused with Reject flood after a burst of 8, then let in again once
// per refill period on the host's (simulated) clock; a player already in keeps relaying.
import { describe, expect, it } from 'vitest';
import { JOIN_BURST, JOIN_REFILL_MS } from '../../machines/rules/joinRate.ts';
import { joinPlayer, waitFor } from '../support/session.ts';
import { goodPair, simClock, useHosts } from '../support/hostile.ts';

const pooledHost = useHosts();

async function joinOnce(port: number, name: string) {
  const p = await joinPlayer(port, name);
  await waitFor(() => p.player.joined || p.ended(), 5000, `${name} to join or end`);
  return p;
}

describe('joins per address', () => {
  it('refuses the join after a burst with Reject flood, and lets one in per refill period', async () => {
    const h = await pooledHost({ maxPlayers: 16, silenceMs: 600_000 }); // the clock jumps 20 s: no one goes silent
    const good = await goodPair(h); // two joins from 127.0.0.1
    for (let i = 0; i < JOIN_BURST - 2; i++) {
      const p = await joinOnce(h.port, `loop${i}`);
      expect(p.player.joined).toBe(true);
      p.player.leave();
    }
    const refused = await joinOnce(h.port, 'one-too-many');
    expect(refused.ended()).toMatchObject({ reason: 'flood', detail: 'too many joins from this address; try again in a minute' });
    simClock(h).increment(JOIN_REFILL_MS);
    const again = await joinOnce(h.port, 'after-a-while');
    expect(again.player.joined).toBe(true);
    await good.relays();
  });
});
