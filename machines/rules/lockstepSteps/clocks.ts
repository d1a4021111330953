// The host lockstep chart's steps for the games' clocks and stalls (spec/lockstep.md "Clocks", "Stalls and
// outsiders"; wire-protocol.txt Clock 31, PeerClock 12, Session 11): a game's Clock stored and relayed as the
// PeerClock to all but it (a stalled game's after its pacing chart decided), the end of a stall when a game's clock
// reached the host's promise, the running tick's stall pass the pacing charts report (machines/pacing.ts), and every
// game's latest clock sent again at the start. Pure functions of the chart's context (rules/lockstepSteps.ts).
import type { StallPass } from '../../lockstepContext.ts';
import { gameList, markGame, storeClock } from '../hostGames.ts';
import type { ClockPayload, Hop, PeerClockPayload, StallMark } from '../lockstepTypes.ts';
import { peerClockOf } from '../relay.ts';
import { hopFor, log, logOnce, sessionOut, step, stranger } from './step.ts';
import type { Ctx, Out, Step } from './step.ts';

/** A stall pass with nothing reported. */
export const NO_STALL_PASS: StallPass = { cleared: [], marked: [], raised: [] };
/** The returned games among `ids` whose mark ended: `out.caughtUp` for each, in order, and the rest still waited for. */
function caughtUp(context: Ctx, ids: readonly number[]): { patch: Partial<Ctx>; out: Out[] } {
  const back = ids.filter((id) => context.returning.includes(id));
  if (back.length === 0) return { patch: {}, out: [] };
  const returning = context.returning.filter((id) => !back.includes(id));
  return { patch: { returning }, out: back.map((id) => ({ type: 'out.caughtUp' as const, id })) };
}

/**
 * A Clock: stored with the host's clock, then the PeerClock to all but the origin. A clock before the game's Hello
 * is kept but not relayed. The clock of a stalled game is not relayed here: its pacing chart first decides whether
 * it ends the mark (`pacingDecidesClock`, then `relayClock`).
 */
export function onClock(context: Ctx, from: number, payload: ClockPayload, wall: number | undefined): Step {
  if (context.games[from] === undefined) return stranger(context, from);
  const games = storeClock(context.games, from, payload, context.now, context.session);
  const relay = relayClock({ ...context, games }, from, hopFor(context, from, payload.hop, wall));
  if (payload.need === undefined || games[from]!.clock?.need !== undefined) return step({ ...relay.patch, games }, relay.out);
  const left = logOnce({ ...context, ...relay.patch }, `need:${from}:${payload.need}`, {
    msg: 'need left out: the session no longer stands at it',
    from,
    need: payload.need,
    t: payload.t,
  });
  return step({ ...relay.patch, ...left.patch, games }, [...relay.out, ...left.out]);
}

/** Whether a game's clock waits for its pacing chart before it is relayed: the game is stalled. */
export function pacingDecidesClock(context: Ctx, from: number): boolean {
  return context.games[from]?.stalled !== undefined;
}

/** The PeerClock of a game's stored clock to all but the game (a game not ready yet: logged once, not relayed). */
export function relayClock(context: Ctx, from: number, hop: Hop | undefined): Step {
  const game = context.games[from];
  if (game?.clock === undefined) return step();
  if (!game.ready) return logOnce(context, `early-clock:${from}`, { msg: 'clock before hello not relayed', from });
  return step({}, [{ type: 'send.PeerClock', to: 'allBut', except: from, payload: peerClockOf(game, hop)! }]);
}

/** A stalled game's clock reached the host's promise (its pacing chart says): the mark ends, Session lists the rest. */
export function onReached(context: Ctx, from: number, t: number): Step {
  if (context.games[from]?.stalled === undefined) return step();
  const games = markGame(context.games, from, undefined);
  const back = caughtUp(context, [from]);
  const out = [log({ msg: 'stall ended: the game reached the host promise', from, t }), sessionOut({ ...context, games })];
  return step({ games, ...back.patch }, [...out, ...back.out]);
}
/** A pacing chart's report in a running tick's stall pass (machines/pacing.ts). */
export type StallReport =
  | { change: 'cleared'; id: number }
  | { change: 'marked'; id: number; mark: StallMark }
  | { change: 'raised'; id: number; promise: number };

/** A report of the stall pass: the lockstep's view of the game's mark, and the pass so far (id order). */
export function onStallReport(context: Ctx, report: StallReport): Partial<Ctx> {
  const game = context.games[report.id];
  if (game === undefined) return {};
  const mark =
    report.change === 'marked' ? report.mark
    : report.change === 'raised' && game.stalled !== undefined ? { ...game.stalled, promise: report.promise }
    : undefined;
  const pass = context.stallPass;
  const stallPass = { ...pass, [report.change]: [...pass[report.change], report.id] };
  return { games: markGame(context.games, report.id, mark), stallPass };
}

/**
 * The end of a running tick's stall pass (every pacing chart has reported): the ended marks and the new ones
 * logged, Session once when the stalled games changed, then the PeerClock with the host's promise of each game
 * marked, then of each whose promise rose.
 */
export function settleStalls(context: Ctx): Step {
  const { cleared, marked, raised } = context.stallPass;
  const patch = { stallPass: NO_STALL_PASS };
  if (cleared.length + marked.length + raised.length === 0) return step(patch);
  const { games } = context;
  const out: Out[] = cleared.map((from) => log({ msg: 'stall ended: the game reached the host promise', from }));
  for (const from of marked) {
    const mark = games[from]?.stalled;
    if (mark !== undefined) out.push(log({ msg: 'game stalled', from, promise: mark.promise }));
  }
  if (marked.length + cleared.length > 0) out.push(sessionOut(context));
  for (const from of [...marked, ...raised]) {
    const game = games[from];
    const payload = game?.stalled === undefined ? undefined : peerClockOf(game, undefined);
    if (payload !== undefined) out.push({ type: 'send.PeerClock', to: 'allBut', except: from, payload });
  }
  const back = caughtUp(context, cleared);
  return step({ ...patch, ...back.patch }, [...out, ...back.out]);
}

/** Every game's latest clock as the PeerClock for all but that game (sent again at the start). */
export function latestPeerClocks(context: Ctx): { type: 'send.PeerClock'; to: 'allBut'; except: number; payload: PeerClockPayload }[] {
  const out: { type: 'send.PeerClock'; to: 'allBut'; except: number; payload: PeerClockPayload }[] = [];
  for (const game of gameList(context.games)) {
    const payload = peerClockOf(game, undefined);
    if (payload) out.push({ type: 'send.PeerClock', to: 'allBut', except: game.id, payload });
  }
  return out;
}
