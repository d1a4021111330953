// The player's handshake chart: answers only a proper Challenge, honours Reject only while joining, drops
// a second Welcome; the deadline through a simulated clock.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { JOIN_DEADLINE_MS } from '../../machines/hostHandshake.ts';
import { playerHandshakeMachine, type PlayerHandshakeEmitted } from '../../machines/playerHandshake.ts';
import type { Payloads } from '../../protocol/messages/index.ts';

const welcome: Payloads['Welcome'] = {
  you: 2,
  hostName: 'host',
  version: '0.1',
  players: [{ id: 0, name: 'host', ready: true }],
  session: { started: false, speed: 0, lead: 2 },
};

function start() {
  const clock = new SimulatedClock();
  const emitted: PlayerHandshakeEmitted[] = [];
  const actor = createActor(playerHandshakeMachine, {
    clock,
    input: { makeJoin: (nonce) => ({ name: 'bob', version: '0.1', proof: nonce }) },
  });
  for (const type of ['send.Join', 'out.welcomed', 'out.ended', 'out.log'] as const) actor.on(type, (e) => emitted.push(e));
  actor.start();
  return { actor, clock, emitted };
}

const challenge = (nonceBytes = 16, protocol = 1): Payloads['Challenge'] => ({ nonce: new Uint8Array(nonceBytes), protocol, version: '0.1' });

describe('player handshake chart', () => {
  it('answers a proper Challenge with a Join', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Challenge', payload: challenge() });
    expect(emitted.filter((e) => e.type === 'send.Join')).toHaveLength(1);
  });

  it.each([
    [15, 1, 'malformed'],
    [17, 1, 'malformed'],
    [16, 2, 'version'],
  ])('sends no Join for a nonce of %i bytes / protocol %i (%s)', (bytes, protocol, reason) => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Challenge', payload: challenge(bytes, protocol) });
    expect(emitted.filter((e) => e.type === 'send.Join')).toHaveLength(0);
    expect(emitted.find((e) => e.type === 'out.ended')).toMatchObject({ reason });
  });

  it('drops a Welcome that comes before our Join, then joins on the Welcome after it', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Welcome', payload: welcome });
    expect(emitted.filter((e) => e.type === 'out.welcomed')).toHaveLength(0);
    expect(emitted).toContainEqual({ type: 'out.log', msg: 'Welcome before our Join dropped' });
    expect(actor.getSnapshot().value).toEqual({ Joining: 'AwaitingChallenge' });
    actor.send({ type: 'recv.Challenge', payload: challenge() });
    actor.send({ type: 'recv.Welcome', payload: welcome });
    expect(emitted.filter((e) => e.type === 'out.welcomed')).toHaveLength(1);
  });

  it('honours a Reject while joining', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Challenge', payload: challenge() });
    actor.send({ type: 'recv.Reject', payload: { reason: 'bad-proof' } });
    expect(emitted.find((e) => e.type === 'out.ended')).toMatchObject({ reason: 'bad-proof' });
  });

  it('drops a Reject and a second Welcome after the Welcome; the sealed Kicked ends it', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'recv.Challenge', payload: challenge() });
    actor.send({ type: 'recv.Welcome', payload: welcome });
    actor.send({ type: 'recv.Reject', payload: { reason: 'full' } });
    actor.send({ type: 'recv.Welcome', payload: { ...welcome, you: 5 } });
    expect(emitted.filter((e) => e.type === 'out.welcomed')).toHaveLength(1);
    expect(emitted.some((e) => e.type === 'out.ended')).toBe(false);
    expect(actor.getSnapshot().value).toBe('Joined');
    actor.send({ type: 'recv.Kicked', payload: { reason: 'kicked', detail: 'bye' } });
    expect(emitted.find((e) => e.type === 'out.ended')).toMatchObject({ reason: 'kicked', detail: 'bye' });
  });

  it('gives up at the join deadline without a Welcome, never after it', () => {
    const a = start();
    a.clock.increment(JOIN_DEADLINE_MS);
    expect(a.emitted.find((e) => e.type === 'out.ended')).toMatchObject({ reason: 'timeout' });
    const b = start();
    b.actor.send({ type: 'recv.Challenge', payload: challenge() });
    b.actor.send({ type: 'recv.Welcome', payload: welcome });
    b.clock.increment(JOIN_DEADLINE_MS * 2);
    expect(b.actor.getSnapshot().value).toBe('Joined');
  });
});
