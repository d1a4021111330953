// The host lockstep chart's steps for a game's ordinary Action (spec/lockstep.md "Stamps", "Actions in flight";
// wire-protocol.txt Action 50, BuildVeto 52, "Who may send what"; docs/SECURITY.md §8): relayed to every game with
// from, allowed and category, or refused on every game with the host's BuildVeto (too large as relayed, too many
// in flight), and the time every game of the session's world is known to have reached, which settles the Actions
// in flight (rules/inFlight.ts). Pure functions of the chart's context (rules/lockstepSteps.ts).
import { LIMITS, payloadByteLength } from '../../../protocol/messages/index.ts';
import type { Games } from '../hostGames.ts';
import { inFlightRefusal, record, settle } from '../inFlight.ts';
import type { ActionPayload } from '../lockstepTypes.ts';
import { hostVeto, relayedAction } from '../relay.ts';
import { hopFor, log, logOnce, step } from './step.ts';
import type { Ctx, Out, Step } from './step.ts';

/**
 * An ordinary Action: to every game, its origin included, with from, allowed and category; the first forbidden one is
 * logged. The origin applies its own action only with this copy (the host's `allowed`), and a host BuildVeto instead
 * of it drops the action there too (docs/DECISIONS.md "Fixed: the originator applies its own action only with the
 * host's copy"). Its size is measured as it will be relayed (the host writes the game's numbers in their shortest
 * form and adds fields): one that does not fit a frame is refused on every game, its origin included, and relayed
 * to nobody.
 */
export function onAction(context: Ctx, from: number, payload: ActionPayload, wall: number | undefined): Step {
  const hop = hopFor(context, from, payload.hop, wall);
  const relayed = relayedAction(payload, from, context.permissions, hop, payload.stamp ?? 0);
  const bytes = payloadByteLength('Action', relayed);
  if (bytes > LIMITS.payloadBytes) return onVeto(context, from, payload.seq, `larger than a frame as relayed (${bytes} bytes)`);
  const settled = settle(context.inFlight, slowestTime(context.games));
  const crowded = inFlightRefusal(settled.inFlight, settled.total, from);
  if (crowded !== undefined) return { ...onVeto(context, from, payload.seq, crowded), patch: { inFlight: settled.inFlight } };
  const inFlight = record(settled.inFlight, from, relayed.stamp);
  const sent: Out = { type: 'send.Action', to: 'all', payload: relayed };
  if (relayed.allowed) return step({ inFlight }, [sent]);
  const entry = { msg: 'forbidden action relayed', from, category: relayed.category };
  const once = logOnce(context, `forbidden:${from}:${relayed.category}`, entry);
  return step({ ...once.patch, inFlight }, [sent, ...once.out]);
}

/** The host refuses `from:seq` on every game, its origin included (an outsider's, or stamped below a promise). */
export function onVeto(context: Ctx, from: number, seq: number, why: string): Step {
  const veto = hostVeto(from, seq, why, context.hostName);
  const sent: Out = { type: 'send.BuildVeto', to: 'all', payload: veto };
  return step({}, [sent, log({ msg: 'action refused', from, seq, why })]);
}

/**
 * The time every game of the session's world is known to have reached: the lowest reported time (Clock, or the
 * Hello's) of the ready games with the session's world. A stalled game is left out: counting it would let one
 * frozen game refuse everybody's actions; its own queue may then fill, and its world is the one that parts.
 * Nothing is held: +∞.
 */
export function slowestTime(games: Games): number {
  // The games record is never changed in place (every step makes a new one), and it changes only with a Clock, a
  // Hello, a stall or the roster: between two of them every Action asks about the same record.
  if (games === lastGames) return lastSlowest;
  let slowest = Number.POSITIVE_INFINITY;
  // for…in, not Object.values: this runs for every relayed Action, and makes no array.
  for (const id in games) {
    const game = games[id as unknown as number]!;
    if (!game.ready || !game.hasWorld || game.stalled !== undefined) continue;
    const t = game.clock?.t ?? game.bestT ?? 0;
    if (t < slowest) slowest = t;
  }
  lastGames = games;
  lastSlowest = slowest;
  return slowest;
}

/** slowestTime's last answer and the record it was for. */
let lastGames: Games | undefined;
let lastSlowest = Number.POSITIVE_INFINITY;
