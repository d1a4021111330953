// The checksum-rounds chart's steps (machines/checksumRounds.ts; spec "No overlap", "Light rounds", "Spread full
// rounds", "Chunk size and detail", "Resync policy"): each takes the chart's context and the host's clock and returns
// the context patch and the outputs in the order they leave (the chart applies them in one named action). Asking a
// round (its ChecksumRequest), taking a report, finishing a round (compare → chunk size → Authority → logs → the
// policy) and dropping one. Pure: time is the `now` passed in.
import type {
  ActionRefusedPayload,
  AuthorityPayload,
  ChecksumReportPayload,
  ChecksumRequestPayload,
} from '../../protocol/messages/index.ts';
import { compareRound, type PartDifference, type RoundReport } from './checksumCompare.ts';
import { chunkChangeText, recordCost, resize, spreadSteps, DEFAULT_CHUNK, type ChunkSizing } from './checksumChunks.ts';
import {
  DRIFT_LIMIT_MS,
  due,
  isMoneyPart,
  judgeRound,
  repairEnded,
  repairStarted,
  replayFailed,
  verdictsDiffer,
  type PolicyState,
  type PolicyStep,
} from './checksumPolicy.ts';
import { flushWaits, noteAsked, type RoundWaits } from './checksumWaits.ts';
import { createVerdictBook, readyChanged, recordVerdict, type VerdictBook } from './verdictBook.ts';

/** How often a regular round is asked (checksum_seconds). */
export const CHECKSUM_SECONDS = 5;
/** A round not complete after this long is dropped (checksum_round_timeout_seconds). */
export const ROUND_TIMEOUT_SECONDS = 60;
/** A part left out as notReady in every round for this long is logged once (ms). */
export const NOT_READY_WARN_MS = DRIFT_LIMIT_MS;

export interface SessionGame {
  id: number;
  name: string;
}

export interface OpenRound {
  n: number;
  at: number;
  paused: boolean;
  full: boolean;
  /** Spread full round: a chunk every `spread` steps. */
  spread?: number;
  askedAt: number;
  /** The games whose report it still waits for. */
  waiting: number[];
  reports: RoundReport[];
  /** Each reporting game's cost of a spread round (entityNs). */
  costs: [number, number][];
}

export type RoundResult = 'identical' | 'different' | 'time_skew' | 'dropped';

export type ChecksumRoundsEmitted =
  | { type: 'send.ChecksumRequest'; payload: ChecksumRequestPayload }
  /** Authority to every game but `source`, whose values they are. */
  | { type: 'send.Authority'; payload: AuthorityPayload; source: number }
  | { type: 'out.repairRequested'; reason: string }
  | { type: 'out.roundEnded'; n: number; paused: boolean; result: RoundResult; differences: PartDifference[] }
  | { type: 'out.log'; msg: string; [key: string]: unknown };

export interface ChecksumRoundsContext {
  /** The host's clock (ms) as of the last event. */
  now: number;
  nextN: number;
  /** Regular rounds asked so far (the first is full, then every fullEvery-th). */
  regularAsked: number;
  fullEvery: number;
  /** The ready games in the session's world, by the last tick. */
  games: readonly SessionGame[];
  /** The future stamp by the last tick (undefined: no pacing game has a clock). */
  at: number | undefined;
  running: boolean;
  speed: number;
  pauseAt: number | undefined;
  regular: OpenRound | undefined;
  paused: OpenRound | undefined;
  /** The pauseAt of the last paused round asked (one per pause). */
  pausedAskedAt: number | undefined;
  /** checksumSeconds and the round timeout, ms (the chart's named delays). */
  intervalMs: number;
  roundTimeoutMs: number;
  /** Keep itemised keys: a compared round differed and none was identical since. */
  detail: boolean;
  sizing: ChunkSizing;
  policy: PolicyState;
  verdicts: VerdictBook;
  /** Part → the round since which it differs. */
  differingSince: Readonly<Record<string, number>>;
  /** Part → since when some game leaves it out as notReady, and whether that was logged. */
  notReady: Readonly<Record<string, { since: number; warned: boolean }>>;
  /** No overlap: regular rounds that waited since the last log line. */
  waits: RoundWaits;
  /** Reports of no open round (late, dropped, duplicate) ignored. */
  ignoredReports: number;
}

export interface Step {
  patch: Partial<ChecksumRoundsContext>;
  out: ChecksumRoundsEmitted[];
}

const nameOf = (context: ChecksumRoundsContext, id: number) => context.games.find((g) => g.id === id)?.name ?? `#${id}`;

/** Asks the next regular round at the future stamp: full (spread over the steps) or light. */
export function askRegular(context: ChecksumRoundsContext): Step {
  const n = context.nextN;
  const at = context.at!;
  const full = context.regularAsked === 0 || context.regularAsked % context.fullEvery === 0;
  const spread = full ? spreadSteps(context.speed) : undefined;
  const payload: ChecksumRequestPayload = {
    n,
    at,
    paused: false,
    ...(full ? {} : { full: false }),
    ...(spread === undefined ? {} : { spread, ...(context.sizing.chunk === DEFAULT_CHUNK ? {} : { chunk: context.sizing.chunk }) }),
    ...(context.detail ? { detail: true } : {}),
  };
  const round = openRound(context, n, at, false, full, spread);
  const out: ChecksumRoundsEmitted[] = [{ type: 'send.ChecksumRequest', payload }];
  const waited = noteAsked(context.waits, context.now);
  if (waited.line !== undefined) out.push({ type: 'out.log', msg: waited.line });
  return { patch: { nextN: n + 1, regularAsked: context.regularAsked + 1, regular: round, waits: waited.waits }, out };
}

/** Asks a paused round at pauseAt: full, hashed whole. */
export function askPaused(context: ChecksumRoundsContext): Step {
  const n = context.nextN;
  const at = context.pauseAt!;
  const payload: ChecksumRequestPayload = { n, at, paused: true, ...(context.detail ? { detail: true } : {}) };
  return {
    patch: { nextN: n + 1, paused: openRound(context, n, at, true, true, undefined), pausedAskedAt: at },
    out: [{ type: 'send.ChecksumRequest', payload }],
  };
}

function openRound(context: ChecksumRoundsContext, n: number, at: number, paused: boolean, full: boolean, spread: number | undefined): OpenRound {
  const waiting = context.games.map((g) => g.id);
  return { n, at, paused, full, ...(spread === undefined ? {} : { spread }), askedAt: context.now, waiting, reports: [], costs: [] };
}

/** Takes game `from`'s report into the open round it belongs to; anything else is ignored. */
export function takeReport(context: ChecksumRoundsContext, from: number, payload: ChecksumReportPayload): Partial<ChecksumRoundsContext> {
  const key = context.regular?.n === payload.n ? 'regular' : context.paused?.n === payload.n ? 'paused' : undefined;
  const round = key && context[key];
  if (!key || !round || !round.waiting.includes(from)) return { ignoredReports: context.ignoredReports + 1 };
  const report: RoundReport = {
    game: from,
    time: payload.time,
    parts: payload.parts,
    ...(payload.notReady ? { notReady: payload.notReady } : {}),
    ...(payload.authority ? { authority: payload.authority } : {}),
  };
  const costs = payload.cost && round.spread !== undefined ? [...round.costs, [from, payload.cost.entityNs] as [number, number]] : round.costs;
  return { [key]: { ...round, waiting: round.waiting.filter((id) => id !== from), reports: [...round.reports, report], costs } };
}

/** A game left: no open round waits for it any more, nor the verdict book. */
export function gameLeft(context: ChecksumRoundsContext, id: number): Partial<ChecksumRoundsContext> {
  const without = (r: OpenRound | undefined) => r && { ...r, waiting: r.waiting.filter((g) => g !== id) };
  return { regular: without(context.regular), paused: without(context.paused), ...readyGames(context, context.games.filter((g) => g.id !== id)) };
}

/**
 * The ready games in the session's world by a tick or a leave. When the set changed, the verdict book stops waiting
 * for a game no longer ready: an open action every remaining ready game answered alike closes (spec "Action verdicts":
 * the verdicts of every ready game); one they answered differently asked for its repair when the difference came.
 */
export function readyGames(context: ChecksumRoundsContext, games: readonly SessionGame[]): Partial<ChecksumRoundsContext> {
  const same = games.length === context.games.length && games.every((g, i) => g.id === context.games[i]!.id);
  if (same || context.verdicts.open.size === 0) return { games };
  return { games, verdicts: readyChanged(context.verdicts, games.map((g) => g.id)).book };
}

/** At a host tick: no-overlap waits held since the last line, once a minute has passed (rules/checksumWaits.ts). */
export function waitsTick(context: ChecksumRoundsContext): Step {
  const flushed = flushWaits(context.waits, context.now);
  if (flushed.line === undefined) return { patch: {}, out: [] };
  return { patch: { waits: flushed.waits }, out: [{ type: 'out.log', msg: flushed.line }] };
}

/**
 * A resync's verification round drops a regular round still open from before the reload (spec "No overlap"). The
 * resync holds the session paused from its pause to its verification and a regular round is asked only while the
 * session runs, so any regular round open now was asked before the reload: its reports would be of the old worlds.
 * The next regular round does not count as having waited for it (no-overlap log): the resync's pause held it up.
 */
export function dropForVerification(context: ChecksumRoundsContext): Step {
  if (!context.regular) return { patch: {}, out: [] };
  const step = dropRound(context, 'regular', context.now - context.regular.askedAt, 'the resync’s verification round');
  return { patch: { ...step.patch, waits: { ...context.waits, overdueSince: undefined } }, out: step.out };
}

/** Drops an incomplete round: `checksum round <n> dropped: not reported by <names> after <s> s`; its late reports are ignored. */
export function dropRound(context: ChecksumRoundsContext, key: 'regular' | 'paused', afterMs: number, cause?: string): Step {
  const round = context[key]!;
  const names = round.waiting.map((id) => nameOf(context, id)).join(', ');
  const s = Math.round(afterMs / 1000);
  return {
    patch: { [key]: undefined },
    out: [
      { type: 'out.log', level: 'warn', msg: `checksum round ${round.n} dropped: not reported by ${names} after ${s} s`, n: round.n, ...(cause ? { cause } : {}) },
      { type: 'out.roundEnded', n: round.n, paused: round.paused, result: 'dropped', differences: [] },
    ],
  };
}

/** Every game reported: compare, size the chunk, correct money, log, and let the policy judge. */
export function finishRound(context: ChecksumRoundsContext, key: 'regular' | 'paused'): Step {
  const round = context[key]!;
  const now = context.now;
  const out: ChecksumRoundsEmitted[] = [];
  const patch: Partial<ChecksumRoundsContext> = { [key]: undefined };
  const compared = compareRound(round, round.reports);
  if (compared.kind === 'time_skew') {
    const times = compared.times.map((t) => `${nameOf(context, t.game)} ${t.time}`).join(', ');
    out.push({ type: 'out.log', msg: `checksum round ${round.n} skipped: time_skew (at ${round.at}; ${times})`, n: round.n });
    out.push({ type: 'out.roundEnded', n: round.n, paused: round.paused, result: 'time_skew', differences: [] });
    return { patch, out };
  }
  // Chunk size from the costs of this spread round.
  if (round.costs.length > 0) {
    let sizing: ChunkSizing = context.sizing;
    for (const [game, ns] of round.costs) sizing = recordCost(sizing, game, ns);
    const sized = resize(sizing, context.games.map((g) => g.id));
    patch.sizing = sized.sizing;
    if (sized.change) out.push({ type: 'out.log', msg: chunkChangeText(sized.change, nameOf(context, sized.change.game)), chunk: sized.change.to });
  }
  // Money: the host's game's values (else the lowest id's) to every other game.
  if (compared.authorityDiffers.length > 0) {
    const source = round.reports.find((r) => r.game === 0) ?? round.reports[0]!;
    const values = Object.fromEntries(compared.authorityDiffers.filter((name) => source.authority?.[name] !== undefined).map((name) => [name, source.authority![name]!]));
    if (Object.keys(values).length > 0) {
      out.push({ type: 'send.Authority', payload: { n: round.n, values }, source: source.game });
      out.push({ type: 'out.log', msg: `checksum round ${round.n}: authority sent`, values, source: nameOf(context, source.game) });
    }
  }
  const differing = compared.differences.map((d) => d.part);
  const nonMoney = differing.filter((p) => !isMoneyPart(p));
  const since: Record<string, number> = {};
  for (const part of differing) since[part] = context.differingSince[part] ?? round.n;
  patch.differingSince = since;
  patch.detail = nonMoney.length > 0;
  patch.notReady = trackNotReady(context, compared.leftOut, out);
  if (differing.length > 0) {
    const parts = compared.differences.map((d) => `${d.part} (since round ${since[d.part]}: ${groupsText(context, d)})`).join('; ');
    out.push({ type: 'out.log', level: 'warn', msg: `checksum round ${round.n} differs: ${parts}`, n: round.n, parts: differing });
  }
  out.push({ type: 'out.roundEnded', n: round.n, paused: round.paused, result: differing.length > 0 ? 'different' : 'identical', differences: compared.differences });
  // A round that completes during a resync is the Verifying rule's, not the policy's.
  if (!context.policy.repairing) {
    const step = judgeRound(context.policy, { full: round.full, differing, leftOut: compared.leftOut }, now);
    patch.policy = policyOutputs(step, out);
  }
  return { patch, out };
}

function groupsText(context: ChecksumRoundsContext, d: PartDifference): string {
  return d.groups.map((g) => `${g.games.map((id) => nameOf(context, id)).join(', ')}: ${g.value ?? 'missing'}`).join(' | ');
}

/** Parts left out as notReady: each one in every round for 300 s is logged once (it is never judged; see DECISIONS). */
function trackNotReady(context: ChecksumRoundsContext, leftOut: readonly string[], out: ChecksumRoundsEmitted[]) {
  const next: Record<string, { since: number; warned: boolean }> = {};
  for (const part of leftOut) {
    const known = context.notReady[part] ?? { since: context.now, warned: false };
    if (!known.warned && context.now - known.since >= NOT_READY_WARN_MS) {
      const s = Math.round((context.now - known.since) / 1000);
      out.push({ type: 'out.log', level: 'warn', msg: `checksum: part ${part} not ready for ${s} s; it is left out of every round`, part });
      next[part] = { ...known, warned: true };
    } else next[part] = known;
  }
  return next;
}

/** A policy step's outputs: the request (logged and emitted), a remembered or cancelled decision (logged). */
export function policyOutputs(step: PolicyStep, out: ChecksumRoundsEmitted[]): PolicyState {
  if (step.deferred !== undefined) {
    const msg = step.whileRepairing ? 'repair decided while a repair runs: remembered' : 'repair decided in the cooldown: remembered';
    out.push({ type: 'out.log', msg, reason: step.deferred });
  }
  if (step.cancelled !== undefined) out.push({ type: 'out.log', msg: 'remembered repair cancelled', reason: step.cancelled });
  if (step.request !== undefined) {
    out.push({ type: 'out.log', level: 'warn', msg: 'repair requested', reason: step.request });
    out.push({ type: 'out.repairRequested', reason: step.request });
  }
  return step.state;
}

/** At a host tick: a remembered decision whose cooldown is over (ChecksumPolicy::due). */
export function policyTick(context: ChecksumRoundsContext): Step {
  const out: ChecksumRoundsEmitted[] = [];
  const policy = policyOutputs(due(context.policy, context.now), out);
  return { patch: out.length > 0 ? { policy } : {}, out };
}

/** A game's verdict of an action (ActionRefused 36): differing verdicts ask the policy for a repair at once. */
export function takeVerdict(context: ChecksumRoundsContext, from: number, payload: ActionRefusedPayload): Step {
  const ready = context.games.map((g) => g.id);
  // A game outside the session's world (an outsider, one not ready) judges another world: its verdict counts not.
  if (!ready.includes(from)) return { patch: {}, out: [] };
  const step = recordVerdict(context.verdicts, from, { from: payload.from, seq: payload.seq, applied: payload.applied === true }, ready);
  const out: ChecksumRoundsEmitted[] = [];
  const patch: Partial<ChecksumRoundsContext> = { verdicts: step.book };
  if (step.evicted !== undefined) out.push({ type: 'out.log', msg: 'verdict book full: oldest open action forgotten', action: step.evicted });
  if (step.differ) {
    const names = (ids: number[]) => ids.map((id) => nameOf(context, id)).join(', ');
    out.push({ type: 'out.log', level: 'warn', msg: `verdicts of ${step.differ.key} differ`, applied: names(step.differ.applied), refused: names(step.differ.refused) });
    patch.policy = policyOutputs(verdictsDiffer(context.policy, step.differ.key, context.now), out);
  }
  return { patch, out };
}

/** A game's ReplayFailed: the policy asks for a repair at once. */
export function takeReplayFailed(context: ChecksumRoundsContext, from: number, detail: string): Step {
  if (!context.games.some((g) => g.id === from)) {
    return { patch: {}, out: [{ type: 'out.log', msg: 'replay failed on a game outside the session’s world: ignored', player: nameOf(context, from), detail }] };
  }
  const out: ChecksumRoundsEmitted[] = [{ type: 'out.log', level: 'warn', msg: 'replay failed', player: nameOf(context, from), detail }];
  return { patch: { policy: policyOutputs(replayFailed(context.policy, nameOf(context, from), detail, context.now), out) }, out };
}

/** A repair (resync round) starts: the policy knows; every open action is forgotten. */
export function repairBegins(context: ChecksumRoundsContext, byPolicy: boolean): Step {
  const out: ChecksumRoundsEmitted[] = [];
  return { patch: { policy: policyOutputs(repairStarted(context.policy, byPolicy), out), verdicts: createVerdictBook() }, out };
}

/** The repair ended (finished or failed): the cooldown starts. */
export function repairEnds(context: ChecksumRoundsContext): Step {
  return { patch: { policy: repairEnded(context.policy, context.now), differingSince: {} }, out: [] };
}
