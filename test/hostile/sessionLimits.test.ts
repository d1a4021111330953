// Connection-level limits seen through the whole session over real TCP (reliability-tests §7.4 L5, L8; spec
// "Handshake", last paragraph): a 17th connection from one address is refused unread, a peer that stops
// reading is closed with write-timeout with its queue bounded, and the well-behaved players keep relaying.
import { describe, expect, it } from 'vitest';
import { RawClient, waitFor, type TestHost } from '../support/session.ts';
import { closedWith, goodPair, openRaw, tcp, useHosts } from '../support/hostile.ts';

let raws: RawClient[] = [];
const host = useHosts(() => {
  for (const r of raws) r.destroy();
  raws = [];
});

const refusals = (h: TestHost, reason: string) => h.logs.filter((l) => l.msg === 'connection closed' && l.reason === reason);

describe('per-address cap', () => {
  it('refuses the 17th connection from 127.0.0.2 unread; other addresses still get in; a freed slot is reusable', async () => {
    const h = await host();
    const good = await goodPair(h);
    const sixteen = [];
    for (let i = 0; i < 16; i++) {
      const opened = await openRaw(h, '127.0.0.2');
      raws.push(opened.raw);
      sixteen.push(opened);
    }
    const seventeenth = await RawClient.open(h.port, '127.0.0.2');
    raws.push(seventeenth);
    await waitFor(() => seventeenth.closed, 3000, 'the 17th to be closed');
    expect(seventeenth.frames).toEqual([]); // not even a Challenge
    expect(refusals(h, 'too-many-from-address')).toEqual([expect.objectContaining({ address: '127.0.0.2' })]);
    expect(h.connections).toHaveLength(2 + 16); // never handed to the session

    const other = await openRaw(h, '127.0.0.3');
    raws.push(other.raw);
    await other.raw.join('from-three');
    expect(sixteen.every((c) => c.conn.closeReason === undefined)).toBe(true);

    // One of the sixteen leaves: once the host has seen it go, 127.0.0.2 may open one again.
    sixteen[0]!.raw.destroy();
    await closedWith(h, sixteen[0]!.conn);
    let again: RawClient | undefined;
    for (let attempt = 0; attempt < 50 && !again; attempt++) {
      const r = await RawClient.open(h.port, '127.0.0.2');
      raws.push(r);
      await waitFor(() => r.frames.length > 0 || r.closed, 2000, 'a Challenge or a close');
      if (r.frames.length > 0) again = r;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!again) throw new Error('127.0.0.2 was never let in again');
    await again.join('from-two');
    await good.relays();
  });
});

describe('a peer that stops reading', () => {
  it('is closed with write-timeout while the host relays a lot of chat to it; its queue never passes the cap', async () => {
    const maxQueuedBytes = 1_100_000; // the smallest cap that holds one largest frame, rounded up
    const h = await host({}, { limits: { writeTimeoutMs: 300, maxQueuedBytes } });
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('sleeper');
    raw.socket.pause();
    const text = 'z'.repeat(400);
    let sent = 0;
    let highest = 0;
    // The host's own chat goes to every player; each batch waits until alice has read it, so only the sleeper
    // falls behind. The kernel absorbs a few MB first (reliability-tests §4).
    while (conn.closeReason === undefined && sent < 60_000) {
      for (let i = 0; i < 250; i++) h.host.chat(`${text} ${sent + i}`);
      sent += 250;
      highest = Math.max(highest, tcp(conn).queuedBytes);
      const last = `${text} ${sent - 1}`;
      await waitFor(() => good.alice.notices.some((n) => n.type === 'chat' && n.text === last) || conn.closeReason, 5000);
    }
    expect(await closedWith(h, conn)).toBe('write-timeout');
    expect(highest).toBeLessThanOrEqual(maxQueuedBytes);
    expect(good.alice.ended()).toBeUndefined();
    const away = await waitFor(() => h.logs.find((l) => l.msg === 'player away' && l.id === raw.you));
    expect(away).toMatchObject({ reason: 'write-timeout' });
    await good.relays();
  });
});
