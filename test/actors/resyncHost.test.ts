// The host's resync actor (actors/host/resync.ts) on a SimulatedClock, against small stand-ins for the session, the
// lockstep and the checksum rounds: a policy request runs a whole round (pause, ResyncSave, the file, the chunks,
// ResyncLoad then the held messages, the Hellos, the verification, the previous speed), and a player that never
// loads still lets the round end (Loading times out, the verification is not complete, ResyncFailed, the session
// stays paused).
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { attachResync, RESYNC_SOURCE_CAPABILITY, type ResyncFiles } from '../../actors/host/resync.ts';
import type { HostChecksums } from '../../actors/host/checksums.ts';
import type { HostLockstep } from '../../actors/host/hostLockstep.ts';
import type { HostNotice, HostSession } from '../../actors/host/hostSession.ts';

const SHA = 'cd'.repeat(32);

function rig() {
  const clock = new SimulatedClock();
  const logs: { msg: string }[] = [];
  const sent: { to: number; kind: string; payload: unknown }[] = [];
  const chats: string[] = [];
  const held: number[] = [];
  const released: number[] = [];
  const listeners = new Set<(n: HostNotice) => void>();
  let pauseAt: number | undefined;
  let speed = 2;
  const clocks: Record<number, { t: number; speed: number }> = { 0: { t: 1000, speed: 2 }, 1: { t: 1000, speed: 2 } };
  /** Games that have not said Hello yet (the lockstep's ready flag). */
  const unready = new Set<number>();
  const lockstepContext = () => ({
    session: { started: true, speed, lead: 2, ...(pauseAt === undefined ? {} : { pauseAt }) },
    games: Object.fromEntries(
      Object.entries(clocks).map(([id, c]) => [id, { id: Number(id), ready: !unready.has(Number(id)), hasWorld: true, advancedAt: 0, clock: c }]),
    ),
  });
  const host: Record<string, unknown> = {
    on: (l: (n: HostNotice) => void) => (listeners.add(l), () => listeners.delete(l)),
    sessionPayload: () => ({ started: true, speed, lead: 2, ...(pauseAt === undefined ? {} : { pauseAt }) }),
    useSessionSource: (source: () => unknown) => (host.sessionPayload = source),
    broadcast: (kind: string, payload: unknown) => (sent.push({ to: -1, kind, payload }), true),
    sendTo: (to: number, kind: string, payload: unknown) => (sent.push({ to, kind, payload }), true),
    chat: (text: string) => chats.push(text),
    hold: (ids: number[]) => held.push(...ids),
    releaseHeld: (id: number, drop?: boolean) => (drop ? undefined : released.push(id)),
    loaded: () => {},
    connectionOf: () => ({ id: 1 }),
    connectedIds: () => [1],
    players: () => [],
  };
  const speeds: number[] = [];
  const stamps: boolean[] = [];
  let resyncView: { loads(from: number, save: string | undefined): boolean; running(): boolean } | undefined;
  const lockstep = {
    // the relay ledger listens to what the lockstep relays (nothing, here)
    actor: { getSnapshot: () => ({ context: lockstepContext() }), on: () => ({ unsubscribe: () => {} }) },
    pause: () => {
      pauseAt = 1400;
      speed = 0;
    },
    speed: (s: number) => {
      speeds.push(s);
      speed = s;
      pauseAt = undefined;
    },
    useResync: (view: typeof resyncView) => (resyncView = view),
    holdStamps: (held: boolean) => stamps.push(held),
    movePause: (at: number) => {
      pauseAt = at;
    },
  } as unknown as HostLockstep;
  let requestRepair: (reason: string) => void = () => {};
  let verifyDone: ((r: { result: 'identical' | 'different' | 'dropped' | 'time_skew'; parts: string[] }) => void) | undefined;
  const repairs: string[] = [];
  const checksums = {
    onRepairRequested: (start: (reason: string) => void) => (requestRepair = start),
    repairStarted: (byPolicy: boolean) => repairs.push(`started ${byPolicy}`),
    repairEnded: () => repairs.push('ended'),
    verify: (_at: number, done: typeof verifyDone) => (verifyDone = done),
  } as unknown as HostChecksums;
  const files: ResyncFiles = {
    digest: async () => ({ sha256: SHA, bytes: 4000 }),
    send: ({ participants, onPeerDone }) => {
      for (const id of participants.keys()) queueMicrotask(() => onPeerDone(id));
      return { progress: () => ({ bytes: 4000, total: 4000, bytesPerSecond: 1e6, secondsLeft: 0 }), remove: () => {}, cancel: () => {} };
    },
  };
  const resync = attachResync(host as unknown as HostSession, lockstep, checksums, { clock, log: (e) => logs.push(e as { msg: string }), files }, {});
  const notify = (n: HostNotice) => listeners.forEach((l) => l(n));
  notify({ type: 'joined', id: 1, name: 'alice' });
  const tick = () => clock.increment(100);
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return {
    clock, logs, sent, chats, held, released, speeds, stamps, repairs, resync, notify, tick, flush, clocks, unready,
    pauseAt: () => pauseAt,
    request: (reason: string) => requestRepair(reason),
    verify: () => verifyDone,
    view: () => resyncView!,
    game: (from: number, message: unknown) => notify({ type: 'game', from, message } as HostNotice),
  };
}

/** Drives a requested round to Loading: the games stand at pauseAt, the host's game saves, the file is announced. */
async function toLoading(r: ReturnType<typeof rig>) {
  r.tick(); // the session started at speed 2
  await toLoadingFromPause(r);
}

async function toLoadingFromPause(r: ReturnType<typeof rig>) {
  r.request('parts edges differ in 2 rounds in a row');
  expect(r.resync.status().state).toBe('Pausing');
  r.clocks[0] = { t: 1400, speed: 0 };
  r.clocks[1] = { t: 1400, speed: 0 };
  r.tick();
  expect(r.sent.filter((s) => s.kind === 'ResyncSave')).toEqual([{ to: 0, kind: 'ResyncSave', payload: { id: 1, name: 'feverlink3-resync-1' } }]);
  r.game(0, { kind: 'SaveDone', payload: { id: 1, ok: true } });
  await r.flush();
  expect(r.resync.status().state).toBe('Loading');
}

describe('the host resync actor', () => {
  it('runs a requested round to a verified end and resumes the previous speed', async () => {
    const r = rig();
    await toLoading(r);
    expect(r.held).toEqual([1]); // the participant's messages wait while the save travels
    const loads = r.sent.filter((s) => s.kind === 'ResyncLoad').map((s) => s.to);
    expect(loads.sort()).toEqual([0, 1]); // the host's own game early, the player after its chunks
    expect(r.released).toContain(1);
    expect(r.view().loads(1, 'feverlink3-resync-1')).toBe(true);
    expect(r.view().loads(1, undefined)).toBe(false); // a fresh start's Hello is not the load's
    r.game(0, { kind: 'Hello', payload: { time: 1400, save: 'feverlink3-resync-1' } });
    r.game(1, { kind: 'Hello', payload: { time: 1400, save: 'feverlink3-resync-1' } });
    expect(r.resync.status().state).toBe('Verifying');
    const sessions = r.sent.filter((s) => s.kind === 'Session').map((s) => (s.payload as { resync?: { state: string } }).resync?.state);
    expect(sessions).toEqual(['Pausing', 'Saving', 'Transferring', 'Loading', 'Loading', 'Loading', 'Verifying']);
    expect(r.stamps).toEqual([true, false]); // nothing stamped from Saving to the end of Loading
    r.verify()!({ result: 'identical', parts: [] });
    expect(r.resync.status()).toMatchObject({ state: 'Idle', rounds: { verified: 1, failed: 0 }, transfer: { bytes: 4000, total: 4000 } });
    expect(r.speeds).toEqual([2]);
    expect(r.repairs).toEqual(['started true', 'ended']);
  });

  it('ends the round when a player never loads: Loading goes on without it, the check fails, the session stays paused', async () => {
    const r = rig();
    await toLoading(r);
    r.game(0, { kind: 'Hello', payload: { time: 1400, save: 'feverlink3-resync-1' } });
    r.clock.increment(600_000); // Loading never fails: it goes on with the games that said hello
    expect(r.logs.some((l) => l.msg === 'resync 1: no hello after the load from alice in 600 s; going on with the others')).toBe(true);
    expect(r.resync.status().state).toBe('Verifying');
    r.clock.increment(120_000); // the verification round is never complete
    expect(r.resync.status()).toMatchObject({ state: 'Idle', rounds: { verified: 0, failed: 1 } });
    expect(r.resync.status().last?.failure).toBe('the verification checksum was not complete in 120 s');
    expect(r.logs.some((l) => l.msg.startsWith('ResyncFailed: resync 1 failed in Verifying'))).toBe(true);
    expect(r.chats[0]).toContain('the session stays paused');
    expect(r.speeds).toEqual([]); // no speed resumed: paused
    expect(r.repairs).toEqual(['started true', 'ended']);
  });

  it('moves pauseAt to the furthest time the games loaded at, and logs that they differ', async () => {
    const r = rig();
    await toLoading(r);
    r.game(0, { kind: 'Hello', payload: { time: 1600, save: 'feverlink3-resync-1' } });
    r.game(1, { kind: 'Hello', payload: { time: 1800, save: 'feverlink3-resync-1' } });
    expect(r.pauseAt()).toBe(1800);
    expect(r.logs.some((l) => l.msg === 'resync 1: the games loaded at different times; pauseAt 1800 (the furthest)')).toBe(true);
    const last = r.sent.filter((s) => s.kind === 'Session').at(-1)!.payload as { pauseAt?: number };
    expect(last.pauseAt).toBe(1800);
  });

  it('cuts a long reason to what Session.resync carries', async () => {
    const r = rig();
    r.tick();
    r.request(`replay failed on mallory: ${'😀'.repeat(1200)}`);
    const session = r.sent.filter((s) => s.kind === 'Session').at(-1)!.payload as { resync: { reason: string } };
    expect([...session.resync.reason]).toHaveLength(1000);
    expect(session.resync.reason.startsWith('replay failed on mallory: 😀')).toBe(true);
  });

  it('copies the host’s world with a warning and a chat line when its game applied an action partly and no player can serve', async () => {
    const r = rig();
    r.tick();
    r.game(0, { kind: 'ActionRefused', payload: { seq: 3, from: 1, detail: 'engine threw', partial: true } });
    await toLoadingFromPause(r);
    const warning = "the host's world is copied although an action was applied partly on it (no unmarked player can send its save (resync-source-1)); it may still be broken";
    expect(r.logs.some((l) => l.msg === `WARNING: resync 1: ${warning}`)).toBe(true);
    expect(r.chats).toEqual([`[FeverLink3] ${warning}`]);
  });

  it('never asks a hot joiner whose game has not said Hello for its save, though it could serve and the host is marked', async () => {
    const r = rig();
    r.tick();
    r.game(0, { kind: 'ActionRefused', payload: { seq: 3, from: 1, detail: 'engine threw', partial: true } });
    r.clocks[2] = { t: 0, speed: 0 };
    r.unready.add(2); // carol's game has not said Hello
    r.notify({ type: 'joined', id: 2, name: 'carol', caps: [RESYNC_SOURCE_CAPABILITY] });
    expect(r.resync.status()).toMatchObject({ state: 'Pausing', reason: 'new player' });
    r.clocks[0] = { t: 1400, speed: 0 };
    r.clocks[1] = { t: 1400, speed: 0 };
    r.tick();
    expect(r.sent.filter((s) => s.kind === 'ResyncSave')).toEqual([{ to: 0, kind: 'ResyncSave', payload: { id: 1, name: 'feverlink3-resync-1' } }]);
    expect(r.logs.some((l) => l.msg.startsWith('WARNING: resync 1: the host\'s world is copied although'))).toBe(true);
  });

  it('ignores the host’s own pause and speed during a round, with a log line each; between rounds they reach the lockstep', async () => {
    const r = rig();
    await toLoading(r);
    const pauseAtBefore = r.pauseAt();
    expect(r.resync.hostPause()).toBe(false);
    expect(r.resync.hostSpeed(4)).toBe(false);
    expect(r.speeds).toEqual([]);
    expect(r.pauseAt()).toBe(pauseAtBefore);
    const ignored = r.logs.filter((l) => l.msg.startsWith('resync 1: ignored')).map((l) => l.msg);
    expect(ignored).toEqual(["resync 1: ignored the host's pause during a round", "resync 1: ignored the host's speed during a round"]);
    r.game(0, { kind: 'Hello', payload: { time: 1400, save: 'feverlink3-resync-1' } });
    r.game(1, { kind: 'Hello', payload: { time: 1400, save: 'feverlink3-resync-1' } });
    r.verify()!({ result: 'identical', parts: [] });
    expect(r.speeds).toEqual([2]); // the round resumed the speed before it
    expect(r.resync.hostSpeed(4)).toBe(true);
    expect(r.speeds).toEqual([2, 4]);
    expect(r.resync.hostPause()).toBe(true);
    expect(r.pauseAt()).toBe(1400);
  });

  it('ignores a player speed request during a round', async () => {
    const r = rig();
    await toLoading(r);
    expect(r.view().running()).toBe(true);
    r.game(1, { kind: 'SpeedRequest', payload: { speed: 4 } });
    expect(r.logs.some((l) => l.msg === 'resync 1: ignored speed request during a round')).toBe(true);
  });
});
