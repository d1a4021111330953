// The pause order (lockstep.md "Pause, speed and the pause order"; prior-projects §2.6 P1–P4): a pause action
// (no stamp) gets the next pauseSeq and is held; a flush sends every held item to all games with one stamp,
// max(furthest reported stop, previous flush stamp), and pauseUpto = the pauseSeq of the flush's last item.
import type { RelayedActionPayload } from './lockstepTypes.ts';

/** A held pause action: what will be relayed, without its stamp yet. */
export type HeldPauseAction = Omit<RelayedActionPayload, 'stamp' | 'pauseUpto'> & { pause: true; pauseSeq: number };

/** A flushed pause action as relayed to every game: stamped, numbered, with the flush's pauseUpto. */
export type FlushedPauseAction = RelayedActionPayload & { pause: true; pauseSeq: number; pauseUpto: number };

/** The host's pause order: one pauseSeq counter per session, the held items, and the floor. */
export interface PauseOrder {
  /** The pauseSeq the next pause action gets (from 1). */
  nextSeq: number;
  /** Held items, in pauseSeq order. */
  held: readonly HeldPauseAction[];
  /** The payload bytes of the held items as they will be relayed (docs/SECURITY.md "What the host holds"). */
  heldBytes: number;
  /** The previous flush's stamp: no flush is stamped below it. */
  floor: number | undefined;
}

/**
 * What the pause order holds at most while the session stands still: 64 items of one player, 512 in all, and
 * 4 MiB of payload. A flush writes every held item to every game at once; 4 MiB stays well inside a receiver's
 * 8 MiB write queue, so a flush never closes an honest receiver with `write-timeout`.
 */
export const MAX_HELD_PER_PLAYER = 64;
export const MAX_HELD = 512;
export const MAX_HELD_BYTES = 4 * 1024 * 1024;

export function createPauseOrder(): PauseOrder {
  return { nextSeq: 1, held: [], heldBytes: 0, floor: undefined };
}

/** Why one more pause action of `from`, of `bytes` as relayed, cannot be held; undefined when it can. */
export function holdRefusal(order: PauseOrder, from: number, bytes: number): string | undefined {
  if (order.held.length >= MAX_HELD) return `the pause order already holds ${MAX_HELD} actions`;
  let mine = 0;
  for (const item of order.held) if (item.from === from) mine++;
  if (mine >= MAX_HELD_PER_PLAYER) return `the pause order already holds ${MAX_HELD_PER_PLAYER} actions of this game`;
  if (order.heldBytes + bytes > MAX_HELD_BYTES) return `the pause order already holds ${MAX_HELD_BYTES} bytes`;
  return undefined;
}

/** Gives a pause action the next pauseSeq and holds it (`bytes`: its size as relayed, for the bound). */
export function holdPauseAction(
  order: PauseOrder,
  action: Omit<HeldPauseAction, 'pause' | 'pauseSeq'>,
  bytes = 0,
): { order: PauseOrder; item: HeldPauseAction } {
  const item: HeldPauseAction = { ...action, pause: true, pauseSeq: order.nextSeq };
  const heldBytes = order.heldBytes + bytes;
  return { order: { ...order, nextSeq: order.nextSeq + 1, held: [...order.held, item], heldBytes }, item };
}

export type FlushReadiness = { ready: true; furthestStop: number } | { ready: false; waitingFor: number[] };

/**
 * Whether a flush may go out: every ready pacing game (`pacing`, ids) has reported `stop` (`stops`: id → the
 * `t` it stands still at). With no pacing game nothing is known to stand still, so it is not ready. The furthest stop
 * is over every stop given, a marked game's too: it applies the flush as well, and a returner may stand past pauseAt
 * (the simulator, seed 7070: a flush at 3200, the pacing games' stop, applied at 3400 by a returner). The caller gives
 * only the stops of games in the session's world (`pauseViewOf`): an outsider's time is another world's.
 */
export function flushReady(stops: ReadonlyMap<number, number>, pacing: readonly number[]): FlushReadiness {
  const waitingFor = pacing.filter((id) => !stops.has(id));
  if (pacing.length === 0 || waitingFor.length > 0) return { ready: false, waitingFor };
  return { ready: true, furthestStop: Math.max(...stops.values()) };
}

/** A flush's stamp: the furthest reported stop, never below the previous flush's stamp. */
export function flushStamp(furthestStop: number, previousFlushStamp: number | undefined): number {
  return previousFlushStamp === undefined ? furthestStop : Math.max(furthestStop, previousFlushStamp);
}

/**
 * Flushes every held item at `stamp` (which the caller took from `flushStamp`): the items to relay to every game,
 * origin included, in pauseSeq order, and the order with nothing held and its floor raised to `stamp`.
 */
export function flushPauseOrder(
  order: PauseOrder,
  stamp: number,
): { order: PauseOrder; items: FlushedPauseAction[] } {
  const last = order.held.at(-1);
  if (last === undefined) return { order, items: [] };
  const items = order.held.map((item) => ({ ...item, stamp, pauseUpto: last.pauseSeq }));
  return { order: { ...order, held: [], heldBytes: 0, floor: flushStamp(stamp, order.floor) }, items };
}

/** A flush at `max(furthest, previous flush stamp)`: the order after it, the items as relayed and their stamp. */
export function flushFrom(
  order: PauseOrder,
  furthest: number,
): { order: PauseOrder; items: FlushedPauseAction[]; stamp: number } {
  const stamp = flushStamp(furthest, order.floor);
  return { ...flushPauseOrder(order, stamp), stamp };
}
