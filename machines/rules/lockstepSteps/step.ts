// The shape of the host lockstep chart's steps (machines/rules/lockstepSteps.ts; spec/lockstep.md): a step is a
// pure function of the chart's context that returns what to change and what to emit, in the order the receivers
// must see it; the chart applies it from a one-line action (machines/lockstepActions.ts `apply`). Here: the Step
// type and its two constructors, the Session as the host would broadcast it (Session 11), the log lines written
// once per key, and the hop the host relays with a game's message (rules/hop.ts).
import type { LockstepContext } from '../../lockstepContext.ts';
import type { LockstepEmitted } from '../../lockstepEvents.ts';
import { sanitiseHop } from '../hop.ts';
import { stalledIds } from '../hostGames.ts';
import type { Hop } from '../lockstepTypes.ts';
import { sessionPayloadOf } from '../relay.ts';

export type Ctx = LockstepContext;
export type Out = LockstepEmitted;
export type Log = { msg: string; [k: string]: unknown };

/** What one step changes in the context and what it emits, in order. */
export interface Step {
  patch: Partial<LockstepContext>;
  out: LockstepEmitted[];
}

/** An `out.log` of the line; a step of `patch` and `out` (both empty by default). */
export const log = (entry: Log): Out => ({ type: 'out.log', ...entry });
export const step = (patch: Partial<Ctx> = {}, out: Out[] = []): Step => ({ patch, out });

/** Session 11 as the host would broadcast it now (also Welcome.session). */
export const sessionOut = (context: Ctx): Out => ({
  type: 'send.Session',
  to: 'all',
  payload: sessionPayloadOf(context.session, stalledIds(context.games)),
});

/** A log line written once per key (a player's first forbidden action of a category, …). */
export function logOnce(context: Ctx, key: string, entry: Log): Step {
  if (context.loggedOnce.includes(key)) return step();
  return step({ loggedOnce: [...context.loggedOnce, key] }, [log(entry)]);
}

/** The hop the host relays with a message of `from` (rules/hop.ts). */
export function hopFor(context: Ctx, from: number, hop: unknown, wall: number | undefined): Hop | undefined {
  return sanitiseHop(hop, from, { wall, so: context.off[from], sr: context.rtt[from] });
}

/** A message from a game that has not joined: logged once per game. */
export function stranger(context: Ctx, from: number): Step {
  return logOnce(context, `stranger:${from}`, { msg: 'message from a game that has not joined', from });
}
