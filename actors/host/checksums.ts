// The host's checksum actor: runs the checksum-rounds chart (machines/checksumRounds.ts, systemId `checksumRounds`)
// beside the HostSession and the lockstep, as the lockstep actor does (actors/host/hostLockstep.ts). It hands the
// chart the games' ChecksumReport, ReplayFailed and ActionRefused and the games that leave; at every host tick the
// session as the lockstep holds it (started, running or paused at pauseAt, speed), the future stamp and the ready
// games in the session's world; and it sends what the chart emits: ChecksumRequest to every game, Authority to every
// game but the one whose values they are, the log lines, and each repair request (spec "Resync policy": with
// autoResync on the resync round starts through `onRepairRequested`, actors/host/resync.ts; with autoResync off only
// the request is logged and shown). `verify` asks the resync round's paused verification round and reports its end.
import { createActor, type Actor } from 'xstate';
import { checksumRoundsMachine, type ChecksumRoundsInput, type SessionGame } from '../../machines/checksumRounds.ts';
import { sessionOf } from '../../machines/lockstep.ts';
import type { PartDifference } from '../../machines/rules/checksumCompare.ts';
import { futureStamp, maxClock } from '../../machines/rules/stamps.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded, stackOf, startTicker } from '../supervise.ts';
import type { PauseOrderContext } from '../../machines/pauseOrder.ts';
import type { HostLockstep } from './hostLockstep.ts';
import type { HostSession } from './hostSession.ts';
import type { InspectionObserver } from './hostTypes.ts';

export interface HostChecksumsOptions extends ChecksumRoundsInput {
  /** How often the chart is ticked (ms). */
  tickMs?: number;
  /** Start the repair at once on a request (default true). Off: the request is only logged and shown. */
  autoResync?: boolean;
  /** The chart failed (a fault of ours). */
  onFailure?: (err: unknown) => void;
}

/** What the window and `feverlink3 demo --json` show of the checksum rounds. */
export interface ChecksumStatus {
  /** Rounds ended, by result. */
  rounds: Record<'identical' | 'different' | 'time_skew' | 'dropped', number>;
  /** The last round that ended. */
  lastRound?: { n: number; paused: boolean; result: 'identical' | 'different' | 'time_skew' | 'dropped' };
  /** Every round that differed: its number and the differing parts with the games on each side. */
  differences: { n: number; paused: boolean; parts: PartDifference[] }[];
  /** Every repair request with its reason and the host's clock. */
  repairRequests: { reason: string; at: number; autoResync: boolean }[];
  /**
   * Every round that ended (the latest MAX_ROUNDS_KEPT), in the order they ended: its number, the stamp it was asked
   * at (`at`: a running round reads the world in beforeStep(at), a paused one standing at pauseAt), paused or not, the
   * host's clock when it was asked and when it ended, its result, and the reports the round took (each game, the game
   * time it read at, the host's clock when it came). Optional: added for the simulator's `detected` check.
   */
  ended?: EndedRound[];
}

/** One round that ended, as ChecksumStatus.ended keeps it. */
export interface EndedRound {
  n: number;
  at: number;
  paused: boolean;
  askedAt: number;
  endedAt: number;
  result: 'identical' | 'different' | 'time_skew' | 'dropped';
  /** The reports taken into the round: the game, the time it read at (ChecksumReport.time), the host's clock. */
  reports: { game: number; time: number; at: number }[];
}

export interface HostChecksums {
  readonly actor: Actor<typeof checksumRoundsMachine>;
  status(): ChecksumStatus;
  /** The rounds ended so far, by result (a copy): what status() says in `rounds`, without copying the rest. */
  roundCounts(): ChecksumStatus['rounds'];
  /** A resync round started (the resync issue calls these; byPolicy: it answers a request). */
  repairStarted(byPolicy: boolean): void;
  repairEnded(): void;
  /** With autoResync on, each repair request goes to `start` (the resync round) instead of only being logged. */
  onRepairRequested(start: (reason: string) => void): void;
  /**
   * The resync round's verification: a paused round at pauseAt over the ready games in the session's world; `done`
   * gets its result once it ended (identical, different with its differing parts, or dropped).
   */
  verify(pauseAt: number, done: (result: { result: 'identical' | 'different' | 'time_skew' | 'dropped'; parts: string[] }) => void): void;
  stop(): void;
}

/** Differences kept for status(): the latest ones. */
const MAX_DIFFERENCES_KEPT = 64;
/** Ended rounds kept for status(): the latest ones. */
const MAX_ROUNDS_KEPT = 512;

export function attachChecksums(
  host: HostSession,
  lockstep: HostLockstep,
  ports: { clock: Clock; log: LogFn; inspect?: InspectionObserver },
  options: HostChecksumsOptions = {},
): HostChecksums {
  const { clock, log } = ports;
  const autoResync = options.autoResync ?? true;
  const inspect = ports.inspect && guarded(log, 'inspect', ports.inspect);
  const input: ChecksumRoundsInput = {
    ...(options.checksumSeconds === undefined ? {} : { checksumSeconds: options.checksumSeconds }),
    ...(options.repairCooldownSeconds === undefined ? {} : { repairCooldownSeconds: options.repairCooldownSeconds }),
    ...(options.roundTimeoutSeconds === undefined ? {} : { roundTimeoutSeconds: options.roundTimeoutSeconds }),
    ...(options.fullChecksumEvery === undefined ? {} : { fullChecksumEvery: options.fullChecksumEvery }),
  };
  const actor = createActor(checksumRoundsMachine, { clock, systemId: 'checksumRounds', input, ...(inspect ? { inspect } : {}) });
  const status: ChecksumStatus = { rounds: { identical: 0, different: 0, time_skew: 0, dropped: 0 }, differences: [], repairRequests: [], ended: [] };
  /** The rounds asked and not ended yet (status.ended's records in the making). */
  const open = new Map<number, EndedRound>();

  const on = <T extends Parameters<typeof actor.on>[0]>(type: T, fn: Parameters<typeof actor.on<T>>[1]) =>
    actor.on(type, guarded(log, `checksums ${type}`, fn as (e: unknown) => void));
  // A paused round names the pause-order position it reads at: the pause actions flushed before this request
  // (pause actions change the standing world; docs/DECISIONS.md "A paused round reads the world at a pause-order
  // position"). Added here, where the request joins the host's one order of messages.
  on('send.ChecksumRequest', (e) => {
    const { n, at, paused } = e.payload;
    open.set(n, { n, at, paused: paused === true, askedAt: clock.now(), endedAt: -1, result: 'dropped', reports: [] });
    host.broadcast('ChecksumRequest', e.payload.paused ? { ...e.payload, upto: flushedUpto(lockstep) } : e.payload);
  });
  on('send.Authority', (e) => host.broadcast('Authority', e.payload, e.source));
  on('out.log', ({ type: _type, ...entry }) => log(entry));
  let repairStart: ((reason: string) => void) | undefined;
  let verifying: { n: number; done: Parameters<HostChecksums['verify']>[1] } | undefined;
  on('out.roundEnded', (e) => {
    if (verifying?.n === e.n) {
      const { done } = verifying;
      verifying = undefined;
      done({ result: e.result, parts: e.differences.map((d) => d.part) });
    }
    status.rounds[e.result]++;
    status.lastRound = { n: e.n, paused: e.paused, result: e.result };
    const record = open.get(e.n);
    open.delete(e.n);
    if (record) status.ended!.push({ ...record, endedAt: clock.now(), result: e.result });
    if (status.ended!.length > MAX_ROUNDS_KEPT) status.ended!.shift();
    if (e.result === 'different') status.differences = [...status.differences, { n: e.n, paused: e.paused, parts: e.differences }].slice(-MAX_DIFFERENCES_KEPT);
  });
  on('out.repairRequested', (e) => {
    status.repairRequests.push({ reason: e.reason, at: clock.now(), autoResync });
    log({ msg: autoResync ? 'resync requested' : 'resync requested (autoResync off)', reason: e.reason });
    if (autoResync) repairStart?.(e.reason);
  });
  actor.subscribe({
    error: (err) => {
      log({ msg: 'checksum rounds failed', stack: stackOf(err) });
      options.onFailure?.(err);
    },
  });

  // A report the chart takes (its open round of that n waits for this game; machines/rules/checksumRoundSteps.ts
  // takeReport), noted before the chart gets it: the last one ends the round at once.
  const noteReport = (from: number, n: number, time: number, now: number) => {
    const context = actor.getSnapshot().context;
    const round = context.regular?.n === n ? context.regular : context.paused?.n === n ? context.paused : undefined;
    if (round?.waiting.includes(from)) open.get(n)?.reports.push({ game: from, time, at: now });
  };
  const off = host.on((n) => {
    const now = clock.now();
    if (n.type === 'left') actor.send({ type: 'game.left', now, id: n.id });
    if (n.type !== 'game') return;
    const { message, from } = n;
    if (message.kind === 'ChecksumReport') {
      noteReport(from, message.payload.n, message.payload.time, now);
      actor.send({ type: 'recv.ChecksumReport', now, from, payload: message.payload });
    }
    else if (message.kind === 'ReplayFailed') actor.send({ type: 'recv.ReplayFailed', now, from, payload: message.payload });
    else if (message.kind === 'ActionRefused') actor.send({ type: 'recv.ActionRefused', now, from, payload: message.payload });
  });

  // The session as the lockstep holds it, read at each tick: the chart hears of a change once.
  let last: { running: boolean; speed: number; pauseAt: number | undefined } | undefined;
  const tick = () => {
    const now = clock.now();
    const context = lockstep.actor.getSnapshot().context;
    const session = sessionOf(context);
    const games = Object.values(context.games).filter((g) => g.ready && g.hasWorld);
    const names = new Map(host.players().map((p) => [p.id, p.name]));
    const ready: SessionGame[] = games.map((g) => ({ id: g.id, name: names.get(g.id) ?? `#${g.id}` })).sort((a, b) => a.id - b.id);
    const max = maxClock(Object.values(context.games), now);
    actor.send({ type: 'tick', now, at: max === undefined ? undefined : futureStamp(max, session.lead), games: ready });
    if (!session.started) return;
    const running = session.pauseAt === undefined && session.speed > 0;
    if (running && (last?.running !== true || last.speed !== session.speed)) actor.send({ type: 'session.running', now, speed: session.speed });
    if (!running && session.pauseAt !== undefined && last?.pauseAt !== session.pauseAt) {
      actor.send({ type: 'session.paused', now, pauseAt: session.pauseAt });
    }
    last = { running, speed: session.speed, pauseAt: session.pauseAt };
  };
  const guardedTick = guarded(log, 'checksums tick', tick);
  actor.start();
  const stopTicks = startTicker(clock, log, 'checksums tick', options.tickMs ?? 100, tick);

  return {
    actor,
    status: () => structuredClone(status),
    roundCounts: () => ({ ...status.rounds }),
    // The session's state first: a round the host's button starts right after the start finds the chart started.
    repairStarted: (byPolicy) => {
      guardedTick();
      actor.send({ type: 'repair.started', now: clock.now(), byPolicy });
    },
    repairEnded: () => actor.send({ type: 'repair.ended', now: clock.now() }),
    onRepairRequested: (start) => {
      repairStart = start;
    },
    verify: (pauseAt, done) => {
      verifying = { n: actor.getSnapshot().context.nextN, done };
      actor.send({ type: 'verify.requested', now: clock.now(), pauseAt });
    },
    stop: () => {
      stopTicks();
      off();
      actor.stop();
    },
  };
}

/** The pauseSeq of the last pause action the lockstep's pause order has flushed (0: none yet). */
function flushedUpto(lockstep: HostLockstep): number {
  const order = lockstep.actor.system.get('pauseOrder')?.getSnapshot().context as PauseOrderContext | undefined;
  if (!order) return 0;
  return (order.held[0]?.pauseSeq ?? order.nextSeq) - 1;
}
