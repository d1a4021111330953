// The host's checksum actor (actors/host/checksums.ts) over the real lockstep actor and a stand-in HostSession, on a
// simulated clock: it asks a round 5 s into a running session at the future stamp, takes the games' reports, corrects
// money with the host game's Authority to the others, asks for a repair when verdicts differ (logged, counted and in
// status()), shows itself to the inspector as `checksumRounds`, and stops asking while the session is paused.
import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { attachChecksums } from '../../actors/host/checksums.ts';
import { attachLockstep } from '../../actors/host/hostLockstep.ts';
import type { HostNotice, HostSession } from '../../actors/host/hostSession.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import type { Message } from '../../actors/wire.ts';

function setup(options: { autoResync?: boolean } = {}) {
  const clock = createSimulatedClock();
  const listeners: ((n: HostNotice) => void)[] = [];
  const sent: { kind: string; payload: unknown; except?: number }[] = [];
  const logs: { msg: string; [k: string]: unknown }[] = [];
  const fake = {
    options: { hostName: 'Ada' },
    currentPermissions: () => ({}),
    on: (fn: (n: HostNotice) => void) => (listeners.push(fn), () => undefined),
    broadcast: (kind: string, payload: unknown, except?: number) => sent.push({ kind, payload, ...(except === undefined ? {} : { except }) }),
    setReady: () => undefined,
    useSessionSource: () => undefined,
    players: () => [
      { id: 0, name: 'Ada', ready: true, away: false },
      { id: 1, name: 'Bo', ready: true, away: false },
    ],
  } as unknown as HostSession;
  const seen = new Set<string>();
  const inspect = (e: InspectionEvent) => {
    const { systemId } = e.actorRef as { systemId?: string };
    if (systemId) seen.add(systemId);
  };
  const log = (e: { msg: string }) => logs.push(e);
  const lockstep = attachLockstep(fake, { clock, wallClock: () => 0, log });
  const checksums = attachChecksums(fake, lockstep, { clock, log, inspect }, options);
  const notify = (n: HostNotice) => {
    for (const l of listeners) l(n);
  };
  const game = (from: number, message: Message) => notify({ type: 'game', from, message });
  /** Moves the clock tick by tick (SimulatedClock runs one pass of due timers per increment). */
  const advance = (ms: number) => {
    for (let k = 0; k < ms / 100; k++) clock.increment(100);
  };
  return { clock, advance, sent, logs, seen, lockstep, checksums, notify, game, of: (kind: string) => sent.filter((s) => s.kind === kind) };
}

/** Two games at t = 0, started running. */
function running(options: { autoResync?: boolean } = {}) {
  const h = setup(options);
  h.notify({ type: 'joined', id: 1, name: 'Bo' });
  for (const id of [0, 1]) {
    h.game(id, { kind: 'Hello', payload: { time: 0 } });
    h.game(id, { kind: 'Clock', payload: { t: 0, speed: 1, ahead: 4, safe: 800 } });
  }
  h.lockstep.start();
  h.clock.increment(100);
  return h;
}

describe('host checksum actor', () => {
  it('asks a round 5 s into the running session at the future stamp, to every game', () => {
    const h = running();
    expect(h.seen.has('checksumRounds')).toBe(true);
    h.advance(5_000);
    const [request] = h.of('ChecksumRequest');
    expect(request).toMatchObject({ kind: 'ChecksumRequest', payload: { n: 1, paused: false, spread: 1 } });
    expect((request!.payload as { at: number }).at % 200).toBe(0);
    expect(request!.except).toBeUndefined();
    h.checksums.stop();
    h.lockstep.stop();
  });

  it('takes the reports: money corrected by the host game’s Authority to the others, no repair', () => {
    const h = running();
    h.advance(5_000);
    const { n, at } = h.of('ChecksumRequest')[0]!.payload as { n: number; at: number };
    h.game(0, { kind: 'ChecksumReport', payload: { n, time: at, parts: { money: 'a', edges: 'e' }, authority: { money: 500 } } });
    h.game(1, { kind: 'ChecksumReport', payload: { n, time: at, parts: { money: 'b', edges: 'e' }, authority: { money: 450 } } });
    expect(h.of('Authority')).toEqual([{ kind: 'Authority', payload: { n, values: { money: 500 } }, except: 0 }]);
    expect(h.checksums.status()).toMatchObject({ rounds: { different: 1 }, repairRequests: [] });
    expect(h.checksums.status().differences[0]!.parts.map((p) => p.part)).toEqual(['money']);
    h.checksums.stop();
    h.lockstep.stop();
  });

  it('status().ended keeps each ended round: its stamp, paused or not, asked and ended on the host clock, the reports it took', () => {
    const h = running();
    h.advance(5_000);
    const { n, at } = h.of('ChecksumRequest')[0]!.payload as { n: number; at: number };
    const asked = h.clock.now();
    h.clock.increment(50);
    h.game(1, { kind: 'ChecksumReport', payload: { n, time: at, parts: { edges: 'e' } } });
    h.game(1, { kind: 'ChecksumReport', payload: { n, time: at, parts: { edges: 'e' } } }); // a duplicate: not taken
    h.game(7, { kind: 'ChecksumReport', payload: { n, time: at, parts: { edges: 'x' } } }); // not asked: not taken
    h.clock.increment(50);
    expect(h.checksums.status().ended).toEqual([]);
    h.game(0, { kind: 'ChecksumReport', payload: { n, time: at, parts: { edges: 'e' } } });
    expect(h.checksums.status().ended).toEqual([{
      n, at, paused: false, askedAt: asked, endedAt: asked + 100, result: 'identical',
      reports: [{ game: 1, time: at, at: asked + 50 }, { game: 0, time: at, at: asked + 100 }],
    }]);
    h.checksums.stop();
    h.lockstep.stop();
  });

  it('differing verdicts ask for a repair at once: logged, counted and shown (autoResync off: only that)', () => {
    const h = running({ autoResync: false });
    h.game(0, { kind: 'ActionRefused', payload: { seq: 3, from: 1, applied: true } });
    h.game(1, { kind: 'ActionRefused', payload: { seq: 3, from: 1, detail: 'no money', class: 'company' } });
    expect(h.logs.map((l) => l.msg)).toContain('verdicts of 1:3 differ');
    expect(h.logs).toContainEqual({ msg: 'resync requested (autoResync off)', reason: 'verdicts of 1:3 differ' });
    expect(h.checksums.status().repairRequests).toEqual([{ reason: 'verdicts of 1:3 differ', at: h.clock.now(), autoResync: false }]);
    h.checksums.stop();
    h.lockstep.stop();
  });

  it('a pause asks one paused round at pauseAt and no regular round while paused', () => {
    const h = running();
    h.lockstep.pause();
    h.clock.increment(100);
    const requests = h.of('ChecksumRequest').map((r) => r.payload as { n: number; paused: boolean; at: number });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ n: 1, paused: true });
    h.advance(30_000);
    expect(h.of('ChecksumRequest')).toHaveLength(1);
    h.checksums.stop();
    h.lockstep.stop();
  });
});
