// Transition cover of the host's handshake chart driven through the real host over TCP (reliability-tests
// §7.6 M3; spec "Handshake"): every edge of machines/hostHandshake.ts (listed by xstate/graph) is taken by a
// real connection, observed through xstate's inspection API, except the one the host cannot reach over a
// socket: a second Join while Admitting (the session answers out.admit synchronously, so no frame gets in).
import { describe, expect, it } from 'vitest';
import { toDirectedGraph, type DirectedGraphNode } from 'xstate/graph';
import { hostHandshakeMachine } from '../../machines/hostHandshake.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { waitFor } from '../support/session.ts';
import {
  challengeOf,
  closedWith,
  goodPair,
  joinJson,
  openRaw,
  rawUnsealed,
  rejectOf,
  simClock,
  transitionKey,
  useHosts,
  watchHandshake,
} from '../support/hostile.ts';

const host = useHosts();

function edges(node: DirectedGraphNode): string[] {
  return [...node.edges.map((e) => transitionKey(e.transition)), ...node.children.flatMap(edges)];
}

describe('host handshake transition cover (M3)', () => {
  it('takes every transition of the chart through real connections but the unreachable one', async () => {
    const all = edges(toDirectedGraph(hostHandshakeMachine));
    expect(all).toHaveLength(11);
    const seen = new Set<string>();
    const mods = [{ id: 'trains', version: '2' }];
    const h = await host({ joinDeadlineMs: 300, maxPlayers: 4, mods });
    const good = await goodPair(h, { mods }); // ids 1, 2; one slot left

    const attempt = async (what: string, send: (nonce: Uint8Array) => Uint8Array | 'close' | 'wait', reason?: string) => {
      const { raw, conn } = await openRaw(h);
      watchHandshake(h.host, conn, seen);
      const { nonce } = await challengeOf(raw);
      const bytes = send(nonce);
      if (bytes === 'close') raw.destroy();
      else if (bytes === 'wait') simClock(h).increment(300);
      else raw.write(bytes);
      if (reason) expect(await rejectOf(raw), what).toMatchObject({ reason });
      return closedWith(h, conn);
    };
    const join = (nonce: Uint8Array, name: string, extra: Record<string, unknown> = {}) =>
      rawUnsealed(Kind.Join, joinJson(nonce, name, { mods, ...extra }));

    expect(await attempt('deadline', () => 'wait', 'timeout')).toBe('timeout');
    expect(await attempt('closed', () => 'close')).toBe('peer-closed');
    expect(await attempt('malformed', () => rawUnsealed(7, '{}'), 'malformed')).toBe('malformed');
    const wrongProof = JSON.stringify({ name: 'x', version: '0.1', proof: Buffer.alloc(32).toString('base64'), mods });
    expect(await attempt('bad proof', () => rawUnsealed(Kind.Join, wrongProof), 'bad-proof')).toBe('bad-proof');
    expect(await attempt('version', (n) => join(n, 'old', { version: '0.0' }), 'version')).toBe('version');
    expect(await attempt('mods', (n) => join(n, 'modded', { mods: [{ id: 'trains', version: '3' }] }), 'mods')).toBe('mods');
    const { raw, conn } = await openRaw(h); // takes the last slot: Admitting → Welcomed
    watchHandshake(h.host, conn, seen);
    raw.write(join((await challengeOf(raw)).nonce, 'carol'));
    await waitFor(() => raw.messages().find((m) => m.kind === 'Welcome'), 3000, 'Welcome');
    expect(await attempt('full', (n) => join(n, 'dave'), 'full')).toBe('full');

    // Flood needs a limit the first frame already breaks (see sessionFrames.test.ts); its own host.
    const f = await host({}, { limits: { maxFramesPerSecond: 0.5 } });
    const flooder = await openRaw(f);
    watchHandshake(f.host, flooder.conn, seen);
    flooder.raw.write(rawUnsealed(Kind.Join, joinJson((await challengeOf(flooder.raw)).nonce, 'eager')));
    expect(await rejectOf(flooder.raw)).toEqual({ reason: 'flood' });

    const missing = all.filter((k) => !seen.has(k));
    expect(missing).toEqual(['hostHandshake.Handshaking.Admitting --recv.Join--> (no target: actions only)']);
    expect(seen.size).toBe(all.length - 1);
    expect(conn.closeReason).toBeUndefined();
    await good.relays();
  });
});
