// What the host keeps to send again (a returner's outbox, the relay ledger for a round's load) is kept as the JSON text
// it sealed (actors/wire.ts EncodedMessage), not as the payload's objects: a kept item is what went out, whatever
// happens to the payload object afterwards, and it comes back as the same typed message. The relay ledger takes the
// text the broadcast just sealed (HostSender.textOf) instead of writing a second JSON of every relayed Action.
import { describe, expect, it } from 'vitest';
import { HostSender } from '../../actors/host/hostSender.ts';
import { PlayerLink } from '../../actors/host/playerLink.ts';
import { attachRelayLedger } from '../../actors/host/relayLedger.ts';
import type { HostLockstep } from '../../actors/host/hostLockstep.ts';
import type { ConnectionHandle } from '../../actors/connectionActor.ts';
import { decodeEncoded } from '../../actors/wire.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { payloadToJson, type Payloads } from '../../protocol/messages/index.ts';
import { Sealer } from '../../protocol/seal.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';

const KEY = new Uint8Array(32).fill(7);

function sender() {
  const written: Uint8Array[] = [];
  const conn = { id: 1, write: (bytes: Uint8Array) => written.push(bytes) } as unknown as ConnectionHandle;
  const clock = createSimulatedClock();
  const links = new Map([[2, new PlayerLink(2, conn, 0)]]);
  const logs: Record<string, unknown>[] = [];
  const host = new HostSender({ sealer: new Sealer(nodeCrypto.aesGcm(KEY), 0), links, clock, log: (e) => logs.push(e) });
  host.openOutbox(2);
  host.openOutbox(3); // player 3 is away: what the others are sent is kept for its return
  return { host, written, logs };
}

const action = (seq: number): Payloads['Action'] => ({ stamp: 100 + seq, seq, from: 2, allowed: true, category: 'build', body: { cmd: 'buildTrack', at: [seq, 2] } });

describe('kept as the JSON text that was sealed', () => {
  it("a player's outbox and an away player's give back what was sent, not what the payload object became", () => {
    const { host, written } = sender();
    const payload = action(1);
    const sent = structuredClone(payload);
    expect(host.broadcast('Action', payload)).toBe(true);
    expect(written).toHaveLength(1);
    (payload.body as { cmd: string }).cmd = 'demolish';
    payload.seq = 99;
    for (const id of [2, 3]) {
      const cover = host.coverOf(id, 0, 0);
      expect(cover).toEqual({ covers: true, messages: [{ kind: 'Action', payload: sent }] });
    }
    expect(host.outboxOf(2)!.cover(0, 0)).toEqual({ covers: true, messages: [{ kind: 'Action', text: payloadToJson('Action', sent) }] });
  });

  it('a kept text that no longer decodes is no cover, with the reason', () => {
    const { host } = sender();
    host.outboxOf(3)!.missed({ kind: 'Action', text: '{"seq":' }, 7, 0);
    expect(host.coverOf(3, 0, 0)).toEqual({ covers: false, why: 'a kept Action did not decode' });
    expect(host.coverOf(9, 0, 0)).toEqual({ covers: false, why: 'no outbox' });
  });

  it("textOf gives the broadcast's own text once, for that payload object only", () => {
    const { host } = sender();
    const payload = action(2);
    host.broadcast('Action', payload);
    const sealed = host.textOf('Action', payload);
    expect(sealed).toBe(payloadToJson('Action', action(2)));
    // Taken: the object is written again (here changed first, so the text shows it was written anew).
    payload.seq = 5;
    expect(JSON.parse(host.textOf('Action', payload)).seq).toBe(5);
    // Another object than the last broadcast's is written, never given the broadcast's text.
    host.broadcast('Action', action(3));
    expect(JSON.parse(host.textOf('Action', action(4))).seq).toBe(4);
  });
});

describe('the relay ledger keeps texts', () => {
  type Listener = (e: { payload: Payloads['Action'] | Payloads['BuildVeto']; to?: string }) => void;
  const lockstep = (listeners: Map<string, Listener>) =>
    ({
      actor: {
        getSnapshot: () => ({ context: { games: {} } }),
        on: (type: string, fn: Listener) => (listeners.set(type, fn), { unsubscribe: () => listeners.delete(type) }),
      },
    }) as unknown as HostLockstep;

  it('resends what was relayed, typed again, with the vetoes of its items, after the payload objects changed', () => {
    const listeners = new Map<string, Listener>();
    const texts: string[] = [];
    const ledger = attachRelayLedger(lockstep(listeners), () => {}, (kind, payload) => {
      const text = payloadToJson(kind, payload);
      texts.push(text);
      return text;
    });
    const first = action(1);
    const second = action(2);
    listeners.get('send.Action')!({ payload: first });
    listeners.get('send.Action')!({ payload: second });
    listeners.get('send.BuildVeto')!({ payload: { seq: 2, owner: 2, why: 'no room', host: true }, to: 'all' });
    listeners.get('send.BuildVeto')!({ payload: { seq: 7, owner: 2, why: 'not ours' }, to: 'all' });
    first.seq = 50;
    expect(texts).toHaveLength(4); // every item's text came from textOf: none was written twice
    const since = ledger.since(102);
    expect(since).toEqual([
      { kind: 'Action', payload: action(2) },
      { kind: 'BuildVeto', payload: { seq: 2, owner: 2, why: 'no room', host: true } },
    ]);
    expect(ledger.since(0).map((m) => m.kind)).toEqual(['Action', 'Action', 'BuildVeto']);
    expect(decodeEncoded({ kind: 'Action', text: texts[0]! })).toEqual({ kind: 'Action', payload: action(1) });
    ledger.stop();
  });
});
