// The host lockstep chart's steps as pure functions (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12,
// Action 50, BuildVeto 52): each takes the chart's context and returns what to change and what to emit, in the
// order the receivers must see it. The chart (machines/lockstep.ts) applies them from one-line actions.
import type { LockstepContext, LockstepEmitted, LockstepInput, LockstepSession } from '../lockstep.ts';
import { mayChangeSpeed } from './category.ts';
import { sanitiseHop } from './hop.ts';
import {
  createGames,
  gameList,
  helloGame,
  leaveGame,
  pacingIds,
  stalledIds,
  startRunningTime,
  stopsOf,
  storeClock,
} from './hostGames.ts';
import type { Games } from './hostGames.ts';
import { leadFor, nextLead } from './lead.ts';
import { pauseAtFor, startCheck } from './lockstep.ts';
import type { StartCheck } from './lockstep.ts';
import type { ActionPayload, ClockPayload, HelloPayload, Hop, PeerClockPayload, Speed } from './lockstepTypes.ts';
import { createPauseOrder, flushPauseOrder, flushReady, flushStamp, holdPauseAction, holdRefusal } from './pauseOrder.ts';
import { payloadByteLength } from '../../protocol/messages/index.ts';
import { inFlightRefusal, record, settle } from './inFlight.ts';
import { LIMITS } from '../../protocol/messages/index.ts';
import { hostVeto, peerClockOf, relayedAction, sessionPayloadOf } from './relay.ts';
import { updateStalls } from './stall.ts';
import { futureStamp, maxClock } from './stamps.ts';

type Ctx = LockstepContext;
type Out = LockstepEmitted;
type Log = { msg: string; [k: string]: unknown };

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
    pauseOrder: createPauseOrder(),
    permissions: input?.permissions ?? {},
    maxRtt: 0,
    rtt: {},
    off: {},
    clockIntervalMs,
    hostName: input?.hostName ?? 'host',
    hostGame: input?.hostGame ?? true,
    droppedSpeedRequests: {},
    inFlight: {},
    loggedOnce: [],
  };
}

/** What one step changes in the context and what it emits, in order. */
export interface Step {
  patch: Partial<LockstepContext>;
  out: LockstepEmitted[];
}

const log = (entry: Log): Out => ({ type: 'out.log', ...entry });
const step = (patch: Partial<Ctx> = {}, out: Out[] = []): Step => ({ patch, out });

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

/** The start check over the ready games. */
export function startCheckOf(context: Ctx): StartCheck {
  return startCheck(gameList(context.games).filter((g) => g.ready), context.hostGame);
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

function hopFor(context: Ctx, from: number, hop: unknown, wall: number | undefined): Hop | undefined {
  return sanitiseHop(hop, from, { wall, so: context.off[from], sr: context.rtt[from] });
}

function stranger(context: Ctx, from: number): Step {
  return logOnce(context, `stranger:${from}`, { msg: 'message from a game that has not joined', from });
}

/** A Hello: the game is ready (an outsider in a started session); its old clock is dropped. */
export function onHello(context: Ctx, from: number, payload: HelloPayload): Step {
  const game = context.games[from];
  if (game === undefined) return stranger(context, from);
  const games = helloGame(context.games, from, context.session.started, context.now, payload.time);
  const out: Out[] = [log({ msg: 'game said hello', from, time: payload.time })];
  if (!games[from]!.hasWorld) {
    out.push(log({ msg: 'game is an outsider until a resync round loads the session world', from }));
  }
  if (game.stalled !== undefined) out.push(sessionOut({ ...context, games }));
  return step({ games }, out);
}

/** A game left: if it was stalled, Session lists the stalled games again. */
export function onLeave(context: Ctx, id: number): Step {
  const games = leaveGame(context.games, id);
  return step({ games }, context.games[id]?.stalled !== undefined ? [sessionOut({ ...context, games })] : []);
}

/**
 * A Clock: stored with the host's clock; a stall mark ends when it reaches the promise (Session first); then the
 * PeerClock to all but the origin. A clock before the game's Hello is kept but not relayed.
 */
export function onClock(context: Ctx, from: number, payload: ClockPayload, wall: number | undefined): Step {
  if (context.games[from] === undefined) return stranger(context, from);
  const { games, cleared } = storeClock(context.games, from, payload, context.now);
  const out: Out[] = [];
  if (cleared) {
    out.push(log({ msg: 'stall ended: the game reached the host promise', from, t: payload.t }));
    out.push(sessionOut({ ...context, games }));
  }
  const game = games[from]!;
  if (!game.ready) {
    const once = logOnce(context, `early-clock:${from}`, { msg: 'clock before hello not relayed', from });
    return step({ games, ...once.patch }, [...out, ...once.out]);
  }
  const relayed = peerClockOf(game, hopFor(context, from, payload.hop, wall))!;
  out.push({ type: 'send.PeerClock', to: 'allBut', except: from, payload: relayed });
  return step({ games }, out);
}

/**
 * An ordinary Action: to all but the origin with from, allowed and category; the first forbidden one is logged.
 * Its size is measured as it will be relayed (the host writes the game's numbers in their shortest form and adds
 * fields): one that does not fit a frame is refused on every game, its origin included, and relayed to nobody.
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
  const sent: Out = { type: 'send.Action', to: 'allBut', except: from, payload: relayed };
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
 * Room for the fields a flush adds to a held pause action (stamp, pauseSeq, pauseUpto), each at its widest
 * (a safe integer of 16 digits): `,"stamp":` … is at most 96 bytes for the three.
 */
const FLUSH_FIELDS_BYTES = 96;

/**
 * A pause action: the next pauseSeq, held until a flush. Refused on every game instead when it would not fit a
 * frame once flushed, or the pause order holds its bound (pauseOrder.ts: per game, in all, in bytes).
 */
export function onPauseAction(context: Ctx, from: number, payload: ActionPayload, wall: number | undefined): Step {
  const hop = hopFor(context, from, payload.hop, wall);
  const { stamp: _none, ...action } = relayedAction(payload, from, context.permissions, hop, 0);
  const bytes = payloadByteLength('Action', { ...action, stamp: 0 }) + FLUSH_FIELDS_BYTES;
  if (bytes > LIMITS.payloadBytes) return onVeto(context, from, payload.seq, `larger than a frame as relayed (${bytes} bytes)`);
  const full = holdRefusal(context.pauseOrder, from, bytes);
  if (full !== undefined) return onVeto(context, from, payload.seq, full);
  const { order, item } = holdPauseAction(context.pauseOrder, action, bytes);
  const held = log({ msg: 'pause action held', from, seq: payload.seq, pauseSeq: item.pauseSeq });
  return step({ pauseOrder: order }, [held]);
}

/** Flushes what is held at max(furthest, floor): every item to every game, origin included. */
export function flushAt(context: Ctx, furthest: number): Step {
  const stamp = flushStamp(furthest, context.pauseOrder.floor);
  const { order, items } = flushPauseOrder(context.pauseOrder, stamp);
  if (items.length === 0) return step();
  // Flushed items wait in every game's queue too (the pause order bounds how many: pauseOrder.ts).
  let inFlight = context.inFlight;
  for (const item of items) inFlight = record(inFlight, item.from, stamp);
  const out: Out[] = items.map((payload) => ({ type: 'send.Action', to: 'all', payload }));
  out.push(log({ msg: 'pause order flushed', stamp, pauseUpto: items.at(-1)!.pauseUpto, items: items.length }));
  return step({ pauseOrder: order, inFlight }, out);
}

/**
 * The time every game of the session's world is known to have reached: the lowest reported time (Clock, or the
 * Hello's) of the ready games with the session's world. A stalled game is left out: counting it would let one
 * frozen game refuse everybody's actions; its own queue may then fill, and its world is the one that parts.
 * Nothing is held: +∞.
 */
export function slowestTime(games: Games): number {
  let slowest = Number.POSITIVE_INFINITY;
  for (const game of Object.values(games)) {
    if (!game.ready || !game.hasWorld || game.stalled !== undefined) continue;
    const t = game.clock?.t ?? game.bestT ?? 0;
    if (t < slowest) slowest = t;
  }
  return slowest;
}

/** The running session's stamp for the host: futureStamp over the pacing games (the host's game t without). */
export function runningStamp(context: Ctx): number {
  const max = maxClock(gameList(context.games), context.now) ?? context.games[0]?.clock?.t ?? 0;
  return futureStamp(max, context.session.lead);
}

/** While the session runs, a pause action (made before the game read the unpause) goes out at once. */
export function flushIfRunning(context: Ctx): Step {
  return context.session.started && context.session.speed > 0 ? flushAt(context, runningStamp(context)) : step();
}

/** Whether every ready pacing game reported stop and something is held. */
export function flushDue(context: Ctx): boolean {
  return context.pauseOrder.held.length > 0 && flushReady(stopsOf(context.games), pacingIds(context.games)).ready;
}

/** The tick flush: at the furthest reported stop, once every ready pacing game reported stop. */
export function flushStopped(context: Ctx): Step {
  const ready = flushReady(stopsOf(context.games), pacingIds(context.games));
  return ready.ready ? flushAt(context, ready.furthestStop) : step();
}

/** The flush before an unpause: no pacing game stands past pauseAt or the furthest t it reported. */
export function flushOnResume(context: Ctx): Step {
  const pacing = new Set(pacingIds(context.games));
  const times = gameList(context.games).flatMap((g) => (pacing.has(g.id) && g.clock ? [g.clock.t] : []));
  return flushAt(context, Math.max(context.session.pauseAt ?? 0, ...times));
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
    hostT: games[0]?.clock?.t,
    maxClock: maxClock(gameList(games), context.now),
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

/** The stall pass of a running tick: marks, raised promises and ended marks, with Session and PeerClocks. */
export function checkStalls(context: Ctx): Step {
  const { now, session } = context;
  const update = updateStalls({ games: gameList(context.games), now, running: true, lead: session.lead });
  if (update.marked.length + update.raised.length + update.cleared.length === 0) return step();
  const games: Games = Object.fromEntries(update.games.map((g) => [g.id, g]));
  const out: Out[] = update.cleared.map((from) => log({ msg: 'stall ended: the game reached the host promise', from }));
  for (const from of update.marked) {
    out.push(log({ msg: 'game stalled', from, promise: games[from]!.stalled!.promise }));
  }
  if (update.marked.length + update.cleared.length > 0) out.push(sessionOut({ ...context, games }));
  for (const from of [...update.marked, ...update.raised]) {
    out.push({ type: 'send.PeerClock', to: 'allBut', except: from, payload: peerClockOf(games[from]!, undefined)! });
  }
  return step({ games }, out);
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
