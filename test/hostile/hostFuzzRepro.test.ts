// Focused reproductions of each failure class the whole-host fuzz (hostFuzz.test.ts) found: a real
// `feverlink3 host` process, honest and hostile peers over real sockets.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { utf8 } from '../../protocol/bytes.ts';
import { Sealer } from '../../protocol/seal.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { type FuzzHost } from '../support/hostFuzzHost.ts';
import { FuzzPeer, until, sleep } from '../support/hostFuzzPeer.ts';
import { RawJson, jsonText } from '../support/hostFuzzFields.ts';
import { endPool, host, peer } from '../support/hostFuzzPool.ts';
import { sawChat, sawStart, yes } from '../support/hostFuzzLives.ts';

vi.setConfig({ testTimeout: 30_000 });
afterEach(endPool);

// ---- focused reproductions of each failure class the fuzz found ---------------------------------------------

/** A host with alice and bob (honest) and mallory (hostile, key holder), all three ready at t = 0; started. */
async function threeReady(h: FuzzHost): Promise<{ alice: FuzzPeer; bob: FuzzPeer; mallory: FuzzPeer }> {
  const alice = await peer(h, 'alice', true);
  expect(await alice.join()).toBe('welcome');
  const bob = await peer(h, 'bob', true);
  expect(await bob.join()).toBe('welcome');
  const mallory = await peer(h, 'mallory', true);
  expect(await mallory.join()).toBe('welcome');
  for (const p of [alice, bob, mallory]) {
    p.send('Hello', { time: 0 });
    p.send('Clock', { t: 0, speed: 0, ahead: 2, safe: 0 });
  }
  await sleep(50);
  h.type('/start');
  await until(() => yes(sawStart(alice)), 3000);
  return { alice, bob, mallory };
}

const failuresOf = (...ps: FuzzPeer[]): string[] =>
  ps.flatMap((p) => p.failures.map((f) => `${p.name} ${f.kindName}: ${f.why}`));

describe('focused reproductions', () => {
  it('an Action of numbers written short (1e9) that grow past a frame as relayed keeps the host up', async () => {
    const h = await host();
    const { alice, bob, mallory } = await threeReady(h);
    // 116 000 numbers: within the validator's budget (9 per number) as sent, about 1.28 MB as the host writes them.
    const text = jsonText({ stamp: 5000, seq: 1, body: Array.from({ length: 116_000 }, () => new RawJson('1e9')) });
    expect(utf8(text).length).toBeLessThan(1_048_548);
    mallory.sendRaw(Kind.Action, utf8(text));
    await sleep(1000);
    expect(h.alive(), `the host died:\n${h.launcher.stderr().slice(0, 2000)}`).toBe(true);
    alice.send('Chat', { text: 'after' });
    expect(await until(() => yes(sawChat(bob, 'after')), 3000)).toBe(true);
    expect(failuresOf(alice, bob)).toEqual([]);
  });

  it('an Action that just fits a frame, grown past it by the fields the host adds, keeps the host up', async () => {
    const h = await host();
    const { alice, bob, mallory } = await threeReady(h);
    const text = JSON.stringify({ stamp: 5000, seq: 1, body: 'b'.repeat(1_048_548 - 60) });
    expect(utf8(text).length).toBeLessThanOrEqual(1_048_548);
    mallory.sendRaw(Kind.Action, utf8(text));
    await sleep(1000);
    expect(h.alive(), `the host died:\n${h.launcher.stderr().slice(0, 2000)}`).toBe(true);
    alice.send('Chat', { text: 'after' });
    expect(await until(() => yes(sawChat(bob, 'after')), 3000)).toBe(true);
    expect(failuresOf(alice, bob)).toEqual([]);
  });

  it('a Pong with an absurd wall clock w (1e308) leaves every later Ping decodable', { timeout: 30_000 }, async () => {
    const h = await host();
    const alice = await peer(h, 'alice', true);
    expect(await alice.join()).toBe('welcome');
    const mallory = await peer(h, 'mallory', false);
    expect(await mallory.join()).toBe('welcome');
    const first = await until(() => mallory.lastPing, 5000); // the host pings every 2 s
    mallory.send('Pong', { n: first!, w: 1e308 });
    // The Ping after it carries every player's clock offset.
    await until(() => yes((alice.counts.get('Ping') ?? 0) >= 3), 7000);
    expect(alice.counts.get('Ping') ?? 0).toBeGreaterThanOrEqual(2);
    expect(failuresOf(alice, mallory)).toEqual([]);
  });

  it('a player that jumps its own counter past 2^53 (2^62) still gets Pings that decode', { timeout: 30_000 }, async () => {
    const h = await host();
    const alice = await peer(h, 'alice', true);
    expect(await alice.join()).toBe('welcome');
    const mallory = await peer(h, 'mallory', true);
    expect(await mallory.join()).toBe('welcome');
    mallory.sealer = new Sealer(nodeCrypto.aesGcm(mallory.key), mallory.you!, { firstCounter: 2n ** 62n });
    mallory.send('Chat', { text: 'far' });
    await until(() => yes(sawChat(alice, 'far')), 3000);
    // The host pings every 2 s; the Ping after the jump would carry ack = 2^62 as a rounded JSON number.
    const pingsBefore = mallory.counts.get('Ping') ?? 0;
    await until(() => yes((mallory.counts.get('Ping') ?? 0) > pingsBefore), 5000);
    expect(mallory.counts.get('Ping') ?? 0).toBeGreaterThan(pingsBefore);
    expect(h.alive()).toBe(true);
    expect(failuresOf(alice, mallory)).toEqual([]);
  });

  it('a huge Clock t, then a pause: Session stays valid and a new player can still join', async () => {
    const h = await host();
    const { alice, mallory } = await threeReady(h);
    mallory.send('Clock', { t: 2 ** 53 - 1, speed: 4, ahead: 2, safe: 2 ** 53 - 1 });
    await sleep(100);
    h.type('/pause');
    await until(() => yes((alice.counts.get('Session') ?? 0) >= 2), 3000);
    const carol = await peer(h, 'carol', true);
    expect(await carol.join('carol', { waitMs: 4000 })).toBe('welcome');
    expect(failuresOf(alice, carol)).toEqual([]);
  });

  it('a huge Clock t, a held pause action, then a resume: the flushed Action has a valid stamp', async () => {
    const h = await host();
    const { alice, bob, mallory } = await threeReady(h);
    mallory.send('Clock', { t: 2 ** 53 - 1, speed: 0, ahead: 2, safe: 2 ** 53 - 1 });
    await sleep(100);
    h.type('/pause');
    mallory.send('Action', { seq: 1, body: { held: true }, pause: true });
    await sleep(100);
    h.type('/speed 1'); // the unpause flushes the pause order at max(pauseAt, the furthest clock)
    alice.send('Chat', { text: 'after' });
    await until(() => yes(sawChat(bob, 'after')), 3000);
    await sleep(200);
    expect(h.alive()).toBe(true);
    expect(failuresOf(alice, bob)).toEqual([]);
  });

  it("the host's own chat line of 500 or more characters reaches the players as a valid Chat", async () => {
    const h = await host();
    const alice = await peer(h, 'alice', true);
    expect(await alice.join()).toBe('welcome');
    h.type('é'.repeat(500));
    h.type('x'.repeat(600));
    h.type('done');
    await until(() => yes(sawChat(alice, 'done')), 3000);
    expect(failuresOf(alice)).toEqual([]);
  });
});

