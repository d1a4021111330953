// The host lockstep chart's steps as pure functions (spec/lockstep.md; wire-protocol.txt Session 11, PeerClock 12,
// Action 50, BuildVeto 52): each takes the chart's context and returns what to change and what to emit, in the
// order the receivers must see it. The chart (machines/lockstep.ts) applies them from one-line actions. What the
// pause order (machines/pauseOrder.ts) and the games' pacing charts (machines/pacing.ts) report is relayed here.
import type { LockstepContext, LockstepEmitted, LockstepInput, LockstepSession } from '../lockstep.ts';
import type { PauseActionToHold } from '../pauseOrder.ts';
import type { StallPass } from '../lockstepContext.ts';
import { mayChangeSpeed } from './category.ts';
import { sanitiseHop } from './hop.ts';
import {
  createGames,
  gameList,
  helloGame,
  leaveGame,
  markGame,
  pacingIds,
  stalledIds,
  startRunningTime,
  stopsOf,
  storeClock,
} from './hostGames.ts';
import type { Games } from './hostGames.ts';
import { leadFor, nextLead } from './lead.ts';
import { pauseAtFor, returnGame, startCheck } from './lockstep.ts';
import type { StartCheck } from './lockstep.ts';
import type {
  ActionPayload,
  BuildCommitPayload,
  BuildVetoPayload,
  ClockPayload,
  GameView,
  HelloPayload,
  Hop,
  PeerClockPayload,
  Speed,
  StallMark,
  StartApart,
} from './lockstepTypes.ts';
import type { FlushedPauseAction } from './pauseOrder.ts';
import { payloadByteLength } from '../../protocol/messages/index.ts';
import { inFlightRefusal, record, settle } from './inFlight.ts';
import { LIMITS } from '../../protocol/messages/index.ts';
import { hostVeto, peerClockOf, relayedAction, sessionPayloadOf } from './relay.ts';
import { futureStamp, maxClock } from './stamps.ts';
import { PARKED_COMMIT_MS, book, buildKey, expire, heldKindOf, unbook, vetoLateness } from './heldBuilds.ts';
import type { BookedBuild } from './heldBuilds.ts';

type Ctx = LockstepContext;
type Out = LockstepEmitted;
type Log = { msg: string; [k: string]: unknown };

/** The games' Clock cadence the lead assumes when the actor gives none (ms): the mod's (docs/DECISIONS.md). */
export const DEFAULT_CLOCK_INTERVAL_MS = 100;

/** A stall pass with nothing reported. */
export const NO_STALL_PASS: StallPass = { cleared: [], marked: [], raised: [] };

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

/** The hop the host relays with a message of `from` (rules/hop.ts). */
export function hopFor(context: Ctx, from: number, hop: unknown, wall: number | undefined): Hop | undefined {
  return sanitiseHop(hop, from, { wall, so: context.off[from], sr: context.rtt[from] });
}

function stranger(context: Ctx, from: number): Step {
  return logOnce(context, `stranger:${from}`, { msg: 'message from a game that has not joined', from });
}

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

/** The returned games among `ids` whose mark ended: `out.caughtUp` for each, in order, and the rest still waited for. */
function caughtUp(context: Ctx, ids: readonly number[]): { patch: Partial<Ctx>; out: Out[] } {
  const back = ids.filter((id) => context.returning.includes(id));
  if (back.length === 0) return { patch: {}, out: [] };
  const returning = context.returning.filter((id) => !back.includes(id));
  return { patch: { returning }, out: back.map((id) => ({ type: 'out.caughtUp' as const, id })) };
}

/**
 * A game came back and is caught up (wire-protocol "Reconnect", "Catching up"; lockstep.md "Catching up"; the
 * session sends `game.returned`): ready with the session's world. In a started session it catches up as a stalled
 * game: marked at once with the host's promise = the running stamp (futureStamp over the pacing games, the promise
 * the stall rule gives), since now, where it stands unknown (no `t`) until its first Clock; Session lists it. Its
 * PeerClock goes out flagged stalled with that promise from its first Clock on; the mark ends as any stall's, when its
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
    ? { promise: runningStamp({ ...context, games: without }), since: context.now }
    : undefined;
  const games = returnGame(context.games, id, context.now, mark);
  if (mark === undefined) {
    return { ...step({ games, ...forget(context, id) }, [log({ msg: 'game returned', from: id })]), mark };
  }
  const returning = context.returning.includes(id) ? context.returning : [...context.returning, id];
  const entry = log({ msg: 'game returned: it catches up as a stalled game', from: id, promise: mark.promise });
  return { ...step({ games, returning }, [entry, sessionOut({ ...context, games })]), mark };
}

/** A game left: if it was stalled, Session lists the stalled games again. */
export function onLeave(context: Ctx, id: number): Step {
  const games = leaveGame(context.games, id);
  const out = context.games[id]?.stalled !== undefined ? [sessionOut({ ...context, games })] : [];
  return step({ games, ...forget(context, id) }, out);
}

/**
 * A Clock: stored with the host's clock, then the PeerClock to all but the origin. A clock before the game's Hello
 * is kept but not relayed. The clock of a stalled game is not relayed here: its pacing chart first decides whether
 * it ends the mark (`pacingDecidesClock`, then `relayClock`).
 */
export function onClock(context: Ctx, from: number, payload: ClockPayload, wall: number | undefined): Step {
  if (context.games[from] === undefined) return stranger(context, from);
  const games = storeClock(context.games, from, payload, context.now);
  const relay = relayClock({ ...context, games }, from, hopFor(context, from, payload.hop, wall));
  return step({ ...relay.patch, games }, relay.out);
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

/**
 * The chart's `relayAction`: an ordinary Action relayed (onAction), then its held build booked (bookHeld). Also what
 * the host's shortcut for an ordinary Action runs (machines/lockstepShortcut.ts): one step for both.
 */
export function relayStep(context: Ctx, from: number, payload: ActionPayload, wall: number | undefined): Step {
  return bookHeld(context, onAction(context, from, payload, wall), from, payload);
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

/** What the pause order needs at a paused tick: each game's reported stop (id, t) and the ready pacing games. */
export function pauseViewOf(context: Ctx): { stops: [number, number][]; pacing: number[] } {
  return { stops: [...stopsOf(context.games)], pacing: pacingIds(context.games) };
}

/** Where an unpause flushes from: no pacing game stands past pauseAt or the furthest t it reported. */
export function resumeStamp(context: Ctx): number {
  const pacing = new Set(pacingIds(context.games));
  const times = gameList(context.games).flatMap((g) => (pacing.has(g.id) && g.clock ? [g.clock.t] : []));
  return Math.max(context.session.pauseAt ?? 0, ...times);
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

// Held strict builds (wire-protocol.txt BuildVeto 52, BuildCommit 53, "Who may send what"; rules/heldBuilds.ts).

/** A BuildCommit as the stamp rules read it (rules/screen.ts `stampRefusal` reads only the stamp). */
export const commitAsStamped = (payload: BuildCommitPayload): ActionPayload => ({ stamp: payload.stamp, seq: payload.seq, body: null });

/**
 * After an Action was relayed (`relayed`, the step of `onAction`): a held strict build (`body.held`) or a parked one
 * (`body.commit`) is booked, so that a game's veto and its BuildCommit can be judged. An Action that was refused
 * instead is not booked.
 */
export function bookHeld(context: Ctx, relayed: Step, from: number, payload: ActionPayload): Step {
  const kind = heldKindOf(payload);
  if (kind === undefined || payload.stamp === undefined) return relayed;
  if (!relayed.out.some((e) => e.type === 'send.Action')) return relayed;
  const entry: BookedBuild = { owner: from, seq: payload.seq, stamp: payload.stamp, parked: kind === 'parked', since: context.now };
  const made = book(context.builds ?? {}, entry);
  const out = made.evicted === undefined ? relayed.out
    : [...relayed.out, log({ msg: 'held build forgotten: too many open', owner: made.evicted.owner, seq: made.evicted.seq })];
  return step({ ...relayed.patch, builds: made.book }, out);
}

/**
 * A BuildCommit the host accepted (its owner, ready, in the session's world, stamped at or above its promise or at
 * its announced `need`, of a parked build still booked): relayed with `from` to every game, its origin included.
 * The origin applies its own build only on this copy, as it does its own Action (docs/DECISIONS.md "BuildCommit goes
 * to its origin too"): a host veto that crossed the commit (the 10 s rule, a stall) then reaches every game in the
 * same order relative to it.
 */
export function onBuildCommit(context: Ctx, from: number, payload: BuildCommitPayload): Step {
  const relayed: BuildCommitPayload = { seq: payload.seq, owner: payload.owner, stamp: payload.stamp, from };
  const builds = unbook(context.builds ?? {}, payload.owner, payload.seq);
  const inFlight = record(settle(context.inFlight, slowestTime(context.games)).inFlight, from, payload.stamp);
  return step({ builds, inFlight }, [{ type: 'send.BuildCommit', to: 'all', payload: relayed }]);
}

/** Why a BuildCommit the guards let through is still refused: no parked build of that number is booked. */
export function commitUnbooked(context: Ctx, payload: BuildCommitPayload): string | undefined {
  const build = (context.builds ?? {})[buildKey(payload.owner, payload.seq)];
  if (build === undefined || !build.parked) return 'no parked build of that number waits (unknown, vetoed or past 10 s)';
  return undefined;
}

/** A host veto of a parked build: it is taken out of the book (a later BuildCommit of it is refused too). */
export function onBuildRefused(context: Ctx, owner: number, seq: number, why: string): Step {
  const vetoed = onVeto(context, owner, seq, why);
  return step({ ...vetoed.patch, builds: unbook(context.builds ?? {}, owner, seq) }, vetoed.out);
}

/**
 * A game's BuildVeto of another game's held build, in time (rules/heldBuilds.ts `vetoLateness`): relayed with `from`
 * and `name` set by the host and `host` cleared, to every game, the vetoer included (docs/DECISIONS.md "A game's
 * BuildVeto goes to the vetoer too": a vetoer keeps a parked build parked until its veto comes back, since a commit
 * the host relayed first wins; a held build it dropped when it vetoed, in time); the build leaves the book.
 */
export function onGameVeto(context: Ctx, from: number, payload: BuildVetoPayload, name: string): Step {
  const relayed: BuildVetoPayload = { seq: payload.seq, owner: payload.owner, why: payload.why, from, name };
  const builds = unbook(context.builds ?? {}, payload.owner, payload.seq);
  const entry = log({ msg: 'build veto relayed', from, owner: payload.owner, seq: payload.seq });
  return step({ builds }, [{ type: 'send.BuildVeto', to: 'all', payload: relayed }, entry]);
}

/** Why a game's BuildVeto is dropped instead of relayed, if it is. */
export function gameVetoRefusal(context: Ctx, from: number, payload: BuildVetoPayload): string | undefined {
  const game = context.games[from];
  if (game?.ready !== true) return 'the game is not ready';
  if (!game.hasWorld) return "the game's world is not the session's yet";
  if (payload.owner === from) return 'a game does not veto its own build';
  // A stalled vetoer: the others pace to the host's promise for it, so that is how far it may have let them run.
  const safe = game.bestSafe ?? game.clock?.safe;
  const promised = game.stalled === undefined ? safe : Math.max(game.stalled.promise, safe ?? 0);
  return vetoLateness(context.builds ?? {}, payload.owner, payload.seq, promised);
}

/**
 * A game's BuildVeto the host does not relay (`gameVetoRefusal`): logged once per game and reason, and answered to
 * the vetoer alone with the same BuildVeto marked `late: true` (docs/DECISIONS.md "Every game veto is answered"): a
 * vetoer keeps a held build it vetoed in its queue, holding its barrier at the stamp, until the host answers: the
 * relayed veto (dropped on every game, the vetoer included) or this one (too late: the vetoer applies it at its
 * stamp, as the games that may have applied it already). Any other way to be refused (another game's veto relayed
 * first, the host's veto, the build committed) reaches the vetoer before this answer, on its one ordered path.
 */
export function onGameVetoRefused(context: Ctx, from: number, payload: BuildVetoPayload, why: string, name: string): Step {
  const dropped = onBuildMessageDropped(context, 'BuildVeto', from, payload, why);
  const answer = { seq: payload.seq, owner: payload.owner, why: why.slice(0, 300), from, name, late: true as const };
  return step(dropped.patch, [{ type: 'send.BuildVeto', to: from, payload: answer }, ...dropped.out]);
}

/** A dropped BuildVeto or BuildCommit: logged once per game and reason. */
export function onBuildMessageDropped(context: Ctx, kind: 'BuildVeto' | 'BuildCommit', from: number, payload: { owner: number; seq: number }, why: string): Step {
  return logOnce(context, `${kind}-dropped:${from}:${why}`, { msg: `${kind} dropped`, from, owner: payload.owner, seq: payload.seq, why });
}

/** Why the host refuses parked builds around a resync round's save and load (`closeParkedBuilds`, `parkedInRound`). */
export const RESYNC_PARKED_WHY = 'a resync round saves and loads the world';

/**
 * A resync round starts Saving (`resync.stamps` held): every parked build still open is refused on every game with
 * the host's BuildVeto, its originator included, before the ResyncSave and the load. Parked builds (and a held build
 * of the pause not committed yet) live in the mod's session state, not in the world nor in the queue a load carries
 * over: a game that loads forgets them, one that does not (the host's game as the source) would keep them, and a
 * commit after the load would be applied by its originator alone. The simulator's `heldBuilds` workload found the build
 * lost on every game without a verdict (CI sizes, seed 20: `exactlyOnce: p2's action 1:4 stamped 2200 was neither
 * applied nor refused anywhere`). Each game reads this veto before its load line (the host holds a participant's
 * messages only from the announcement on), so every one refuses the build.
 */
export function closeParkedBuilds(context: Ctx): Step {
  const open = Object.values(context.builds ?? {}).filter((b) => b.parked);
  if (open.length === 0) return step();
  let builds = context.builds ?? {};
  const out: Out[] = [];
  for (const build of open) {
    out.push(...onVeto(context, build.owner, build.seq, RESYNC_PARKED_WHY).out);
    builds = unbook(builds, build.owner, build.seq);
  }
  return step({ builds }, out);
}

/** A parked build's record (`body.commit`) while a resync round saves or loads the world: refused (see above). */
export function parkedInRound(context: Ctx, payload: ActionPayload): boolean {
  return context.stampsHeld === true && heldKindOf(payload) === 'parked';
}

/**
 * A tick: the parked builds whose BuildCommit has not come within PARKED_COMMIT_MS are refused on every game with
 * the host's BuildVeto (the one clock that decides the 10 s rule); the held builds every game has passed and those
 * of games gone are forgotten.
 */
export function expireBuilds(context: Ctx): Step {
  const current = context.builds;
  if (current === undefined || Object.keys(current).length === 0) return step();
  const { book: next, expired } = expire(current, context.now, slowestTime(context.games), (id) => context.games[id] !== undefined);
  if (next === current) return step();
  const out: Out[] = [];
  for (const build of expired) {
    out.push(...onVeto(context, build.owner, build.seq, `no BuildCommit within ${PARKED_COMMIT_MS / 1000} s`).out);
  }
  return step({ builds: next }, out);
}
