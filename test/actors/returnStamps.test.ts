// A returner is caught up only if nothing it missed is stamped below where its game may have run alone
// (actors/host/returnStamps.ts; rules/stamps.ts `cutOffBound`; the simulator, seed 5340).
import { describe, expect, it } from 'vitest';
import { reachWhenCut, stampRunPast } from '../../actors/host/returnStamps.ts';
import type { Message } from '../../actors/wire.ts';
import { cutOffBound } from '../../machines/rules/stamps.ts';
import type { GameView } from '../../machines/rules/lockstepTypes.ts';

const action = (from: number, stamp: number | undefined, extra: object = {}): Message =>
  ({ kind: 'Action', payload: { from, seq: 1, body: {}, ...(stamp === undefined ? {} : { stamp }), ...extra } }) as Message;
const commit = (owner: number, stamp: number): Message => ({ kind: 'BuildCommit', payload: { owner, seq: 1, stamp, from: owner } });
const chat: Message = { kind: 'Chat', payload: { text: 'hi', from: 1 } } as Message;

describe('stampRunPast', () => {
  it('names the first missed stamp below the bound: a flush, a peer’s action or commit', () => {
    expect(stampRunPast(2, [chat, action(1, 13_000), action(1, 11_800, { pause: true, pauseUpto: 2 })], 13_000)).toBe(
      'its game may have run to 13000 alone, past a stamp it missed (Action at 11800)',
    );
    expect(stampRunPast(2, [commit(1, 12_000)], 13_000)).toBe('its game may have run to 13000 alone, past a stamp it missed (BuildCommit at 12000)');
    expect(stampRunPast(2, [action(1, 12_999)], Number.POSITIVE_INFINITY)).toBe(
      'its game may have run on without a bound alone, past a stamp it missed (Action at 12999)',
    );
  });

  it('lets through stamps at or past the bound, unstamped messages, and the returner’s own actions and commits', () => {
    expect(stampRunPast(2, [chat, action(1, 13_000), commit(1, 13_200)], 13_000)).toBeUndefined();
    expect(stampRunPast(2, [action(1, undefined, { pause: true })], 13_000)).toBeUndefined(); // not flushed yet
    // its game stands at the stamp of its own action or commit until the host's copy comes
    expect(stampRunPast(2, [action(2, 11_000), commit(2, 11_000)], 13_000)).toBeUndefined();
    // …but not at a flush of its own pause action: that stamp is the host's
    expect(stampRunPast(2, [action(2, 11_000, { pause: true, pauseUpto: 1 })], 13_000)).toContain('Action at 11000');
    expect(stampRunPast(2, [], 13_000)).toBeUndefined();
  });
});

describe('cutOffBound', () => {
  const game = (id: number, extra: Partial<GameView> = {}): GameView => ({
    id,
    ready: true,
    hasWorld: true,
    advancedAt: 0,
    clock: { t: 10_000, speed: 1, ahead: 2, receivedAt: 0, safe: 10_400 },
    ...extra,
  });

  it('is the lowest promise the other games with a clock gave, as relayed (a marked one’s is the host’s)', () => {
    const games = [game(0, { bestSafe: 12_000 }), game(1, { stalled: { promise: 11_600, since: 0 } }), game(2)];
    expect(cutOffBound(games, 2)).toBe(11_600);
    expect(cutOffBound(games, 1)).toBe(10_400); // game 2's clock's safe (no bestSafe)
    expect(cutOffBound([game(0, { bestSafe: 12_000 }), game(2)], 2)).toBe(12_000);
  });

  it('counts no game without a clock, outside the world or not ready; alone it is unbounded', () => {
    const noClock: GameView = { id: 0, ready: true, hasWorld: true, advancedAt: 0 };
    expect(cutOffBound([noClock, game(1, { hasWorld: false }), game(3, { ready: false }), game(2)], 2)).toBe(Number.POSITIVE_INFINITY);
    expect(cutOffBound([game(2)], 2)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('reachWhenCut', () => {
  const clocked = (id: number, t: number, extra: Partial<GameView['clock']> = {}, view: Partial<GameView> = {}): GameView => ({
    id,
    ready: true,
    hasWorld: true,
    advancedAt: 0,
    clock: { t, speed: 0, ahead: 2, receivedAt: 0, safe: t + 400, ...extra },
    ...view,
  });

  it('running: the barrier’s bound, the lowest promise of its peers', () => {
    const games = { 0: clocked(0, 12_600, { speed: 4 }), 1: clocked(1, 12_400, { speed: 4 }), 2: clocked(2, 12_000, { speed: 4 }) };
    expect(reachWhenCut(games, 2, undefined, 11_800)).toBe(12_800);
  });

  it('standing in a pause it read: where it stood and the furthest held stamp relayed, within the barrier', () => {
    const games = { 0: clocked(0, 1_400, { stop: true }), 2: clocked(2, 1_400, { stop: true }) };
    expect(reachWhenCut(games, 2, 1_400, Number.NEGATIVE_INFINITY)).toBe(1_400); // seed 165: the flushes at 1400
    expect(reachWhenCut(games, 2, 1_400, 1_600)).toBe(1_600); // a flush or commit at 1600 it may have read
    expect(reachWhenCut(games, 2, 1_400, 5_000)).toBe(1_800); // never past the barrier
  });

  it('a pause it had not read (no stop, or a stop below pauseAt: an earlier pause’s) gives no such bound', () => {
    const running = { 0: clocked(0, 1_400, { stop: true }), 2: clocked(2, 1_200, { speed: 1 }) };
    expect(reachWhenCut(running, 2, 1_400, 1_400)).toBe(1_800);
    const oldStop = { 0: clocked(0, 1_400, { stop: true }), 2: clocked(2, 1_000, { stop: true }) };
    expect(reachWhenCut(oldStop, 2, 1_400, 1_400)).toBe(1_800);
    expect(reachWhenCut({ 0: clocked(0, 1_400, { stop: true }), 2: { id: 2, ready: true, hasWorld: true, advancedAt: 0 } }, 2, 1_400, 1_400)).toBe(1_800);
  });
});
