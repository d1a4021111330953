// Resume over real TCP against forged and replayed input (reliability-tests.md H8 resume-mac, R7
// resume-continuity; spec "Reconnect"): a resume whose MAC is wrong in any part — token, nonce, id, name, last, or a
// token of an earlier epoch — is never `resumed` (a plain join with a new id); a good one gives the slot back with
// the next epoch; the returner's frames of the old connection replayed on the new one are all refused, and its counter
// goes on above them.
import { describe, expect, it } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { joinProof, resumeMac } from '../../protocol/keys.ts';
import type { Payloads } from '../../protocol/messages/index.ts';
import { unsealedFrame } from '../../actors/wire.ts';
import { KEY, RawClient, waitFor } from '../support/session.ts';
import { challengeOf, goodPair, openRaw, useHosts } from '../support/hostile.ts';

let raws: RawClient[] = [];
const host = useHosts(() => {
  for (const r of raws) r.destroy();
  raws = [];
});

/** A Join with a hand-made resume (the MAC as given), answered by a Welcome. */
async function joinWith(raw: RawClient, name: string, resume: (nonce: Uint8Array) => Payloads['Join']['resume']): Promise<Payloads['Welcome']> {
  const { nonce } = await challengeOf(raw);
  raw.write(unsealedFrame('Join', { name, version: '0.1', proof: joinProof(nodeCrypto, KEY, nonce, name), resume: resume(nonce) }));
  const welcome = await waitFor(() => raw.messages().find((m) => m.kind === 'Welcome'), 3000, 'welcome');
  return welcome.payload as Payloads['Welcome'];
}

const mac = (token: Uint8Array, nonce: Uint8Array, id: number, name: string, last?: number) =>
  resumeMac(nodeCrypto, token, nonce, id, name, last === undefined ? undefined : BigInt(last));

describe('resume against forgery and replay (TCP)', () => {
  it('a resumed Welcome lost in a second drop: the previous token still resumes, until the returner speaks', async () => {
    const h = await host({ silenceMs: 3_600_000 });
    const dropper = (await openRaw(h)).raw;
    raws.push(dropper);
    const first = await dropper.join('dropper');
    const id = first.you;
    dropper.destroy();
    await waitFor(() => h.host.slotOf(id)?.getSnapshot().value === 'Away', 3000, 'away');
    // Resumed, but the player never reads the Welcome (the connection drops at once).
    const lost = (await openRaw(h)).raw;
    raws.push(lost);
    expect(await joinWith(lost, 'dropper', (nonce) => ({ id, mac: mac(first.resume!.token, nonce, id, 'dropper') }))).toMatchObject({ resumed: true, resume: { epoch: 1 } });
    lost.destroy();
    await waitFor(() => h.host.slotOf(id)?.getSnapshot().value === 'Away', 3000, 'away again');
    const again = (await openRaw(h)).raw;
    raws.push(again);
    expect(await joinWith(again, 'dropper', (nonce) => ({ id, mac: mac(first.resume!.token, nonce, id, 'dropper') }))).toMatchObject({ you: id, resumed: true, resume: { epoch: 2 } });
  });

  it('H8: a wrong token, nonce, id, name or last, or a stale epoch, is a plain join; a good resume moves the epoch on', async () => {
    const h = await host({ silenceMs: 3_600_000 });
    const dropper = (await openRaw(h)).raw;
    raws.push(dropper);
    const first = await dropper.join('dropper');
    const id = first.you;
    const token0 = first.resume!.token;
    expect(first.resume!.epoch).toBe(0);
    dropper.destroy();
    await waitFor(() => h.host.slotOf(id)?.getSnapshot().value === 'Away', 3000, 'away');

    const other = new Uint8Array(16).fill(7);
    const forged: [string, (nonce: Uint8Array) => Payloads['Join']['resume']][] = [
      ['token', (nonce) => ({ id, mac: mac(other, nonce, id, 'dropper') })],
      ['nonce', () => ({ id, mac: mac(token0, new Uint8Array(16), id, 'dropper') })],
      ['id', (nonce) => ({ id, mac: mac(token0, nonce, id + 1, 'dropper') })],
      ['name', (nonce) => ({ id, mac: mac(token0, nonce, id, 'dropperx') })],
      ['last', (nonce) => ({ id, mac: mac(token0, nonce, id, 'dropper', 7), last: 8 })],
    ];
    // Each from its own address: plain joins take from the join rate (8 per address).
    let address = 2;
    for (const [what, resume] of forged) {
      const raw = (await openRaw(h, `127.0.0.${address++}`)).raw;
      raws.push(raw);
      const welcome = await joinWith(raw, 'dropper', resume);
      expect(welcome.resumed, what).toBeUndefined();
      expect(welcome.you, what).not.toBe(id);
    }
    expect(h.logs.filter((e) => e.msg === 'resume refused: a plain join')).toHaveLength(forged.length);
    expect(h.host.slotOf(id)?.getSnapshot().value).toBe('Away');

    // The good one: epoch 1, a fresh token.
    const back = (await openRaw(h)).raw;
    raws.push(back);
    const resumed = await joinWith(back, 'dropper', (nonce) => ({ id, mac: mac(token0, nonce, id, 'dropper') }));
    expect(resumed).toMatchObject({ you: id, resumed: true, resume: { epoch: 1 } });
    expect(Buffer.from(resumed.resume!.token).equals(Buffer.from(token0))).toBe(false);
    // Until the returner speaks on its new connection its previous token still resumes (its Welcome may be lost).
    back.sealer = dropper.sealer;
    back.send('Chat', { text: 'I read the Welcome' });
    await waitFor(() => h.notices.some((n) => n.type === 'chat' && n.text === 'I read the Welcome'), 3000, 'the chat');
    back.destroy();
    await waitFor(() => h.host.slotOf(id)?.getSnapshot().value === 'Away', 3000, 'away again');

    // Epoch 0's token is stale now (the returner spoke with epoch 1's); epoch 1's resumes (epoch 2).
    const stale = (await openRaw(h, `127.0.0.${address++}`)).raw;
    raws.push(stale);
    expect((await joinWith(stale, 'dropper', (nonce) => ({ id, mac: mac(token0, nonce, id, 'dropper') }))).resumed).toBeUndefined();
    const again = (await openRaw(h)).raw;
    raws.push(again);
    const token1 = resumed.resume!.token;
    expect(await joinWith(again, 'dropper', (nonce) => ({ id, mac: mac(token1, nonce, id, 'dropper') }))).toMatchObject({ you: id, resumed: true, resume: { epoch: 2 } });
  });

  it('R7: the old connection’s frames replayed on the new one are refused; the counter goes on above them', async () => {
    const h = await host({ silenceMs: 3_600_000 });
    const good = await goodPair(h);
    const dropper = (await openRaw(h)).raw;
    raws.push(dropper);
    const first = await dropper.join('dropper');
    const id = first.you;
    const old: Uint8Array[] = [];
    for (let i = 0; i < 10; i++) old.push(dropper.send('Chat', { text: `before ${i}` }));
    await waitFor(() => good.alice.notices.some((n) => n.type === 'chat' && n.text === 'before 9'), 3000, 'the last chat before');
    const maxBefore = dropper.sealer!.nextCounter - 1n;
    dropper.destroy();
    await waitFor(() => h.host.slotOf(id)?.getSnapshot().value === 'Away', 3000, 'away');

    const back = (await openRaw(h)).raw;
    raws.push(back);
    await back.join('dropper', { resume: { id, token: first.resume!.token } });
    back.sealer = dropper.sealer; // the same sender: its counter goes on
    for (const frame of old) back.write(frame);
    const fresh = back.send('Chat', { text: 'after' });
    await waitFor(() => good.alice.notices.some((n) => n.type === 'chat' && n.text === 'after'), 3000, 'the chat after');
    const counterOf = (frame: Uint8Array) => new DataView(frame.buffer, frame.byteOffset).getBigUint64(4 + 4);
    expect(counterOf(fresh)).toBeGreaterThan(maxBefore);
    const replayed = good.alice.notices.filter((n) => n.type === 'chat' && n.text.startsWith('before')).length;
    expect(replayed).toBe(10); // each once, from before the drop: none of the replays came through
    const drops = [...(h.host.droppedFrames(id) ?? new Map<string, number>())];
    expect(drops.filter(([cause]) => cause.startsWith('open:')).reduce((sum, [, n]) => sum + n, 0)).toBe(10);
  });
});
