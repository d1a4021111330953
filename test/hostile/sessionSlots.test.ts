// Player slots over real TCP (spec lockstep.md "Leave and removal"; DESIGN.md "Actors": `slot:<id>`): a dropped
// player's slot is held for the reconnect window on the host's simulated clock and released when it runs out, a
// kicked one at once; every transition of machines/playerSlot.ts (listed by xstate/graph) is taken by real
// connections, observed through xstate's inspection API; the session's `inspect` port sees every actor it creates.
import { describe, expect, it } from 'vitest';
import { SimulatedClock, type InspectionEvent } from 'xstate';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { HostSession } from '../../actors/host/hostSession.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { realClock } from '../../adapters/clock.ts';
import { listenTcp } from '../../adapters/transport/tcp.ts';
import { playerSlotMachine, RECONNECT_WINDOW_MS } from '../../machines/playerSlot.ts';
import type { Payloads } from '../../protocol/messages/index.ts';
import { KEY, RawClient, waitFor, type LogEntry } from '../support/session.ts';
import { closedWith, goodPair, kickedOf, openRaw, simClock, transitionKey, useHosts } from '../support/hostile.ts';

let raws: RawClient[] = [];
const host = useHosts(() => {
  for (const r of raws) r.destroy();
  raws = [];
});

function edges(node: DirectedGraphNode): string[] {
  return [...node.edges.map((e) => transitionKey(e.transition)), ...node.children.flatMap(edges)];
}

const playerLefts = (raw: { games(): { kind: string; payload: unknown }[] }, id: number) =>
  raw.games().filter((m) => m.kind === 'PlayerLeft' && (m.payload as Payloads['PlayerLeft']).id === id).map((m) => m.payload);

describe('player slots over TCP', () => {
  it('a dropped player is held for the (simulated) 300 s window then released; a kicked one is released at once', async () => {
    const h = await host({ silenceMs: 3_600_000 }); // the clock jumps 300 s: no one falls silent meanwhile
    const good = await goodPair(h); // 1, 2
    const dropper = await RawClient.open(h.port);
    raws.push(dropper);
    await dropper.join('dropper');
    const id = dropper.you!;
    expect(h.host.slotOf(id)?.getSnapshot().value).toBe('Connected');
    expect(h.host.slotOf(id)?.systemId).toBe(`slot:${id}`);

    dropper.destroy();
    await waitFor(() => playerLefts(good.alice, id).length === 1, 5000, 'the away PlayerLeft');
    expect(playerLefts(good.alice, id)).toEqual([{ id, name: 'dropper', away: true }]);
    expect(h.host.slotOf(id)?.getSnapshot().value).toBe('Away');
    expect(h.host.players().find((p) => p.id === id)).toMatchObject({ away: true });
    expect(h.logs.find((l) => l.msg === 'player away' && l.id === id)).toMatchObject({ reason: 'peer-closed', holdMs: RECONNECT_WINDOW_MS });

    simClock(h).increment(RECONNECT_WINDOW_MS - 1);
    expect(h.host.slotOf(id)?.getSnapshot().value).toBe('Away');
    simClock(h).increment(1);
    expect(h.host.slotOf(id)).toBeUndefined();
    expect(h.host.players().some((p) => p.id === id)).toBe(false);
    expect(h.logs.find((l) => l.msg === 'player left' && l.id === id)).toMatchObject({ reason: 'reconnect window ended' });
    await waitFor(() => playerLefts(good.bob, id).length === 2, 5000, 'the released PlayerLeft');
    expect(playerLefts(good.bob, id)[1]).toEqual({ id, name: 'dropper' });

    const kickee = await RawClient.open(h.port);
    raws.push(kickee);
    await kickee.join('kickee');
    const kid = kickee.you!;
    h.host.kick(kid, 'kicked', 'bye');
    expect(h.host.slotOf(kid)).toBeUndefined(); // released at once, no window
    expect(await kickedOf(kickee)).toEqual({ reason: 'kicked', detail: 'bye' });
    await waitFor(() => playerLefts(good.alice, kid).length === 1, 5000, 'the kicked PlayerLeft');
    expect(playerLefts(good.alice, kid)).toEqual([{ id: kid, name: 'kickee' }]);
    simClock(h).increment(RECONNECT_WINDOW_MS);
    await good.relays();
    expect(playerLefts(good.alice, kid)).toHaveLength(1);
  });

  it('takes every transition of the slot chart through real connections', async () => {
    const all = edges(toDirectedGraph(playerSlotMachine));
    expect(all).toHaveLength(8);
    const seen = new Set<string>();
    const watch = (id: number) => {
      const slot = h.host.slotOf(id);
      if (!slot) throw new Error(`no slot actor for player ${id}`);
      slot.system.inspect((e) => {
        const event = e as { type: string; _transitions?: Parameters<typeof transitionKey>[0][] };
        if (event.type === '@xstate.microstep') for (const t of event._transitions ?? []) seen.add(transitionKey(t));
      });
    };
    const h = await host({ pingIntervalMs: 2_000, silenceMs: 5_000, reconnectWindowMs: 10_000 });

    // Silent, then the window runs out (no one else is connected while the clock jumps).
    const quiet = await openRaw(h);
    raws.push(quiet.raw);
    await quiet.raw.join('quiet'); // never answers a Ping
    watch(quiet.raw.you!);
    simClock(h).increment(4_000);
    expect(h.host.slotOf(quiet.raw.you!)?.getSnapshot().value).toBe('Connected');
    simClock(h).increment(2_000); // 6 s not heard > 5 s
    expect(h.host.slotOf(quiet.raw.you!)?.getSnapshot().value).toBe('Away');
    expect(await closedWith(h, quiet.conn)).toBe('silent');
    expect(h.logs.find((l) => l.msg === 'player away' && l.id === quiet.raw.you)).toMatchObject({ reason: 'silent' });
    simClock(h).increment(10_000);
    expect(h.host.slotOf(quiet.raw.you!)).toBeUndefined();

    const good = await goodPair(h);
    watch(good.alice.player.you!);
    // The connection drops: held (and stays held until the shutdown).
    const dropper = await openRaw(h);
    raws.push(dropper.raw);
    const dropperWelcome = await dropper.raw.join('dropper');
    watch(dropper.raw.you!);
    dropper.raw.destroy();
    await waitFor(() => h.host.slotOf(dropper.raw.you!)?.getSnapshot().value === 'Away', 5000, 'the dropper away');
    // It comes back with its token (Away → Connected), then drops again (held until the shutdown).
    const back = await openRaw(h);
    raws.push(back.raw);
    const resumed = await back.raw.join('dropper', { resume: { id: dropper.raw.you!, token: dropperWelcome.resume!.token } });
    expect(resumed).toMatchObject({ you: dropper.raw.you, resumed: true, resume: { epoch: 1 } });
    expect(h.host.slotOf(dropper.raw.you!)?.getSnapshot().value).toBe('Connected');
    back.raw.destroy();
    await waitFor(() => h.host.slotOf(dropper.raw.you!)?.getSnapshot().value === 'Away', 5000, 'the dropper away again');
    // Leave: released at once.
    const leaver = await openRaw(h);
    raws.push(leaver.raw);
    await leaver.raw.join('leaver');
    watch(leaver.raw.you!);
    leaver.raw.send('Leave', {});
    expect(await closedWith(h, leaver.conn)).toBe('left');
    expect(h.host.slotOf(leaver.raw.you!)).toBeUndefined();
    // Kick: released at once.
    const kickee = await openRaw(h);
    raws.push(kickee.raw);
    await kickee.raw.join('kickee');
    watch(kickee.raw.you!);
    h.host.kick(kickee.raw.you!, 'kicked');
    expect(await closedWith(h, kickee.conn)).toBe('kicked');
    await good.relays();

    // Shutdown: alice (connected) gets the sealed Kicked; the dropper's held slot ends without a PlayerLeft.
    const leftBefore = playerLefts(good.bob, dropper.raw.you!).length;
    h.host.stop('shutdown', 'the host ended the session');
    await waitFor(() => good.alice.ended(), 5000, 'alice to be ended');
    expect(good.alice.ended()).toMatchObject({ reason: 'shutdown', detail: 'the host ended the session' });
    expect(h.host.slotOf(dropper.raw.you!)).toBeUndefined();
    expect(playerLefts(good.bob, dropper.raw.you!)).toHaveLength(leftBefore);

    expect([...seen].sort()).toEqual([...all].sort());
  });

  it('the inspect port sees every actor the session creates; a throwing observer is logged, never fatal', async () => {
    for (const throwing of [false, true]) {
      const logs: LogEntry[] = [];
      const log = (e: LogEntry) => logs.push(e);
      const events: InspectionEvent[] = [];
      const clock = new SimulatedClock();
      const listener = await listenTcp({ host: '127.0.0.1', port: 0, clock: realClock, log });
      const session = new HostSession(
        { hostName: 'host', key: KEY, reconnectWindowMs: 1_000 },
        {
          crypto: nodeCrypto,
          clock,
          wallClock: () => clock.now(),
          log,
          inspect: (e) => {
            events.push(e);
            if (throwing) throw new Error('recorder failed');
          },
        },
      );
      session.attach(listener);
      try {
        const raw = await RawClient.open(listener.port);
        await raw.join('watched');
        raw.destroy();
        await waitFor(() => session.slotOf(1)?.getSnapshot().value === 'Away', 5000, 'the slot away');
        clock.increment(1_000);
        expect(session.slotOf(1)).toBeUndefined();
        const systemId = (e: InspectionEvent) => (e.actorRef as { systemId?: string }).systemId;
        const actors = events.filter((e) => e.type === '@xstate.actor').map(systemId);
        // The session's root (`host`), the connection's handshake and its adapter actor, then the player's slot.
        expect(actors).toEqual(['host', expect.stringMatching(/^handshake:\d+$/), expect.stringMatching(/^conn:\d+$/), 'slot:1']);
        const slotValues = events
          .filter((e): e is InspectionEvent & { type: '@xstate.snapshot' } => e.type === '@xstate.snapshot' && systemId(e) === 'slot:1')
          .map((e) => (e.snapshot as { value?: unknown }).value);
        expect(slotValues).toEqual(['Connected', 'Away', 'Released']);
        const inspectFaults = logs.filter((l) => l.msg === 'internal error' && l.while === 'inspect');
        expect(inspectFaults.length > 0).toBe(throwing);
        expect(logs.filter((l) => l.msg === 'internal error' && l.while !== 'inspect')).toEqual([]);
        expect(logs.find((l) => l.msg === 'player left' && l.id === 1)).toMatchObject({ reason: 'reconnect window ended' });
      } finally {
        session.stop('test over');
        await listener.close('test over');
      }
    }
  });
});
