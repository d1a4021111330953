// The host lockstep chart's steps for the games coming and going (spec/lockstep.md "Stalls and outsiders",
// "Leave and removal", "Catching up"; wire-protocol.txt Hello 10, "Reconnect"): a game's Hello (ready, an outsider
// in a started session), a game that came back caught up (stalled with the host's promise until its clock reaches
// it), and a game that left. Pure functions of the chart's context (rules/lockstepSteps.ts).
import { helloGame, leaveGame } from '../hostGames.ts';
import type { Games } from '../hostGames.ts';
import { furthestMarked, futureStamp, gameList, returnGame } from '../lockstep.ts';
import type { HelloPayload, StallMark } from '../lockstepTypes.ts';
import { closeParkedOf } from './builds.ts';
import { runningStamp } from './pause.ts';
import { log, sessionOut, step, stranger } from './step.ts';
import type { Ctx, Out, Step } from './step.ts';

/** A Hello: the game is ready (an outsider in a started session); its old clock is dropped. */
export function onHello(context: Ctx, from: number, payload: HelloPayload, loaded = false): Step {
  const game = context.games[from];
  if (game === undefined) return stranger(context, from);
  const heard = helloGame(context.games, from, context.session.started, context.now, payload.time, loaded);
  const games: Games = { ...heard, [from]: { ...heard[from]!, helloTime: payload.time } };
  const out: Out[] = [log({ msg: 'game said hello', from, time: payload.time })];
  if (!games[from]!.hasWorld) {
    out.push(log({ msg: 'game is an outsider until a resync round loads the session world', from }));
  }
  if (game.stalled !== undefined) out.push(sessionOut({ ...context, games }));
  return step({ games, ...forget(context, from) }, out);
}

/** A returned game is no longer waited for (a leave, a Hello after a load): no `out.caughtUp` for it. */
function forget(context: Ctx, id: number): Partial<Ctx> {
  return context.returning.includes(id) ? { returning: context.returning.filter((r) => r !== id) } : {};
}

/**
 * A game came back and is caught up (wire-protocol "Reconnect", "Catching up"; lockstep.md "Catching up"; the
 * session sends `game.returned`): ready with the session's world. In a started session it catches up as a stalled
 * game: marked at once with the host's promise (`returnPromise`), since now, where it stands unknown (no `t`) until its
 * first Clock; Session lists it. Its PeerClock goes out flagged stalled with that promise from its first Clock on; the mark ends as any stall's, when its
 * clock reaches the promise (`out.caughtUp` then). Before the start: ready, no mark, nothing sent.
 */
export function onReturn(context: Ctx, id: number, hasWorld = true): Step & { mark: StallMark | undefined } {
  if (id === 0) return { ...step(), mark: undefined };
  if (!hasWorld) {
    // It dropped as an outsider: it comes back one (no promise to keep; the round that loads it ends the mark).
    const games = returnGame(context.games, id, context.now, undefined, false);
    return { ...step({ games, ...forget(context, id) }, [log({ msg: 'game returned: still an outsider', from: id })]), mark: undefined };
  }
  const without = leaveGame(context.games, id);
  const mark: StallMark | undefined = context.session.started
    ? { promise: returnPromise({ ...context, games: without }), since: context.now }
    : undefined;
  const games = returnGame(context.games, id, context.now, mark);
  if (mark === undefined) {
    return { ...step({ games, ...forget(context, id) }, [log({ msg: 'game returned', from: id })]), mark };
  }
  const returning = context.returning.includes(id) ? context.returning : [...context.returning, id];
  const entry = log({ msg: 'game returned: it catches up as a stalled game', from: id, promise: mark.promise });
  return { ...step({ games, returning }, [entry, sessionOut({ ...context, games })]), mark };
}

/**
 * A returner's promise: the running stamp (futureStamp over the pacing games, the promise the stall rule gives), and
 * never below futureStamp over where a marked game may stand (stamps.ts `furthestMarked`). Nobody waited for the
 * returner while it was away, so a marked game catching up may stand past every pacing game, or there may be none
 * (simulator seed 5061: the running stamp fell back to the frozen host game's 0 while a marked game stood at 3800;
 * the returner's actions stamped 2800–3600 were relayed and applied late there).
 */
function returnPromise(context: Ctx): number {
  const running = runningStamp(context);
  const marked = furthestMarked(gameList(context.games), context.now);
  return marked === undefined ? running : Math.max(running, futureStamp(marked, context.session.lead));
}

/**
 * A game left: its parked builds are refused on every game (builds.ts `closeParkedOf`); if it was stalled, Session
 * lists the stalled games again.
 */
export function onLeave(context: Ctx, id: number): Step {
  const games = leaveGame(context.games, id);
  const closed = closeParkedOf(context, id);
  const out = context.games[id]?.stalled !== undefined ? [...closed.out, sessionOut({ ...context, games })] : closed.out;
  return step({ ...closed.patch, games, ...forget(context, id) }, out);
}
