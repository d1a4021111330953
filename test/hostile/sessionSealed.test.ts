// Hostile sealed frames from a joined player over real TCP (reliability-tests §7.2 R6, §7.3 H6; spec "Frame",
// "Handshake", "Who may send what"): replays, forged tags, spoofed sender ids and forbidden kinds are dropped
// and counted without ending anyone's session; the well-behaved players keep relaying.
import { describe, expect, it } from 'vitest';
import { concatBytes, utf8 } from '../../protocol/bytes.ts';
import { playerMaySend } from '../../protocol/messages/index.ts';
import { joinedPlayer, waitFor, type TestPlayer } from '../support/session.ts';
import { closeReasons, dropLines, forgerFor, goodPair, hostDrops, openRaw, useHosts } from '../support/hostile.ts';

const host = useHosts();

const chatsOf = (p: TestPlayer, text: string) => p.notices.filter((n) => n.type === 'chat' && n.text === text);

describe('sealed frames a joined player must not get through', () => {
  it('a replayed frame (sent again as captured) is dropped and counted; the session goes on', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('mallory');
    const id = raw.you!;
    const first = raw.send('Chat', { text: 'one' });
    const second = raw.send('Chat', { text: 'two' });
    await waitFor(() => chatsOf(good.bob, 'two').length === 1);
    raw.write(second); // the newest counter again
    raw.write(first); // an older counter inside the window
    await waitFor(() => hostDrops(h.host, id)?.get('open:51') === 2, 3000, 'two replay drops');
    expect(dropLines(h.logs, id)).toEqual([expect.objectContaining({ cause: 'open', kind: 51, why: 'replay' })]);
    raw.send('Chat', { text: 'three' });
    await waitFor(() => chatsOf(good.bob, 'three').length === 1);
    expect(chatsOf(good.bob, 'one')).toHaveLength(1);
    expect(chatsOf(good.bob, 'two')).toHaveLength(1);
    expect(conn.closeReason).toBeUndefined();
    await good.relays();
  });

  it('a forged tag is dropped and burns no counter: the genuine frame with that counter is still accepted', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw } = await openRaw(h);
    await raw.join('mallory');
    const id = raw.you!;
    const genuine = raw.sealed('Chat', { text: 'genuine' });
    const forged = genuine.slice();
    forged[forged.length - 1]! ^= 0x01; // last tag byte
    const forgedBody = genuine.slice();
    forgedBody[20]! ^= 0x80; // first ciphertext byte
    raw.write(forged);
    raw.write(forgedBody);
    await waitFor(() => hostDrops(h.host, id)?.get('open:51') === 2, 3000, 'two tag drops');
    expect(dropLines(h.logs, id)).toEqual([expect.objectContaining({ cause: 'open', why: 'tag' })]);
    raw.write(genuine);
    await waitFor(() => chatsOf(good.alice, 'genuine').length === 1);
    await good.relays();
    expect(chatsOf(good.alice, 'genuine')).toHaveLength(1);
  });

  it('a spoofed sender id (3, 0, 65535) from player 2 is dropped before decrypt; the victim is untouched', async () => {
    const h = await host();
    const alice = await joinedPlayer(h.port, 'alice'); // 1
    const { raw, conn } = await openRaw(h);
    await raw.join('mallory'); // 2
    const victim = await joinedPlayer(h.port, 'victim'); // 3
    expect([alice.player.you, raw.you, victim.player.you]).toEqual([1, 2, 3]);
    victim.player.chat('before');
    await waitFor(() => chatsOf(alice, 'before').length === 1);
    // Validly sealed under the session key (mallory has it) with a far-future counter: had the host opened them,
    // sender 3's window would jump past the victim's next genuine counter and refuse it as a replay.
    const far = 1n << 40n;
    const spoofed = [3, 0, 65535].map((sender) => forgerFor(sender, far).seal(51, utf8('{"text":"spoofed"}')));
    raw.write(concatBytes(...spoofed));
    await waitFor(() => hostDrops(h.host, 2)?.get('sender:51') === 3, 3000, 'three sender drops');
    expect(dropLines(h.logs, 2).map((l) => [l.cause, l.sender])).toEqual([['sender', 3]]); // logged once per kind
    victim.player.chat('after');
    await waitFor(() => chatsOf(alice, 'after').length === 1);
    expect(alice.notices.some((n) => n.type === 'chat' && n.text === 'spoofed')).toBe(false);
    expect(victim.notices.some((n) => n.type === 'chat' && n.text === 'spoofed')).toBe(false);
    expect(hostDrops(h.host, 3)?.size).toBe(0);
    expect(conn.closeReason).toBeUndefined();
    expect(closeReasons(h.logs, conn.id)).toEqual([]);
  });

  it('every kind outside 30–41 and 50–53 is dropped and counted, one log line per (player, kind)', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('mallory');
    const id = raw.you!;
    const forbidden = Array.from({ length: 256 }, (_, k) => k).filter((k) => !playerMaySend(k));
    expect(forbidden).toHaveLength(240);
    const body = utf8('{}');
    // Each forbidden kind twice, sealed correctly with mallory's own id: 480 frames in one burst.
    raw.write(concatBytes(...forbidden.flatMap((k) => [raw.sealer!.seal(k, body), raw.sealer!.seal(k, body)])));
    await waitFor(() => [...(hostDrops(h.host, id)?.values() ?? [])].reduce((a, b) => a + b, 0) === 480, 5000, '480 drops');
    const drops = hostDrops(h.host, id)!;
    for (const k of forbidden) expect(drops.get(`kind:${k}`), `kind ${k}`).toBe(2);
    const lines = dropLines(h.logs, id);
    expect(lines.every((l) => l.cause === 'kind')).toBe(true);
    expect(lines.map((l) => l.kind)).toEqual(forbidden);
    // Nothing reached the players, and mallory's allowed traffic still flows.
    expect(good.alice.games().filter((m) => !['Welcome', 'Permissions', 'PlayerJoined'].includes(m.kind))).toEqual([]);
    raw.send('Chat', { text: 'allowed' });
    await waitFor(() => chatsOf(good.alice, 'allowed').length === 1);
    expect(conn.closeReason).toBeUndefined();
    await good.relays();
  });
});
