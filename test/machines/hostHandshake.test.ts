// The host's handshake chart on its own: every path and the join deadline, driven with a simulated clock.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { hostHandshakeMachine, JOIN_DEADLINE_MS, type HostHandshakeEmitted, type HostHandshakeInput } from '../../machines/hostHandshake.ts';
import type { Payloads } from '../../protocol/messages/index.ts';

const goodProof = new Uint8Array(32).fill(7);
const join = (over: Partial<Payloads['Join']> = {}): Payloads['Join'] => ({ name: 'alice', version: '0.1', proof: goodProof, ...over });

function start(input: Partial<HostHandshakeInput> = {}) {
  const clock = new SimulatedClock();
  const emitted: HostHandshakeEmitted[] = [];
  const actor = createActor(hostHandshakeMachine, {
    clock,
    input: {
      connId: 1,
      nonce: new Uint8Array(16).fill(1),
      version: '0.1',
      verifyProof: (_name, proof) => proof.length === 32 && proof.every((b) => b === 7),
      checkMods: (mods) => (mods && mods.length > 0 ? { reason: 'mods', detail: 'extra x' } : undefined),
      ...input,
    },
  });
  for (const type of ['send.Challenge', 'send.Reject', 'out.admit', 'out.log'] as const) actor.on(type, (e) => emitted.push(e));
  actor.start();
  return { actor, clock, emitted };
}

const rejects = (emitted: HostHandshakeEmitted[]) => emitted.filter((e) => e.type === 'send.Reject').map((e) => (e as { payload: Payloads['Reject'] }).payload);

describe('host handshake chart', () => {
  it('sends the Challenge on start with the nonce and protocol 1', () => {
    const { emitted } = start();
    expect(emitted[0]).toMatchObject({ type: 'send.Challenge', payload: { protocol: 1, version: '0.1' } });
  });

  it('asks for a slot after a good Join and ends welcomed when seated', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Join', payload: join() });
    expect(emitted.some((e) => e.type === 'out.admit')).toBe(true);
    actor.send({ type: 'admit.accept', you: 3 });
    expect(actor.getSnapshot().status).toBe('done');
    expect(actor.getSnapshot().output).toMatchObject({ result: 'welcomed', you: 3 });
  });

  it.each([
    ['bad-proof', join({ proof: new Uint8Array(32) })],
    ['bad-proof', join({ proof: new Uint8Array(31).fill(7) })],
    ['version', join({ version: '0.2' })],
    ['mods', join({ mods: [{ id: 'x', version: '1' }] })],
  ])('rejects with %s', (reason, payload) => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Join', payload });
    expect(rejects(emitted)).toEqual([expect.objectContaining({ reason })]);
    expect(actor.getSnapshot().value).toBe('Rejected');
  });

  it('names both versions in the version detail', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Join', payload: join({ version: '0.2' }) });
    expect(rejects(emitted)[0]!.detail).toContain('0.1');
    expect(rejects(emitted)[0]!.detail).toContain('0.2');
  });

  it('rejects full with the session detail', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Join', payload: join() });
    actor.send({ type: 'admit.refuse', reason: 'full', detail: '8 players, 1 of them away' });
    expect(rejects(emitted)).toEqual([{ reason: 'full', detail: '8 players, 1 of them away' }]);
  });

  it('rejects malformed and flood', () => {
    const a = start();
    a.actor.send({ type: 'recv.malformed', detail: 'expected Join' });
    expect(rejects(a.emitted)[0]!.reason).toBe('malformed');
    const b = start();
    b.actor.send({ type: 'conn.flood' });
    expect(rejects(b.emitted)[0]!.reason).toBe('flood');
  });

  it('rejects with timeout exactly at the join deadline, in every waiting state', () => {
    for (const admitting of [false, true]) {
      const { actor, clock, emitted } = start();
      if (admitting) actor.send({ type: 'recv.Join', payload: join() });
      clock.increment(JOIN_DEADLINE_MS - 1);
      expect(rejects(emitted)).toEqual([]);
      clock.increment(1);
      expect(rejects(emitted)).toEqual([{ reason: 'timeout' }]);
    }
  });

  it('takes the deadline from the named delay (tests run it short)', () => {
    const clock = new SimulatedClock();
    const actor = createActor(hostHandshakeMachine.provide({ delays: { joinDeadline: 100 } }), {
      clock,
      input: { connId: 1, nonce: new Uint8Array(16), version: '0.1', verifyProof: () => true, checkMods: () => undefined },
    }).start();
    clock.increment(100);
    expect(actor.getSnapshot().value).toBe('Rejected');
  });

  it('a closed connection ends the handshake without a Reject', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'conn.closed', reason: 'reset' });
    expect(rejects(emitted)).toEqual([]);
    expect(actor.getSnapshot().output).toEqual({ result: 'closed', reason: 'reset' });
  });

  it('every state of the chart is reachable (shortest paths)', () => {
    const paths = getShortestPaths(hostHandshakeMachine, {
      input: { connId: 1, nonce: new Uint8Array(16), version: '0.1', verifyProof: () => true, checkMods: () => undefined },
      events: [
        { type: 'recv.Join', payload: join() },
        { type: 'recv.malformed', detail: 'x' },
        { type: 'conn.flood' },
        { type: 'conn.closed', reason: 'reset' },
        { type: 'admit.accept', you: 1 },
        { type: 'admit.refuse', reason: 'full', detail: 'x' },
      ],
    });
    const reached = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    for (const state of ['"Welcomed"', '"Rejected"', '"Closed"', '{"Handshaking":"Admitting"}', '{"Handshaking":"AwaitingJoin"}']) {
      expect(reached).toContain(state);
    }
  });
});
