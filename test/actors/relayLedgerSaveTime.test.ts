// What a round's load resends (actors/host/relayLedger.ts): the relayed items the save does not hold, measured from
// the time the save was made at (`saveTime`), which is where the saving game stands, at or past the session's pauseAt.
// Full-length simulator seed 668: pauseAt 4000, every game ran on to flushes stamped 8200 and saved there; measured
// from pauseAt, the load resent the items of 4000..8200 the save held and every loaded game applied them twice.
import { describe, expect, it } from 'vitest';
import { attachRelayLedger, saveTime } from '../../actors/host/relayLedger.ts';
import type { HostLockstep } from '../../actors/host/hostLockstep.ts';

type Listener = (e: { payload: Record<string, unknown>; to?: string }) => void;

/** A lockstep stand-in: its relays go to the ledger's listeners; its games are the context the ledger prunes by. */
function fakeLockstep(games: Record<number, unknown>) {
  const listeners = new Map<string, Listener>();
  const lockstep = {
    actor: {
      getSnapshot: () => ({ context: { games } }),
      on: (type: string, fn: Listener) => (listeners.set(type, fn), { unsubscribe: () => listeners.delete(type) }),
    },
  } as unknown as HostLockstep;
  const relay = (stamp: number, from: number, seq: number, flush = false) =>
    listeners.get('send.Action')!({ payload: { stamp, from, seq, body: {}, ...(flush ? { pause: true, pauseSeq: seq, pauseUpto: seq } : {}) } });
  return { lockstep, relay };
}

const game = (id: number, extra: Record<string, unknown>) => ({ id, ready: true, hasWorld: true, advancedAt: 0, ...extra });
const keys = (messages: { payload: unknown }[]) => messages.map((m) => { const p = m.payload as { from: number; seq: number }; return `${p.from}:${p.seq}`; });

describe('saveTime', () => {
  it('is where the saving game stands when that is past pauseAt', () => {
    const games = { 0: game(0, { clock: { t: 8200, speed: 0 } }), 2: game(2, { clock: { t: 4000, speed: 0 } }) };
    expect(saveTime({ games } as never, 4000, 0)).toBe(8200);
  });

  it('is the Hello’s time of a saving game that has loaded its save and sent no Clock since', () => {
    expect(saveTime({ games: { 0: game(0, { bestT: 4600 }) } } as never, 800, 0)).toBe(4600);
  });

  it('is the repair source’s time when a player saved', () => {
    const games = { 0: game(0, { clock: { t: 4000, speed: 0 } }), 3: game(3, { clock: { t: 4200, speed: 0 } }) };
    expect(saveTime({ games } as never, 4000, 3)).toBe(4200);
  });

  it('is never below pauseAt, and pauseAt when the saving game is unknown', () => {
    expect(saveTime({ games: { 0: game(0, { clock: { t: 3800, speed: 0 } }) } } as never, 4000, 0)).toBe(4000);
    expect(saveTime({ games: {} } as never, 4000, 0)).toBe(4000);
    expect(saveTime({ games: {} } as never, undefined, 0)).toBeUndefined();
  });
});

describe('the ledger measured from the save’s time', () => {
  it('resends only what a save made past pauseAt does not hold', () => {
    const games = { 0: game(0, { clock: { t: 1000, speed: 1 } }) };
    const { lockstep, relay } = fakeLockstep(games);
    const ledger = attachRelayLedger(lockstep, () => {});
    relay(4400, 2, 1);
    relay(5000, 0, 2, true);
    relay(8200, 1, 3, true); // a flush at the save's t: applied standing, before the save
    relay(8200, 3, 4); // an action at the save's t: applied as the games leave it, after the save
    relay(8400, 3, 5);
    games[0] = game(0, { clock: { t: 8200, speed: 0 } });
    const savedAt = saveTime(lockstep.actor.getSnapshot().context, 4000, 0);
    expect(keys(ledger.since(savedAt!))).toEqual(['3:4', '3:5']);
    expect(keys(ledger.since(4000))).toEqual(['2:1', '0:2', '1:3', '3:4', '3:5']); // what pauseAt alone resent
    ledger.stop();
  });
});
