// Supervision over real TCP (issue "a host that no peer can bring down", DESIGN.md "Supervision"): a fault while
// the host handles one connection's frame ends that connection only, with `internal-error` and one log line with
// the stack; a fault in a timer or in a lockstep listener is logged and the session goes on; nothing escapes to
// the process (no uncaught exception, no unhandled rejection while the test runs).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachLockstep } from '../../actors/host/hostLockstep.ts';
import { joinedPlayer, waitFor } from '../support/session.ts';
import { goodPair, useHosts } from '../support/hostile.ts';

const pooledHost = useHosts();
const escaped: unknown[] = [];
const onEscape = (err: unknown) => escaped.push(err);

beforeEach(() => {
  escaped.length = 0;
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
afterEach(() => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
});

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('supervision', () => {
  it('a fault while handling one player’s frame kicks that player with internal-error; the others go on', async () => {
    const h = await pooledHost();
    const good = await goodPair(h);
    h.host.on((n) => {
      if (n.type === 'chat' && n.text === 'boom') throw new Error('a bug of ours');
    });
    const victim = await joinedPlayer(h.port, 'carol');
    victim.player.chat('boom');
    await waitFor(() => victim.ended(), 5000, 'carol to be ended');
    expect(victim.ended()).toMatchObject({ reason: 'internal-error' });
    const faults = h.logs.filter((l) => l.msg === 'internal error');
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ player: 3, while: 'frame' });
    expect(String(faults[0]!.stack)).toContain('a bug of ours');
    await good.relays();
    await tick();
    expect(escaped).toEqual([]);
  });

  it('a fault in a lockstep listener is logged, not rethrown on a timer; the session goes on', async () => {
    const h = await pooledHost();
    const good = await goodPair(h);
    const lockstep = attachLockstep(h.host, { clock: h.clock, wallClock: () => 0, log: (e) => h.logs.push(e) });
    const original = h.host.broadcast.bind(h.host);
    h.host.broadcast = ((kind: never, payload: never, except?: number) => {
      if (kind === 'Session') throw new Error('broadcast failed');
      return original(kind, payload, except);
    }) as typeof h.host.broadcast;
    lockstep.actor.send({ type: 'recv.Hello', from: 0, payload: { time: 0 }, now: 0 });
    lockstep.actor.send({ type: 'recv.Clock', from: 0, payload: { t: 0, speed: 0, ahead: 2 }, now: 0 });
    lockstep.start();
    await tick();
    expect(h.logs.find((l) => l.msg === 'internal error' && l.while === 'lockstep send.Session')).toBeDefined();
    expect(lockstep.actor.getSnapshot().status).toBe('active');
    await good.relays();
    lockstep.stop();
    expect(escaped).toEqual([]);
  });
});
