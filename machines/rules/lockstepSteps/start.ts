// The host lockstep chart's steps for the session itself (spec/lockstep.md "Start", "Pause, speed and the pause
// order", "The lead"; wire-protocol.txt Session 11, SpeedRequest 32): the context at creation, the start check and
// the games that start as outsiders (spec "Outsiders"), the lead and its hysteresis, a pause, a speed, and the
// SpeedRequests of players outside the speed set. Pure functions of the chart's context (rules/lockstepSteps.ts).
import type { LockstepContext, LockstepSession } from '../../lockstepContext.ts';
import type { LockstepInput } from '../../lockstepEvents.ts';
import { mayChangeSpeed } from '../category.ts';
import { createGames, gameList, startRunningTime } from '../hostGames.ts';
import { leadFor, nextLead } from '../lead.ts';
import { pauseAtFor, startCheck } from '../lockstep.ts';
import type { StartCheck } from '../lockstep.ts';
import type { GameView, Speed, StartApart } from '../lockstepTypes.ts';
import { furthestClock, hostGameT } from '../stamps.ts';
import { NO_STALL_PASS } from './clocks.ts';
import { log, logOnce, sessionOut, step } from './step.ts';
import type { Ctx, Log, Step } from './step.ts';

/** The games' Clock cadence the lead assumes when the actor gives none (ms): the mod's (docs/DECISIONS.md). */
export const DEFAULT_CLOCK_INTERVAL_MS = 100;
/** The chart's context at creation: the host's game only, not started, the lead for no round trip yet. */
export function createLockstepContext(input: LockstepInput | undefined): LockstepContext {
  const now = input?.now ?? 0;
  const startSpeed = input?.startSpeed ?? 1;
  const clockIntervalMs = input?.clockIntervalMs ?? DEFAULT_CLOCK_INTERVAL_MS;
  return {
    now,
    games: createGames(now),
    session: {
      started: false,
      speed: 0,
      lead: leadFor(0, clockIntervalMs, startSpeed || 1),
      ran: false,
      resumeSpeed: startSpeed === 0 ? 1 : startSpeed,
      startSpeed,
    },
    startRequested: false,
    waiting: undefined,
    permissions: input?.permissions ?? {},
    maxRtt: 0,
    rtt: {},
    off: {},
    clockIntervalMs,
    hostName: input?.hostName ?? 'host',
    hostGame: input?.hostGame ?? true,
    droppedSpeedRequests: {},
    inFlight: {},
    returning: [],
    stallPass: NO_STALL_PASS,
    loggedOnce: [],
  };
}

/** The start check over the ready games. */
export function startCheckOf(context: Ctx): StartCheck {
  return startCheck(gameList(context.games).filter((g) => g.ready), context.hostGame);
}

/**
 * At the start: every ready game that stands at another time than the host's game (rules/lockstep.ts `standsApart`)
 * becomes an outsider (spec "Outsiders": its clock holds no pause and counts for no stamp, it is relayed stalled with
 * no safe, its actions are refused with a host BuildVeto) until the Hello of a resync round's load; `startApart`
 * remembers the host game's time and theirs for the resync actor, which starts that round at once
 * (`START_ROUND_REASON`). A start at one time changes nothing. `outsiders`: their ids, for their pacing charts.
 */
export function markStartOutsiders(context: Ctx): { patch: Partial<Ctx>; outsiders: number[] } {
  const check = startCheckOf(context);
  if (!check.ok || check.outsiders.length === 0) return { patch: {}, outsiders: [] };
  const games: Record<number, GameView> = { ...context.games };
  for (const { id } of check.outsiders) games[id] = { ...games[id]!, hasWorld: false };
  const startApart: StartApart = { t: check.t, outsiders: check.outsiders };
  return { patch: { games, startApart }, outsiders: check.outsiders.map((o) => o.id) };
}

/** The log line of the start: the outsiders and their times when the games stood at different times. */
export function startLog(context: Ctx, msg: string): Log {
  const apart = context.startApart;
  if (apart === undefined) return { msg };
  return { msg: `${msg} with games at different times: outsiders until a resync round loads the host game's world`, t: apart.t, outsiders: apart.outsiders };
}

/** The speed the lead is computed for: the speed in force, or the one a start or an unpause will run at. */
export function leadSpeed(session: LockstepSession): number {
  if (session.speed > 0) return session.speed;
  return session.started ? session.resumeSpeed : session.startSpeed || 1;
}

/** The lead after the round trip or the speed changed (2-step hysteresis). */
export function recomputedLead(context: Ctx): number {
  const proposed = leadFor(context.maxRtt, context.clockIntervalMs, leadSpeed(context.session));
  return nextLead(context.session.lead, proposed);
}
/** A SpeedRequest from outside the speed set: dropped, counted, logged once per player. */
export function onForbiddenSpeed(context: Ctx, from: number, speed: number): Step {
  const count = (context.droppedSpeedRequests[from] ?? 0) + 1;
  const entry = { msg: 'speed request dropped: player not in the speed set', from, speed };
  const once = logOnce(context, `speed-forbidden:${from}`, entry);
  return step({ droppedSpeedRequests: { ...context.droppedSpeedRequests, [from]: count }, ...once.patch }, once.out);
}

/** Whether player `from` may change the speed. */
export function speedAllowed(context: Ctx, from: number): boolean {
  return mayChangeSpeed(context.permissions, from);
}

/** Out of the lead's hysteresis: a new lead, logged, and broadcast in a started session. */
export function announceLead(context: Ctx): Step {
  const lead = recomputedLead(context);
  if (lead === context.session.lead) return step();
  const next = { ...context, session: { ...context.session, lead } };
  const out = [log({ msg: 'lead changed', lead, maxRtt: context.maxRtt })];
  return step({ session: next.session }, context.session.started ? [...out, sessionOut(next)] : out);
}

/** The session starts running at the start speed. */
export function startRunning(context: Ctx): Partial<Ctx> {
  const speed = context.session.startSpeed as Exclude<Speed, 0>;
  return { session: { ...context.session, started: true, speed, resumeSpeed: speed }, waiting: undefined };
}

/** The session starts paused: it never ran, so it pauses where the host's game stands. */
export function startPaused(context: Ctx): Partial<Ctx> {
  const hostT = context.games[0]?.clock?.t;
  const { lead } = context.session;
  const pauseAt = pauseAtFor({ pauseAt: undefined, ran: false, hostT, maxClock: undefined, lead });
  return { session: { ...context.session, started: true, speed: 0, pauseAt }, waiting: undefined };
}

/** Entering Running: the session has run, and stall time counts from now. */
export function enterRunning(context: Ctx): Partial<Ctx> {
  return { session: { ...context.session, ran: true }, games: startRunningTime(context.games, context.now) };
}

/** A pause: pauseAt as the spec says (futureStamp; kept when in force), the speed to resume remembered. */
export function pauseSession(context: Ctx): Partial<Ctx> {
  const { session, games } = context;
  const pauseAt = pauseAtFor({
    pauseAt: session.pauseAt,
    ran: session.ran,
    hostT: hostGameT(games),
    maxClock: furthestClock(games, context.now),
    lead: session.lead,
  });
  const resumeSpeed = session.speed > 0 ? (session.speed as Exclude<Speed, 0>) : session.resumeSpeed;
  return { session: { ...session, speed: 0, pauseAt, resumeSpeed } };
}

/** A speed (1, 2, 4) in force: pauseAt cleared, the lead follows the speed. */
export function setSpeed(context: Ctx, speed: Exclude<Speed, 0>): Partial<Ctx> {
  const { pauseAt: _cleared, ...rest } = context.session;
  const session: LockstepSession = { ...rest, speed, resumeSpeed: speed };
  return { session: { ...session, lead: recomputedLead({ ...context, session }) } };
}
