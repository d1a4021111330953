// Reconnect and catching up (spec "Reconnect", "Catching up"; issue 12 items 1–3) over the in-memory network: a
// player whose connection drops comes back with its id, gets exactly what it missed (resent sealed anew), resends
// what the host had not read and what its game sent while away, and keeps its sender counter; a resume that does not
// check out is a plain join; a returner past its outbox is not caught up.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatedClock } from 'xstate';
import { memoryHarness, settledValue, type MemoryHarness } from '../support/memorySession.ts';
import { joinedPlayer, type ProtocolPeer, type TestHost, type TestPlayer } from '../support/sessionHarness.ts';
import { KEY } from '../support/session.ts';
import { OUTBOX_MAX_AGE_MS } from '../../actors/host/outbox.ts';
import { decodeMessage, unsealedFrame } from '../../actors/wire.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { runUntil } from '../../adapters/transport/memoryDriver.ts';
import { joinProof } from '../../protocol/keys.ts';
import { Sealer } from '../../protocol/seal.ts';
import { Kind, type Payloads } from '../../protocol/messages/index.ts';

let t: MemoryHarness;
afterEach(async () => {
  await t.closeAll();
});

/** Cuts the player's connection from the host's side, as a reset would: no Kicked, no Leave. */
function cut(h: TestHost, index: number): void {
  h.connections[index]!.close('reset');
}

async function reconnect(h: TestHost, p: TestPlayer): Promise<void> {
  const pending = t.network.connect({ host: h.listener.host, port: h.port }, { log: () => {} });
  const conn = await runUntil(t.clock, t.network, () => settledValue(pending), { maxMs: 5000, what: 'the connection' });
  p.player.reconnect(conn);
}

const chats = (p: TestPlayer) => p.notices.flatMap((n) => (n.type === 'chat' ? [n.text] : []));
const hostChats = (h: TestHost, from: number) => h.notices.flatMap((n) => (n.type === 'chat' && n.from === from ? [n.text] : []));

describe('resume', () => {
  it('a dropped player comes back with its id and exactly what it missed, both ways, in order', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const alice = await joinedPlayer(t, h, 'alice');
    const bob = await joinedPlayer(t, h, 'bob');
    const id = alice.player.you!;
    h.host.chat('before');
    await t.waitFor(() => chats(alice).includes('before'));

    cut(h, 0);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'away'), 5000, 'alice away');
    expect(alice.player.resumable).toBe(true);
    expect(h.host.players().find((p) => p.id === id)?.away).toBe(true);
    // Missed while away: the host's and bob's lines; and alice's game goes on talking.
    h.host.chat('missed 1');
    bob.player.chat('missed 2');
    alice.player.chat('while away');
    await t.tick(50);

    await reconnect(h, alice);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'resumed'), 5000, 'alice resumed');
    const resumed = alice.notices.find((n) => n.type === 'resumed')!;
    expect(resumed).toEqual({ type: 'resumed', you: id, caughtUp: true });
    await t.waitFor(() => chats(alice).includes('missed 2') && hostChats(h, id).includes('while away'), 5000, 'the catch-up');
    expect(chats(alice)).toEqual(['before', 'missed 1', 'missed 2']);
    expect(hostChats(h, id)).toEqual(['while away']);
    expect(h.host.players().find((p) => p.id === id)?.away).toBe(false);
    expect(h.host.slotOf(id)?.getSnapshot().value).toBe('Connected');
    expect(h.notices.some((n) => n.type === 'returned' && n.id === id)).toBe(true);
    expect(h.logs.some((e) => e.msg === 'player resumed' && e.catchUp === true)).toBe(true);

    // The same sender goes on: its next frame is heard (its counter continued above the host's window).
    alice.player.chat('after');
    await t.waitFor(() => hostChats(h, id).includes('after'), 5000, 'alice heard after the resume');
    expect(h.host.droppedFrames(id)?.size ?? 0).toBe(0);
  });

  it('a resume whose MAC does not check out is a plain join: a new id, resumed left out', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const alice = await joinedPlayer(t, h, 'alice');
    const id = alice.player.you!;
    // A raw peer claims alice's slot with a made-up MAC.
    const { raw } = await (async () => {
      const before = h.connections.length;
      const peer = await t.rawPeer(h);
      await t.waitFor(() => h.connections[before]);
      return { raw: peer };
    })();
    const welcome = await joinWithResume(raw, 'alice', { id, mac: new Uint8Array(32) });
    expect(welcome.you).not.toBe(id);
    expect(welcome.resumed).toBeUndefined();
    expect(h.logs.some((e) => e.msg === 'resume refused: a plain join' && e.why === 'the resume MAC does not check out')).toBe(true);
  });

  it('a full session refuses a joiner but not the returner whose away slot holds its place', async () => {
    t = memoryHarness();
    const h = await t.startHost({ maxPlayers: 2 });
    const alice = await joinedPlayer(t, h, 'alice');
    const id = alice.player.you!;
    cut(h, 0);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'away'), 5000, 'alice away');
    const bob = await t.joinPlayer(h, 'bob');
    await t.waitFor(() => bob.ended(), 5000, 'bob refused');
    expect(bob.ended()).toMatchObject({ reason: 'full' });
    await reconnect(h, alice);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'resumed'), 5000, 'alice resumed');
    expect(alice.player.you).toBe(id);
  });

  it('a returner whose missed messages outgrew the outbox is resumed without catchUp', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const alice = await joinedPlayer(t, h, 'alice');
    const id = alice.player.you!;
    cut(h, 0);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'away'), 5000, 'alice away');
    h.host.chat('old');
    (h.clock as SimulatedClock).increment(OUTBOX_MAX_AGE_MS + 1);
    h.host.chat('new');
    await reconnect(h, alice);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'resumed'), 5000, 'alice resumed');
    expect(alice.notices.find((n) => n.type === 'resumed')).toEqual({ type: 'resumed', you: id, caughtUp: false });
    expect(chats(alice)).not.toContain('old');
    expect(h.logs.some((e) => e.msg === 'player resumed' && e.catchUp === false)).toBe(true);
  });

  it('a returner whose missed messages hold a stamp its game may have run past is resumed without catchUp', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const alice = await joinedPlayer(t, h, 'alice');
    const id = alice.player.you!;
    // The lockstep's check (hostLockstep.ts, returnStamps.ts) stands in here: it is asked with what alice missed.
    const asked: unknown[] = [];
    h.host.lateForReturn = (who, missed) => {
      asked.push({ who, kinds: missed.map((m) => m.kind) });
      return 'its game may have run to 13000 alone, past a stamp it missed (Action at 11800)';
    };
    cut(h, 0);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'away'), 5000, 'alice away');
    h.host.chat('missed');
    await reconnect(h, alice);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'resumed'), 5000, 'alice resumed');
    expect(asked).toEqual([{ who: id, kinds: ['Chat'] }]);
    expect(alice.notices.find((n) => n.type === 'resumed')).toEqual({ type: 'resumed', you: id, caughtUp: false });
    expect(chats(alice)).not.toContain('missed');
    expect(h.logs.some((e) => e.msg === 'player resumed' && e.catchUp === false)).toBe(true);
    expect(JSON.stringify(h.logs)).toContain('past a stamp it missed (Action at 11800)');
  });

  it('a returner whose frame counter went past 2^53 − 1 is resumed without catchUp, with a Welcome it can decode', async () => {
    t = memoryHarness();
    const h = await t.startHost();
    const alice = await joinedPlayer(t, h, 'alice');
    const bob = await joinedPlayer(t, h, 'bob');
    const id = alice.player.you!;
    // alice's own counter jumps to 2^62 (valid: a u64 that only goes up); the host has heard it
    (alice.player as unknown as { sealer: Sealer }).sealer = new Sealer(nodeCrypto.aesGcm(KEY), id, { firstCounter: 2n ** 62n });
    alice.player.chat('far');
    await t.waitFor(() => chats(bob).includes('far'), 5000, 'the far chat');
    cut(h, 0);
    await t.waitFor(() => alice.notices.some((n) => n.type === 'away'), 5000, 'alice away');
    await reconnect(h, alice);
    // was: Welcome.catchUp = 4611686018427388000, which the player's decoder refuses: no resume at all
    await t.waitFor(() => alice.notices.some((n) => n.type === 'resumed'), 5000, 'alice resumed');
    expect(alice.notices.find((n) => n.type === 'resumed')).toEqual({ type: 'resumed', you: id, caughtUp: false });
    expect(h.logs.some((e) => e.msg === 'player resumed' && e.catchUp === false)).toBe(true);
  });
});

/** A raw Join with `resume`, answered by Welcome (the peer's messages). */
async function joinWithResume(raw: ProtocolPeer, name: string, resume: { id: number; mac: Uint8Array; last?: number }): Promise<Payloads['Welcome']> {
  const frame = await t.waitFor(() => raw.frames.find((f) => f.header.kind === Kind.Challenge), 5000, 'challenge');
  const decoded = decodeMessage(Kind.Challenge, frame.body);
  if (!decoded.ok || decoded.message.kind !== 'Challenge') throw new Error('no challenge');
  const nonce = decoded.message.payload.nonce;
  raw.write(unsealedFrame('Join', { name, version: '0.1', proof: joinProof(nodeCrypto, KEY, nonce, name), resume }));
  const welcome = await t.waitFor(() => raw.messages().find((m) => m.kind === 'Welcome'), 5000, 'welcome');
  return welcome.payload as Payloads['Welcome'];
}
