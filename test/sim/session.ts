// One whole simulated session (issue 9 item 1): the real HostSession with its lockstep actor and PlayerSessions over
// the in-memory network, each launcher's real game bridge on an in-memory session folder, and a simulated game
// running the real mod on the other end of each folder — all on ONE simulated clock, everything drawn from the
// plan's seed. It plays the plan's timeline (pauses, speeds, bursts, freezes, joins, leaves, cuts, a mod reload),
// then pauses the session and waits for every game to stand still. The games' records and what the invariants need
// are kept in `SimGameSlot`s; the checks are invariants.ts's. Here: the host, its game, the start and the wrap-up; the
// pieces share one `SimSession` (sessionContext.ts): playerLauncher.ts (a player's launcher), gameStart.ts (a game
// framed), onlineBarrier.ts (its records), timeline.ts and divergence.ts (the plan's events), pauses.ts and finish.ts.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { attachChecksums, type ChecksumStatus } from '../../actors/host/checksums.ts';
import { attachLockstep, type HostLockstep } from '../../actors/host/hostLockstep.ts';
import { attachResync, type ResyncStatus } from '../../actors/host/resync.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import type { PlayerSession } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import type { GameLink } from '../../adapters/fileLink/gameLink.ts';
import { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameLink } from '../../adapters/fileLink/memoryLink.ts';
import { bridgeHostGame } from '../../adapters/launcher/gameBridge.ts';
import { gameForwarder } from '../../adapters/launcher/resyncCursor.ts';
import { hostResyncFiles } from '../../adapters/saves/hostResyncFiles.ts';
import { createMemoryNetwork, type MemoryNetwork } from '../../adapters/transport/memory.ts';
import { seededRandom } from '../../adapters/transport/memorySocket.ts';
import { KEY } from '../support/session.ts';
import { SimDriver } from './driver.ts';
import { finish } from './finish.ts';
import { FromGameLogs, type FromGameView } from './fromGameLog.ts';
import { newReloadRecord, reloadCoverage, watchReloads, type ReloadRecord } from './hostReload.ts';
import { startGame } from './gameStart.ts';
import { watchPauses } from './pauses.ts';
import type { Plan, PlanGame } from './plan.ts';
import { join } from './playerLauncher.ts';
import { HOST_ADDRESS, type InjectedDivergence, type SimSession } from './sessionContext.ts';
import type { SimulatedGame } from './simGame.ts';
import { scheduleTimeline } from './timeline.ts';

/** One game of the session: its plan, its launcher's session, its game and what the checks need. */
export interface SimGameSlot {
  readonly index: number;
  readonly plan: PlanGame;
  id?: number;
  game?: SimulatedGame;
  player?: PlayerSession;
  written?: FromGameView;
  /** In the session now (joined, not left, not cut). */
  present: boolean;
  /** Its world is the session's (ready at the start; the host's view). */
  holdsWorld: boolean;
  frozenUntil: number;
  /** The game time it stood at when it left the session (or at the end). */
  endT?: number;
  /** Stamps below this were passed by every world game while this one was in the session (its share of the checks). */
  window?: number;
  /** Steps checked against the peers' promises. */
  stepsChecked: number;
  /** Steps taken past a peer's promise: `t`, the peer and its promise (the first few). */
  readonly barrierBreaks: { t: number; peer: number; promised: number }[];
  stops: (() => void)[];
  /** Its connection dropped (the plan's drops) and came back resumed. */
  drops: number;
  resumes: number;
  /**
   * The game time from which its world is not the session's until it loads a save: the plan's divergence was
   * injected there, or it came back from a drop without a catch-up (the checks compare its log up to there).
   */
  staleT?: number;
  /**
   * Its records (by `order`) made while its world was not the session's before a load: as an outsider (a late
   * joiner), or back from a drop without a catch-up (the old world it runs on meanwhile applies what it still gets
   * late or never); `staleFrom` is the open span's start.
   */
  readonly staleSpans: { from: number; to: number }[];
  staleFrom?: number;
  /** Still in the session at its end. */
  stayed?: boolean;
}

export interface SessionRun {
  readonly plan: Plan;
  readonly slots: readonly SimGameSlot[];
  /** Problems of the run itself (did not start, did not come to one pause at the end, a crash). */
  readonly problems: { invariant: string; detail: string }[];
  /** What happened, for the coverage counters. */
  readonly happened: Set<string>;
  /** World hashes compared at common pauses: one entry per pause, every world game's hash. */
  readonly pauses: { t: number; applied: number; hashes: { index: number; hash: string }[] }[];
  readonly simMs: number;
  readonly steps: number;
  /** The last log lines (for a failure's report). */
  readonly tail: string[];
  /** The host's checksum rounds and resync rounds as they ended (the repair checks). */
  readonly checksums: ChecksumStatus;
  readonly resyncs: ResyncStatus;
  /** The plan's divergence: when and where it was injected, and whether a common pause found the worlds equal since. */
  readonly divergence?: InjectedDivergence;
  /** What the resync rounds did with the host's game and the worlds (the host's reload modes). */
  readonly reloads: ReloadRecord;
  /**
   * The parked builds (`owner:seq`) the host still held open at the end: no BuildCommit yet and less than 10 s since
   * their record (rules/heldBuilds.ts), so their fate (a commit, or the host's veto) was still to come.
   */
  readonly parkedOpen: ReadonlySet<string>;
}

export interface SessionOptions {
  /** One game (the first world game other than the host, else the host) applies one action one step late. */
  readonly fault?: 'fork';
  /** Keep every log line of the sessions (verbose runs). */
  readonly logAll?: boolean;
  /** The mod's folder (default the checkout's mod/). */
  readonly modDir?: string;
  /** The checksum policy's cooldown (default the spec's 120 s). */
  readonly repairCooldownSeconds?: number;
  /** Filler bytes in every resync save the games write (default none: a save of a few KiB; SimGame.savePaddingBytes). */
  readonly savePaddingBytes?: number;
  /** Told of the session's pieces once they exist, before the players join (a test watches them). */
  readonly onSession?: (s: SimSession) => void;
}

/** Runs the plan's session to its end. */
export async function runSession(plan: Plan, options: SessionOptions = {}): Promise<SessionRun> {
  const clock = createSimulatedClock();
  const driver = new SimDriver(clock);
  const random = seededRandom(plan.seed + 0x5eed);
  const crypto: Crypto = { ...nodeCrypto, randomBytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256)) };
  const tail: string[] = [];
  const note = (text: string): void => {
    tail.push(`${clock.now()} ${text}`);
    if (!options.logAll && tail.length > 200) tail.shift();
  };
  const log: LogFn = (e) => {
    if (e.level === 'error' || e.level === 'warn' || options.logAll) note(JSON.stringify(e));
  };
  const problems: SessionRun['problems'] = [];
  const happened = new Set<string>();
  const pauses: SessionRun['pauses'] = [];
  const net: MemoryNetwork = createMemoryNetwork({ clock, seed: plan.seed, log });
  const fs = new MemoryFs();
  const written = new FromGameLogs(fs);
  const slots: SimGameSlot[] = plan.games.map((g, index) => ({
    index, plan: g, present: false, holdsWorld: false, frozenUntil: 0, barrierBreaks: [], staleSpans: [], stops: [], stepsChecked: 0, drops: 0, resumes: 0,
  }));
  for (const slot of slots.slice(1)) net.route(slot.plan.address, HOST_ADDRESS, slot.plan.link);
  const faultIndex = options.fault === 'fork' ? (slots.length > 1 ? 1 : 0) : -1;
  // Each game's savegame folder (a resync round's saves: real files, the save streamed and received as the launchers
  // do; the driver holds the clock while a file request is pending, so a seed replays the same)
  const savesRoot = mkdtempSync(joinPath(tmpdir(), `fl3-sim-${plan.seed}-`));
  const savedItems = new Map<string, number>();
  const savesOf = (slot: SimGameSlot): string => {
    const dir = joinPath(savesRoot, slot.plan.name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  let hostLink: GameLink | undefined;
  const host = new HostSession(
    { hostName: 'host', key: KEY, pingIntervalMs: 1000, maxPlayers: 16 },
    { crypto, clock, wallClock: () => clock.now(), log, localGame: (m) => hostLink && gameForwarder(hostLink, log)(m) },
  );
  const lockstep: HostLockstep = attachLockstep(host, { clock, wallClock: () => clock.now(), log }, {
    onFailure: (err) => problems.push({ invariant: 'progress', detail: `the lockstep failed: ${String(err)}` }),
  });
  const failed = (what: string) => (err: unknown) => problems.push({ invariant: 'progress', detail: `${what} failed: ${String(err)}` });
  const checksums = attachChecksums(host, lockstep, { clock, log }, {
    onFailure: failed('the checksum rounds'),
    ...(options.repairCooldownSeconds === undefined ? {} : { repairCooldownSeconds: options.repairCooldownSeconds }),
  });
  const resync = attachResync(
    host,
    lockstep,
    checksums,
    { clock, log, files: hostResyncFiles({ savesDir: savesOf(slots[0]!), sealChunk: (p) => host.sealChunk(p), clock, log }) },
    { onFailure: failed('the resync round'), ...plan.reloadModes },
  );
  const listener = net.listen(`${HOST_ADDRESS}:7000`, { log });
  host.attach(listener);
  const lockstepContext = () => lockstep.actor.getSnapshot().context;
  const lockstepState = () => String(lockstep.actor.getSnapshot().value);
  const s: SimSession = {
    plan, options, clock, driver, crypto, log, note, problems, happened, pauses, net, fs, written, slots, faultIndex,
    savesOf, savedItems, host, lockstep, checksums, resync, reloads: newReloadRecord(plan.reloadModes), lockstepContext, lockstepState,
    reloading: new Set(), downUntil: new Map(), away: new Set(), divergence: undefined, startAt: 0, finishing: false,
  };

  // ---- the host's game ----
  const hostSlot = slots[0]!;
  hostSlot.id = 0;
  hostLink = await driver.blocking(() => openMemoryGameLink(fs, '/s/host', { name: 'host', id: 0, role: 'host' }, { clock }));
  hostSlot.stops.push(bridgeHostGame(host, hostLink, log));
  await startGame(s, hostSlot, hostLink, '/s/host');

  const run = async (): Promise<void> => {
    // the players join at once, as players answering an invite do
    let joining = 0;
    for (const slot of slots.slice(1)) {
      if (slot.plan.joinAt !== 'start') continue;
      joining += 1;
      void join(s, slot).then((ok) => {
        joining -= 1;
        if (!ok) problems.push({ invariant: 'progress', detail: `${slot.plan.name} could not join before the start` });
      });
    }
    await driver.runUntil(() => joining === 0, 60_000);
    // the host starts once every joined player's game said Hello (or, in some plans, at once)
    if (!plan.startEarly) await driver.runUntil(() => host.players().every((p) => p.ready || p.away), 20_000);
    else happened.add('startEarly');
    if (plan.pauseStorm) happened.add('pauseStorm');
    lockstep.start();
    if (!(await driver.runUntil(() => lockstepState() !== 'NotStarted', 30_000))) {
      problems.push({ invariant: 'progress', detail: `the session did not start: ${lockstep.waiting() ?? '?'}` });
      return;
    }
    s.startAt = clock.now();
    const games = lockstepContext().games;
    for (const slot of slots) slot.holdsWorld = slot.present && slot.id !== undefined && games[slot.id]?.hasWorld === true && games[slot.id]?.ready === true;
    scheduleTimeline(s);
    await driver.runFor(plan.runMs);
    await finish(s);
  };
  watchPauses(s);
  watchReloads(s);
  options.onSession?.(s);

  try {
    await run();
  } catch (e) {
    problems.push({ invariant: 'progress', detail: `the run threw: ${(e as Error).stack ?? String(e)}` });
  }
  if (slots.some((s) => (s.game?.heldBuildsMade ?? 0) > 0)) happened.add('heldBuilds');
  for (const slot of slots) {
    if (slot.present) slot.endT = slot.window = slot.game?.time();
    // every drop of a player still in the session was resumed (and caught up) by the end
    if (slot.present && slot.resumes < slot.drops) {
      problems.push({ invariant: 'progress', detail: `${slot.plan.name} dropped ${slot.drops} times and resumed ${slot.resumes}` });
    }
  }
  const ctx = lockstepContext();
  const parkedOpen = new Set(Object.entries(ctx.builds ?? {}).filter(([, b]) => b.parked).map(([key]) => key));
  if (Object.values(ctx.games).some((g) => g.stalled !== undefined)) happened.add('stalled');
  for (const slot of slots) {
    if (slot.present) {
      slot.stayed = true;
      slot.present = false;
      for (const stop of slot.stops) stop();
      slot.game?.close();
    }
  }
  const checksumStatus = checksums.status();
  const resyncStatus = resync.status();
  resync.stop();
  checksums.stop();
  lockstep.stop();
  host.stop('simulation over');
  written.close();
  await driver.runFor(0); // the receivers' closes (their temp files) settle before the folder goes
  rmSync(savesRoot, { recursive: true, force: true });
  if (resyncStatus.rounds.verified > 0) happened.add('resyncVerified');
  reloadCoverage(s.reloads, happened);
  if (resyncStatus.rounds.failed > 0) happened.add('resyncFailed');
  if (checksumStatus.rounds.identical > 0) happened.add('checksumIdentical');
  // what the policy asked a repair for: differing verdicts (at once), parts two rounds in a row, drift parts
  for (const r of checksumStatus.repairRequests) happened.add(`repair:${/^verdicts/.test(r.reason) ? 'verdicts' : /^drift/.test(r.reason) ? 'drift' : /^parts/.test(r.reason) ? 'parts' : 'other'}`);
  return {
    plan, slots, problems, happened, pauses, simMs: clock.now(), steps: driver.steps, tail,
    checksums: checksumStatus, resyncs: resyncStatus, ...(s.divergence ? { divergence: s.divergence } : {}), reloads: s.reloads,
    parkedOpen,
  };
}
