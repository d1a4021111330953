// A message held for a resync participant while the save travels reaches it after more than 64 chunks
// (actors/host/hostSession.ts releaseHeld): held as a message and sealed when released, its counter comes after the
// chunks', so the player's 64-frame replay window takes it. Sealed when it was made, it was refused as a replay.
import { describe, expect, it } from 'vitest';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession, type PlayerNotice } from '../../actors/player/playerSession.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeBase64 } from '../../adapters/base64/nodeBase64.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { runUntil } from '../../adapters/transport/memoryDriver.ts';
import { encodeChunkPayload } from '../../protocol/messages/chunkCodec.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY } from '../support/session.ts';

describe('messages held during a save transfer', () => {
  it('arrive after 100 chunks: sealed when released, not refused by the replay window', async () => {
    const clock = createSimulatedClock();
    const log = () => {};
    const net = createMemoryNetwork({ clock, seed: 3, link: { latencyMs: 5 }, log });
    const run = <V>(probe: () => V | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 20, maxMs: 60_000 });
    const host = new HostSession({ hostName: 'host', key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log });
    host.attach(net.listen('10.0.0.1:7000', { log }));
    const connecting = net.connect('10.0.0.1:7000', { localAddress: '10.0.1.1', log });
    const conn = await run(() => settledValue(connecting), 'a connection');
    const chunks: number[] = [];
    const notices: PlayerNotice[] = [];
    const player = new PlayerSession(
      { name: 'alice', key: KEY },
      { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log, saves: { accept: (c) => (chunks.push(c.index), 'accepted'), received: async () => undefined } },
    );
    player.on((n) => notices.push(n));
    player.connect(conn);
    await run(() => player.joined, 'alice to join');
    const id = host.connectedIds()[0]!;

    host.hold([id]);
    host.chat('held while the save travels');
    const data = new Uint8Array(16);
    for (let index = 0; index < 100; index++) {
      host.connectionOf(id)!.write(host.sealChunk(encodeChunkPayload({ id: 1, index, count: 100, sha256: 'ab'.repeat(32), data }, nodeBase64)));
    }
    await run(() => chunks.length === 100, 'the chunks to arrive');
    expect(notices.some((n) => n.type === 'chat' && n.text === 'held while the save travels')).toBe(false);
    host.releaseHeld(id);
    await run(() => notices.some((n) => n.type === 'chat' && n.text === 'held while the save travels'), 'the held chat to arrive');
  });
});
