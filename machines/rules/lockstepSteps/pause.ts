// The host lockstep chart's steps around the pause order (machines/pauseOrder.ts; spec/lockstep.md "Pause, speed
// and the pause order"; wire-protocol.txt Action 50): a pause action as the pause order will hold it (or refused
// when it would not fit a frame once flushed), the held and flushed pause actions relayed, and the stamps and views
// the pause order is given: the running stamp, the stops of a paused tick, where an unpause flushes from. Pure
// functions of the chart's context (rules/lockstepSteps.ts).
import { LIMITS, payloadByteLength } from '../../../protocol/messages/index.ts';
import type { PauseActionToHold } from '../../pauseOrder.ts';
import { gameList, pacingIds, stopsOf } from '../hostGames.ts';
import { record } from '../inFlight.ts';
import type { ActionPayload } from '../lockstepTypes.ts';
import type { FlushedPauseAction } from '../pauseOrder.ts';
import { relayedAction } from '../relay.ts';
import { furthestClock, futureStamp } from '../stamps.ts';
import { onVeto } from './relay.ts';
import { hopFor, log, step } from './step.ts';
import type { Ctx, Out, Step } from './step.ts';

/**
 * Room for the fields a flush adds to a held pause action (stamp, pauseSeq, pauseUpto), each at its widest
 * (a safe integer of 16 digits): `,"stamp":` … is at most 96 bytes for the three.
 */
const FLUSH_FIELDS_BYTES = 96;

/**
 * A pause action as the pause order will hold it, with its size as relayed once flushed (for the pause order's
 * bounds); or, when it would not fit a frame once flushed, its refusal on every game.
 */
export function pauseActionOf(
  context: Ctx,
  from: number,
  payload: ActionPayload,
  wall: number | undefined,
): { hold: { action: PauseActionToHold; bytes: number } } | { refused: Step } {
  const hop = hopFor(context, from, payload.hop, wall);
  const { stamp: _none, ...action } = relayedAction(payload, from, context.permissions, hop, 0);
  const bytes = payloadByteLength('Action', { ...action, stamp: 0 }) + FLUSH_FIELDS_BYTES;
  if (bytes > LIMITS.payloadBytes) {
    return { refused: onVeto(context, from, payload.seq, `larger than a frame as relayed (${bytes} bytes)`) };
  }
  return { hold: { action, bytes } };
}

/** The pause order held a pause action: logged. */
export function onHeld(from: number, seq: number, pauseSeq: number): Step {
  return step({}, [log({ msg: 'pause action held', from, seq, pauseSeq })]);
}

/**
 * The pause order flushed: every item to every game, origin included, in pauseSeq order, all at `stamp`. The
 * flushed items wait in every game's queue too (the pause order bounds how many: pauseOrder.ts).
 */
export function onFlushed(context: Ctx, items: readonly FlushedPauseAction[], stamp: number): Step {
  if (items.length === 0) return step();
  let inFlight = context.inFlight;
  for (const item of items) inFlight = record(inFlight, item.from, stamp);
  const out: Out[] = items.map((payload) => ({ type: 'send.Action', to: 'all', payload }));
  out.push(log({ msg: 'pause order flushed', stamp, pauseUpto: items.at(-1)!.pauseUpto, items: items.length }));
  return step({ inFlight }, out);
}

/** The running session's stamp for the host: futureStamp over the furthest game (stamps.ts `furthestClock`). */
export function runningStamp(context: Ctx): number {
  const max = furthestClock(context.games, context.now) ?? 0;
  return futureStamp(max, context.session.lead);
}

/**
 * What the pause order needs at a paused tick: each game's stop at this pause (id, t) and the ready pacing games.
 * Every game runs to pauseAt and stands there, so a stop below pauseAt was reported for an earlier pause: a pause
 * right after a resume, before a game's next Clock, still finds its old stop, and a flush stamped from it lands below
 * where the game runs (the simulator, seed 113 at lengthScale 0.2: a pause action flushed at 1800 after a resync
 * round's resume and the host's pause at 2600, applied at 2000 by the game that had run on). Not counted.
 */
export function pauseViewOf(context: Ctx): { stops: [number, number][]; pacing: number[] } {
  const pauseAt = context.session.pauseAt;
  const stops = [...stopsOf(context.games)].filter(([id, t]) => {
    const game = context.games[id]!;
    // a stop of this pause by a game of the session's world, pacing or marked (an outsider's time is another world's)
    return game.ready && game.hasWorld && (pauseAt === undefined || t >= pauseAt);
  });
  return { stops, pacing: pacingIds(context.games) };
}

/** Where an unpause flushes from: no pacing game stands past pauseAt or the furthest t it reported. */
export function resumeStamp(context: Ctx): number {
  const pacing = new Set(pacingIds(context.games));
  const times = gameList(context.games).flatMap((g) => (pacing.has(g.id) && g.clock ? [g.clock.t] : []));
  return Math.max(context.session.pauseAt ?? 0, ...times);
}
