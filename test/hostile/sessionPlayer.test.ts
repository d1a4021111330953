// Hostile hosts (or anyone on the path) against PlayerSession over real TCP (reliability-tests §7.3 H4, H5; spec
// "Handshake"): after the Welcome an unsealed Reject and a second Welcome are ignored, the session goes on and
// the player's counter does not restart; a Challenge that is not ours gets no Join.
import { afterEach, describe, expect, it } from 'vitest';
import { unsealedFrame } from '../../actors/wire.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { encodePayload, Kind } from '../../protocol/messages/index.ts';
import { Sealer } from '../../protocol/seal.ts';
import { FakeHost } from '../support/fakeHost.ts';
import { joinPlayer, KEY, waitFor, type TestPlayer } from '../support/session.ts';

let fakes: FakeHost[] = [];
let players: TestPlayer[] = [];
afterEach(async () => {
  for (const p of players) p.player.leave();
  players = [];
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
});

async function setup(challenge?: Uint8Array): Promise<{ fake: FakeHost; p: TestPlayer }> {
  const fake = await FakeHost.start(1, challenge);
  fakes.push(fake);
  const p = await joinPlayer(fake.port, 'bob');
  players.push(p);
  return { fake, p };
}

describe('PlayerSession after its Welcome', () => {
  it('ignores an unsealed Reject and a second Welcome; its id, sealer and counter carry on', async () => {
    const { fake, p } = await setup();
    await waitFor(() => p.player.joined, 3000, 'Welcome');
    expect(p.player.you).toBe(1);
    p.player.chat('first');
    const first = await fake.nth(1);
    expect(first.frame.header).toMatchObject({ sender: 1, counter: 1n });

    fake.write(unsealedFrame('Reject', { reason: 'bad-proof', detail: 'injected' }));
    fake.send('Welcome', { ...fake.welcome(7, 'bob'), hostName: 'impostor' });
    fake.send('Chat', { text: 'host still speaking', from: 0, name: 'fake' });
    await waitFor(() => p.notices.find((n) => n.type === 'chat'), 3000, 'the chat after the injections');

    expect(p.ended()).toBeUndefined();
    expect(p.player.joined).toBe(true);
    expect(p.player.you).toBe(1);
    expect(p.notices.filter((n) => n.type === 'welcomed')).toHaveLength(1);
    expect(p.logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['Reject after Welcome dropped', 'second Welcome dropped']));

    p.player.chat('second');
    const second = await fake.nth(2);
    expect(second.message).toEqual({ kind: 'Chat', payload: { text: 'second' } });
    expect(second.frame.header).toMatchObject({ sender: 1, counter: 2n }); // not restarted, not re-numbered
  });

  it('ignores an unsealed Kicked-like Reject from the path but ends on the sealed Kicked', async () => {
    const { fake, p } = await setup();
    await waitFor(() => p.player.joined, 3000, 'Welcome');
    fake.write(unsealedFrame('Reject', { reason: 'timeout' }));
    fake.send('Chat', { text: 'marker', from: 0, name: 'fake' });
    await waitFor(() => p.notices.find((n) => n.type === 'chat'));
    expect(p.ended()).toBeUndefined();
    fake.send('Kicked', { reason: 'kicked', detail: 'bye' });
    await waitFor(() => p.ended(), 3000, 'the end');
    expect(p.ended()).toEqual({ type: 'ended', reason: 'kicked', detail: 'bye' });
  });

  it('drops sealed frames from another sender than 0 and frames that do not open', async () => {
    const { fake, p } = await setup();
    await waitFor(() => p.player.joined, 3000, 'Welcome');
    const other = new Sealer(nodeCrypto.aesGcm(new Uint8Array(32).fill(1)), 0); // sender 0, wrong key
    const peer = new Sealer(nodeCrypto.aesGcm(KEY), 2); // right key, a player's id
    fake.write(other.seal(Kind.Chat, encodePayload('Chat', { text: 'wrong key' })));
    fake.write(peer.seal(Kind.Chat, encodePayload('Chat', { text: 'from a peer' })));
    fake.send('Chat', { text: 'genuine', from: 0, name: 'fake' });
    await waitFor(() => p.notices.find((n) => n.type === 'chat'));
    expect(p.notices.filter((n) => n.type === 'chat')).toEqual([{ type: 'chat', from: 0, name: 'fake', text: 'genuine' }]);
    expect(p.player.droppedFrames).toBe(2);
    expect(p.ended()).toBeUndefined();
  });
});

describe('PlayerSession before its Welcome', () => {
  const challenge = (nonceBytes: number, protocol: number) =>
    unsealedFrame('Challenge', { nonce: new Uint8Array(nonceBytes).fill(3), protocol, version: '0.1' });

  it.each([
    ['a 15-byte nonce', 'malformed', challenge(15, 1)],
    ['a 17-byte nonce', 'malformed', challenge(17, 1)],
    ['protocol 2', 'version', challenge(16, 2)],
  ])('a Challenge with %s gets no Join and ends the attempt: %s', async (_what, reason, bytes) => {
    const { fake, p } = await setup(bytes);
    await waitFor(() => p.ended(), 3000, 'the end');
    expect(p.ended()).toMatchObject({ reason });
    expect(fake.frames.filter((f) => f.header.kind === Kind.Join)).toEqual([]);
  });
});
