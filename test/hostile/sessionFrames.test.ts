// Hostile bytes at the frame level against a real host over TCP (reliability-tests §7.4 L1, L2, L6, L9, L10;
// spec "Frame", "Handshake"): each hostile connection ends alone with its own logged reason, the first one
// recorded, while two well-behaved players keep relaying chat through the host.
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../protocol/bytes.ts';
import { HANDSHAKE_MAX_LENGTH } from '../../protocol/frame.ts';
import { Kind } from '../../protocol/messages/index.ts';
import {
  challengeOf,
  closedWith,
  dropLines,
  goodPair,
  hostDrops,
  joinJson,
  kickedOf,
  lengthPrefix,
  openRaw,
  rawUnsealed,
  rejectOf,
  useHosts,
} from '../support/hostile.ts';
import { waitFor } from '../support/session.ts';

const host = useHosts();

describe('hostile frames before the Join', () => {
  it('junk bytes: Reject malformed, only that connection ends', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    raw.write(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: feverlink\r\n\r\n'));
    expect(await rejectOf(raw)).toMatchObject({ reason: 'malformed' });
    expect(await closedWith(h, conn)).toBe('malformed');
    await waitFor(() => raw.closed, 3000, 'the host to close');
    await good.relays();
    expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice', 'bob']);
  });

  it('an absurd length (0xFFFFFFFF) is refused from its 4 bytes, before any body arrives', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    raw.write(lengthPrefix(0xffffffff));
    expect(await rejectOf(raw)).toMatchObject({ reason: 'malformed' });
    expect(await closedWith(h, conn)).toBe('malformed');
    const limit = h.logs.find((l) => l.msg === 'limit exceeded' && l.id === conn.id);
    expect(limit).toMatchObject({ reason: 'malformed', code: 'length', length: 0xffffffff });
    await good.relays();
  });

  it('a 4097-byte first frame is refused; a 4096-byte Join passes to the Join check and is welcomed', async () => {
    const h = await host();
    const good = await goodPair(h);

    const big = await openRaw(h);
    // The prefix alone decides: 4097 is over the handshake limit whatever follows.
    big.raw.write(concatBytes(lengthPrefix(HANDSHAKE_MAX_LENGTH + 1), new Uint8Array(64).fill(1)));
    expect(await rejectOf(big.raw)).toMatchObject({ reason: 'malformed' });
    expect(await closedWith(h, big.conn)).toBe('malformed');
    expect(h.logs.find((l) => l.msg === 'limit exceeded' && l.id === big.conn.id)).toMatchObject({ length: 4097 });

    const exact = await openRaw(h);
    const { nonce } = await challengeOf(exact.raw);
    // A correct Join padded with an unknown field until the length field reads exactly 4096.
    const base = joinJson(nonce, 'carol', { pad: '' });
    const json = joinJson(nonce, 'carol', { pad: 'x'.repeat(HANDSHAKE_MAX_LENGTH - 12 - base.length) });
    const frame = rawUnsealed(Kind.Join, json);
    expect(new DataView(frame.buffer).getUint32(0)).toBe(HANDSHAKE_MAX_LENGTH);
    exact.raw.write(frame);
    await waitFor(() => exact.raw.messages().find((m) => m.kind === 'Welcome'), 3000, 'Welcome');
    expect(exact.conn.closeReason).toBeUndefined();
    expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice', 'bob', 'carol']);
    await good.relays();
  });

  it('an unknown kind before the Join: Reject malformed naming the kind', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    raw.write(rawUnsealed(200, '{}'));
    expect(await rejectOf(raw)).toEqual({ reason: 'malformed', detail: 'expected Join, got kind 200' });
    expect(await closedWith(h, conn)).toBe('malformed');
    expect(h.logs.find((l) => l.msg === 'join rejected' && l.conn === conn.id)).toMatchObject({ reason: 'malformed' });
    await good.relays();
  });

  it('a Join that is not JSON: Reject malformed', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await challengeOf(raw);
    raw.write(rawUnsealed(Kind.Join, new Uint8Array([0xff, 0xfe, 0x7b])));
    expect(await rejectOf(raw)).toMatchObject({ reason: 'malformed' });
    expect(await closedWith(h, conn)).toBe('malformed');
    await good.relays();
  });

  it('a frame rate over the limit before the Welcome: Reject flood (a limit the first frame already breaks)', async () => {
    // The host decides on the first frame (Join → Welcome or Reject, anything else → malformed), so at
    // 1000 frames/s no connection can flood before its Welcome; a limit below one frame reaches that path.
    // No player can join this host, so the well-behaved pair runs on a second host meanwhile.
    const other = await host();
    const good = await goodPair(other);
    const h = await host({}, { limits: { maxFramesPerSecond: 0.5 } });
    const { raw, conn } = await openRaw(h);
    const { nonce } = await challengeOf(raw);
    raw.write(rawUnsealed(Kind.Join, joinJson(nonce, 'eager')));
    expect(await rejectOf(raw)).toEqual({ reason: 'flood' });
    expect(await closedWith(h, conn)).toBe('flood');
    expect(h.host.players()).toHaveLength(1);
    await good.relays();
  });
});

describe('hostile frames after the Welcome', () => {
  it('an unknown kind after the Join is dropped, counted and logged once; the session goes on', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('mallory');
    const id = raw.you!;
    raw.write(raw.sealer!.seal(200, new TextEncoder().encode('{}')));
    raw.write(raw.sealer!.seal(200, new TextEncoder().encode('{}')));
    await waitFor(() => hostDrops(h.host, id)?.get('kind:200') === 2, 3000, 'two drops');
    expect(dropLines(h.logs, id)).toEqual([expect.objectContaining({ cause: 'kind', kind: 200 })]);
    raw.send('Chat', { text: 'mallory is still here' });
    await waitFor(() => good.bob.notices.find((n) => n.type === 'chat' && n.text === 'mallory is still here'));
    expect(conn.closeReason).toBeUndefined();
    await good.relays();
  });

  it('more than 1000 frames in a second: the sealed Kicked flood, the slot released, others unaffected', async () => {
    const h = await host();
    const good = await goodPair(h);
    const { raw, conn } = await openRaw(h);
    await raw.join('flooder');
    const id = raw.you!;
    const burst = Array.from({ length: 1500 }, () => raw.sealed('Pong', { n: 999_999 }));
    raw.write(concatBytes(...burst));
    expect(await kickedOf(raw)).toMatchObject({ reason: 'flood' });
    expect(await closedWith(h, conn)).toBe('flood');
    expect(h.logs.find((l) => l.msg === 'player left' && l.id === id)).toMatchObject({ reason: 'flood' });
    const left = await waitFor(() => good.alice.games().find((m) => m.kind === 'PlayerLeft'));
    expect(left.payload).toEqual({ id, name: 'flooder' }); // released, not held: no `away`
    await good.relays();
  });
});
