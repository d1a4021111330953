// One whole simulated session (issue 9 item 1): the real HostSession with its lockstep actor and PlayerSessions over
// the in-memory network, each launcher's real game bridge on an in-memory session folder, and a simulated game
// running the real mod on the other end of each folder — all on ONE simulated clock, everything drawn from the
// plan's seed. It plays the plan's timeline (pauses, speeds, bursts, freezes, joins, leaves, cuts, a mod reload),
// then pauses the session and waits for every game to stand still. The games' records and what the invariants need
// are kept in `SimGameSlot`s; the checks are invariants.ts's.
import { attachLockstep, type HostLockstep } from '../../actors/host/hostLockstep.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { Connection, LogFn } from '../../actors/ports.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import type { GameLink } from '../../adapters/fileLink/gameLink.ts';
import { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameLink } from '../../adapters/fileLink/memoryLink.ts';
import { bridgeHostGame, bridgePlayerGame, forwardToGame } from '../../adapters/launcher/gameBridge.ts';
import { ReconnectLoop } from '../../adapters/launcher/reconnect.ts';
import { createMemoryNetwork, type MemoryNetwork } from '../../adapters/transport/memory.ts';
import { seededRandom } from '../../adapters/transport/memorySocket.ts';
import { KEY } from '../support/session.ts';
import { SimDriver } from './driver.ts';
import { FromGameLogs, type FromGameView } from './fromGameLog.ts';
import type { Plan, PlanGame } from './plan.ts';
import { SimulatedGame, type GameRecord } from './simGame.ts';

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
}

export interface SessionOptions {
  /** One game (the first world game other than the host, else the host) applies one action one step late. */
  readonly fault?: 'fork';
  /** Keep every log line of the sessions (verbose runs). */
  readonly logAll?: boolean;
  /** The mod's folder (default the checkout's mod/). */
  readonly modDir?: string;
}

const HOST_ADDRESS = '10.0.0.1';
const WORLD_SEED = 7;

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
    index, plan: g, present: false, holdsWorld: false, frozenUntil: 0, barrierBreaks: [], stops: [], stepsChecked: 0, drops: 0, resumes: 0,
  }));
  for (const slot of slots.slice(1)) net.route(slot.plan.address, HOST_ADDRESS, slot.plan.link);
  const faultIndex = options.fault === 'fork' ? (slots.length > 1 ? 1 : 0) : -1;

  let hostLink: GameLink | undefined;
  const host = new HostSession(
    { hostName: 'host', key: KEY, pingIntervalMs: 1000, maxPlayers: 16 },
    { crypto, clock, wallClock: () => clock.now(), log, localGame: (m) => hostLink && forwardToGame(hostLink, m, log) },
  );
  const lockstep: HostLockstep = attachLockstep(host, { clock, wallClock: () => clock.now(), log }, {
    onFailure: (err) => problems.push({ invariant: 'progress', detail: `the lockstep failed: ${String(err)}` }),
  });
  const listener = net.listen(`${HOST_ADDRESS}:7000`, { log });
  host.attach(listener);
  const lockstepContext = () => lockstep.actor.getSnapshot().context;
  const lockstepState = () => String(lockstep.actor.getSnapshot().value);

  /** Online barrier check: a world game leaving t must hold every world peer's promise above t. */
  const onRecord = (slot: SimGameSlot) => (r: GameRecord): void => {
    if (r.what !== 'step' || !slot.holdsWorld || !slot.present) return;
    slot.stepsChecked += 1;
    const games = lockstepContext().games;
    for (const peer of slots) {
      if (peer === slot || !peer.present || !peer.holdsWorld || peer.written === undefined || peer.id === undefined) continue;
      if (games[peer.id]?.stalled !== undefined) continue; // the host's promise stands in for a stalled game
      if (games[peer.id] === undefined) continue; // away (its connection dropped): the host took it out of the game
      if (r.t >= peer.written.promised && slot.barrierBreaks.length < 5) {
        slot.barrierBreaks.push({ t: r.t, peer: peer.index, promised: peer.written.promised });
      }
    }
  };

  async function startGame(slot: SimGameSlot, link: GameLink, dir: string): Promise<void> {
    slot.written = written.follow(dir, slot.id!);
    const game = await driver.blocking(() =>
      SimulatedGame.start({
        fs, dir, clock, worldSeed: WORLD_SEED, botSeed: slot.plan.botSeed, botRate: slot.plan.botRate,
        throttle: slot.plan.throttle, fault: slot.index === faultIndex, ...(slot.plan.heldBuilds ? { heldBuilds: slot.plan.heldBuilds } : {}), ...(options.modDir ? { modDir: options.modDir } : {}), log: (text) => note(`${slot.plan.name} ${text}`),
      }),
    );
    game.onRecord = onRecord(slot);
    slot.game = game;
    slot.present = true;
    slot.stops.push(() => void link.close());
    const frame = (): void => {
      if (!slot.present || slot.game !== game) return;
      const now = clock.now();
      if (now < slot.frozenUntil) {
        clock.setTimeout(frame, slot.frozenUntil - now);
        return;
      }
      if (!reloading.has(slot)) {
        try {
          game.frame();
        } catch (e) {
          problems.push({ invariant: 'progress', detail: `${slot.plan.name}'s frame threw: ${String(e)}` });
        }
      }
      clock.setTimeout(frame, slot.plan.frameMs);
    };
    clock.setTimeout(frame, slot.plan.frameMs);
  }
  const reloading = new Set<SimGameSlot>();

  // ---- the host's game ----
  const hostSlot = slots[0]!;
  hostSlot.id = 0;
  hostLink = await driver.blocking(() => openMemoryGameLink(fs, '/s/host', { name: 'host', id: 0, role: 'host' }, { clock }));
  hostSlot.stops.push(bridgeHostGame(host, hostLink, log));
  await startGame(hostSlot, hostLink, '/s/host');

  // ---- a player: connect, join, open its folder, start its game ----
  async function join(slot: SimGameSlot): Promise<boolean> {
    const pending = net.connect(`${HOST_ADDRESS}:7000`, { localAddress: slot.plan.address, log });
    let conn: Connection | undefined;
    let refused = false;
    pending.then((c) => (conn = c), () => (refused = true));
    if (!(await driver.until(() => conn !== undefined || refused, 20_000)) || conn === undefined) return false;
    const player = new PlayerSession({ name: slot.plan.name, key: KEY }, { crypto, clock, wallClock: () => clock.now(), log });
    let ended = false;
    player.on((n) => {
      if (n.type === 'ended') ended = true;
    });
    player.connect(conn);
    if (!(await driver.until(() => player.joined || ended, 20_000)) || !player.joined) return false;
    slot.player = player;
    slot.id = player.you;
    const dir = `/s/${slot.plan.name}`;
    const link = await driver.blocking(() =>
      openMemoryGameLink(fs, dir, { name: slot.plan.name, id: slot.id!, role: 'player' }, { clock }),
    );
    slot.stops.push(bridgePlayerGame(player, link, log));
    slot.stops.push(reconnectsBy(slot, player));
    await startGame(slot, link, dir);
    return true;
  }

  /**
   * The launcher's own reconnect loop (adapters/launcher/reconnect.ts) on the simulated clock: after a drop it dials
   * the host from the player's address; while the plan keeps the host unreachable (`downUntil`) no attempt connects.
   */
  function reconnectsBy(slot: SimGameSlot, player: PlayerSession): () => void {
    const loop = new ReconnectLoop({
      player,
      clock,
      random: seededRandom(plan.seed + slot.index),
      log,
      connect: async () => {
        if (clock.now() < (downUntil.get(slot) ?? 0)) return undefined;
        const pending = net.connect(`${HOST_ADDRESS}:7000`, { localAddress: slot.plan.address, log });
        return pending.catch(() => undefined);
      },
    });
    const off = player.on((n) => {
      if (n.type === 'away') away.add(slot);
      if (n.type === 'resumed') {
        away.delete(slot);
        happened.add(n.caughtUp ? 'resumed' : 'resumedNotCaughtUp');
        slot.resumes += 1;
        // The simulator runs no resync round: a returner the host cannot catch up would never hold the world again.
        if (!n.caughtUp) problems.push({ invariant: 'progress', detail: `${slot.plan.name} resumed without a catch-up` });
      } else if (n.type === 'ended' && slot.present) {
        problems.push({ invariant: 'progress', detail: `${slot.plan.name}'s session ended: ${n.reason}` });
      }
    });
    return () => {
      off();
      loop.stop();
    };
  }
  const downUntil = new Map<SimGameSlot, number>();
  /** Players between a drop and their resume (a drop during a resume is the same episode). */
  const away = new Set<SimGameSlot>();

  /** The plan's drop: the player's live link is cut (bytes on the way are lost, a frame may be cut in two). */
  function drop(slot: SimGameSlot, downMs: number): void {
    if (!slot.present || !slot.player?.joined || away.has(slot)) return;
    const link = net.links().find((l) => l.client.localAddress === slot.plan.address && l.cutReason === undefined);
    if (!link) return;
    downUntil.set(slot, clock.now() + downMs);
    slot.drops += 1;
    happened.add('drop');
    net.cut(link.client);
  }

  function leave(slot: SimGameSlot, how: 'leave' | 'cut'): void {
    if (!slot.present) return;
    slot.endT = slot.game?.time();
    const worldTimes = slots.filter((s) => s.present && s.holdsWorld && s.game).map((s) => s.game!.time());
    slot.window = Math.min(slot.endT ?? 0, ...worldTimes);
    slot.present = false;
    happened.add(how);
    if (how === 'leave') slot.player?.leave();
    else {
      const link = net.links().find((l) => l.client.localAddress === slot.plan.address);
      if (link) net.cut(link.client);
    }
    for (const stop of slot.stops) stop();
    slot.game?.close();
  }

  let startAt = 0;
  const run = async (): Promise<void> => {
    // the players join at once, as players answering an invite do
    let joining = 0;
    for (const slot of slots.slice(1)) {
      if (slot.plan.joinAt !== 'start') continue;
      joining += 1;
      void join(slot).then((ok) => {
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
    startAt = clock.now();
    const games = lockstepContext().games;
    for (const slot of slots) slot.holdsWorld = slot.present && slot.id !== undefined && games[slot.id]?.hasWorld === true && games[slot.id]?.ready === true;
    scheduleTimeline();
    await driver.runFor(plan.runMs);
    await finish();
  };

  // the timeline ends where the final pause begins: nothing of it runs after
  const at = (ms: number, fn: () => void): void =>
    void clock.setTimeout(() => {
      if (!finishing) fn();
    }, Math.max(0, startAt + ms - clock.now()));

  function scheduleTimeline(): void {
    for (const e of plan.events) {
      at(e.at, () => {
        if (e.by === 'host') {
          if (e.speed === 0) lockstep.pause();
          else lockstep.speed(e.speed);
          happened.add(e.speed === 0 ? 'hostPause' : 'speedChange');
          return;
        }
        const slot = slots[e.by]!;
        if (!slot.present || clock.now() < slot.frozenUntil || reloading.has(slot)) return;
        slot.game?.requestSpeed(e.speed);
        happened.add('playerSpeedRequest');
      });
    }
    for (const slot of slots) {
      const p = slot.plan;
      if (typeof p.joinAt === 'number') {
        at(p.joinAt, () => {
          happened.add('lateJoin');
          void join(slot);
        });
      }
      if (p.leaveAt !== undefined) at(p.leaveAt, () => leave(slot, 'leave'));
      if (p.cutAt !== undefined) at(p.cutAt, () => leave(slot, 'cut'));
      for (const d of p.drops ?? []) at(d.at, () => drop(slot, d.downMs));
      for (const b of p.bursts) {
        at(b.at, () => {
          if (!slot.present || clock.now() < slot.frozenUntil || reloading.has(slot)) return;
          slot.game?.burst(b.count);
          happened.add('burst');
        });
      }
      if (p.freeze) {
        const f = p.freeze;
        at(f.at, () => {
          if (!slot.present) return;
          slot.frozenUntil = clock.now() + f.forMs;
          happened.add('freeze');
        });
      }
      if (p.reloadAt !== undefined) {
        at(p.reloadAt, () => {
          if (!slot.present || !slot.game) return;
          const game = slot.game;
          reloading.add(slot);
          happened.add('reload');
          void driver.blocking(() => game.reloadMod()).finally(() => reloading.delete(slot));
        });
      }
    }
  }

  /** Worlds compared whenever every present world game stands still at the same t in a pause. */
  const comparePause = (): void => {
    if (lockstepState() !== 'Paused') return;
    const world = slots.filter((s) => s.present && s.holdsWorld && s.game);
    if (world.length < 2 || world.some((s) => clock.now() < s.frozenUntil || reloading.has(s))) return;
    const t = world[0]!.game!.time();
    // the same t, standing still, with the same number of items applied (a flush read by some games only is not
    // a common pause yet: the apply-log checks see a missing item)
    const applied = world[0]!.game!.appliedItems;
    if (world.some((s) => s.game!.time() !== t || s.game!.appliedItems !== applied || s.game!.status()?.stop !== true)) return;
    if (pauses.some((p) => p.t === t && p.applied === applied)) return;
    pauses.push({ t, applied, hashes: world.map((s) => ({ index: s.index, hash: s.game!.hash() })) });
  };
  const watchPauses = (): void => {
    if (Object.values(lockstepContext().games).some((g) => g.stalled !== undefined)) happened.add('stalled');
    if (lockstepState() === 'Paused' && startAt > 0 && !finishing) happened.add('paused');
    comparePause();
    clock.setTimeout(watchPauses, 250);
  };
  clock.setTimeout(watchPauses, 250);

  let finishing = false;
  async function finish(): Promise<void> {
    finishing = true;
    // the players stop clicking and every game runs: the last pause must settle
    for (const slot of slots) {
      slot.frozenUntil = 0;
      slot.game?.game.stopBots();
    }
    lockstep.pause();
    const still = () => {
      // a request sent before a drop and resent after the resume may unpause: the host pauses again
      if (lockstepState() === 'Running') {
        happened.add('pausedAgain');
        lockstep.pause();
      }
      // every dropped player is back first (its launcher keeps trying until the host answers)
      if ([...away].some((s) => s.present)) return false;
      const world = slots.filter((s) => s.present && s.holdsWorld && s.game && !reloading.has(s));
      if (world.length === 0) return true;
      const t = world[0]!.game!.time();
      const applied = world[0]!.game!.appliedItems;
      if (!world.every((s) => s.game!.time() === t && s.game!.appliedItems === applied)) return false;
      return world.every((s) => s.game!.status()?.stop === true);
    };
    // a slow game far behind may need long to catch up: the run fails only when nothing moves for 30 s (or after
    // 10 minutes of clock time)
    let lastMove = clock.now();
    let lastShape = '';
    const stuck = (): boolean => {
      const shape = slots.map((s) => (s.present && s.game ? `${s.game.time()}/${s.game.appliedItems}` : '-')).join(' ');
      if (shape !== lastShape) {
        lastShape = shape;
        lastMove = clock.now();
      }
      return clock.now() - lastMove > 30_000;
    };
    if (!(await driver.runUntil(() => still() || stuck(), 600_000)) || !still()) {
      const ts = slots.filter((s) => s.present && s.holdsWorld).map((s) => {
        const st = s.game?.status();
        return `${s.plan.name}@${s.game?.time()}/${s.game?.appliedItems} (pauseAt ${String(st?.pauseAt)} barrier ${String(st?.barrier)} limit ${String(st?.limit)} speed ${String(st?.speed)} engine ${s.game?.game.speed()} stop ${String(st?.stop)} held ${String(st?.held)} queued ${String(st?.queued)})`;
      });
      problems.push({ invariant: 'progress', detail: `the games did not all stand still at one pause with the same items applied (name@t/items): ${ts.join(', ')}; host: ${lockstepState()} ${JSON.stringify(host.sessionPayload())}` });
    }
    await driver.runFor(500);
    comparePause();
  }

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
  if (Object.values(ctx.games).some((g) => g.stalled !== undefined)) happened.add('stalled');
  for (const slot of slots) {
    if (slot.present) {
      slot.present = false;
      for (const stop of slot.stops) stop();
      slot.game?.close();
    }
  }
  lockstep.stop();
  host.stop('simulation over');
  written.close();
  return { plan, slots, problems, happened, pauses, simMs: clock.now(), steps: driver.steps, tail };
}
