// What one seed makes of a session (issue 9 item 2): how many players, their links, their games' frame rates and
// speed shares, their bots and bursts, freezes, joins, leaves, cuts, a mod reload, and the host's and players'
// pauses and speed changes. Pure: the same seed and options give the same plan. Times are ms after the start.
import type { LinkConditions } from '../../adapters/transport/memorySocket.ts';
import { SimRandom } from './random.ts';

export type SimSpeed = 0 | 1 | 2 | 4;

/** What an injected divergence changes (Plan.divergence). */
export type DivergenceKind = 'edges' | 'money' | 'verdicts' | 'partial';

export interface PlanGame {
  readonly name: string;
  readonly address: string;
  /** 'start': joins before the session starts (holds the world); a number: joins then (an outsider). */
  readonly joinAt: 'start' | number;
  /** Leaves (Leave) at this time. */
  readonly leaveAt?: number;
  /** Its link is cut at this time (the player ends with reset; its game stops). */
  readonly cutAt?: number;
  readonly link: Partial<LinkConditions>;
  /** The share of wall time the game gets (1: full speed). */
  readonly throttle: number;
  /** Wall ms between the game's frames. */
  readonly frameMs: number;
  /** Bot commands per minute. */
  readonly botRate: number;
  readonly botSeed: number;
  /** Bursts of commands issued at once. */
  readonly bursts: readonly { at: number; count: number }[];
  /** The game gets no frames for a while (a stalled process). */
  readonly freeze?: { at: number; forMs: number };
  /** The mod is loaded again (a new Lua state) at this time. */
  readonly reloadAt?: number;
  /**
   * Its connection drops at `at` (the link is cut, mid-frame when bytes are on the way) and the host cannot be
   * reached for `downMs`; its launcher's reconnect loop resumes it (issue 12).
   */
  readonly drops?: readonly { at: number; downMs: number }[];
  readonly heldBuilds?: number;
}

export interface PlanEvent {
  readonly at: number;
  /** The host's button, or a player's game asking (SpeedRequest) by its index in `games`. */
  readonly by: 'host' | number;
  readonly speed: SimSpeed;
}

export interface Plan {
  readonly seed: number;
  /** The host starts without waiting for every player's game to say Hello (some become outsiders). */
  readonly startEarly: boolean;
  /** The events hold a pause storm (pauses and resumes in quick succession). */
  readonly pauseStorm: boolean;
  /** How long the session runs after its start before the final pause. */
  readonly runMs: number;
  readonly games: readonly PlanGame[];
  readonly events: readonly PlanEvent[];
  /**
   * One divergence injected into one game's world (by its index in `games`) at `at`: `edges` (the first road changes
   * hands; the policy repairs it by a resync round), `money` (a little more money: corrected by the host's Authority,
   * never a reload) or `verdicts` (no money at all: that game refuses the builds the others apply, and the differing
   * verdicts ask for a repair at once), or `partial` (the host's game, index 0: the next command it applies from `at` on
   * changes part of its world and throws inside engine.apply, so its mod reports it refused and partial; the repair must
   * copy a player's save, not the host's).
   */
  readonly divergence?: { readonly game: number; readonly at: number; readonly kind: DivergenceKind };
  /**
   * The host's reload mode for every resync round of the session (spec "Host that does not reload"), when not the
   * default (the host's game reloads, its load sent at the announcement): `hostReloads: false`
   * (FEVERLINK3_HOST_RELOAD=0, its game keeps its live world) or `hostLoadsEarly: false` (FEVERLINK3_HOST_LOAD_EARLY=0,
   * its load goes out with the players' after the transfer).
   */
  readonly reloadModes?: ReloadModes;
}

/** HostResyncOptions' reload modes as a plan draws them (one of them off). */
export interface ReloadModes {
  readonly hostReloads: boolean;
  readonly hostLoadsEarly: boolean;
}

/** Which workloads a plan may draw (the ones that fork while a fix is missing can be left out). */
export interface Workloads {
  readonly lateJoin: boolean;
  /** The host starts without waiting for every game's Hello (the late ones become outsiders). */
  readonly startEarly: boolean;
  /** A player that joins the started session (an outsider) clicks too: its actions must be refused everywhere. */
  readonly outsidersAct: boolean;
  /** Pauses and resumes in quick succession (a pause order flushed from an earlier pause's stops, then a new pause). */
  readonly pauseStorm: boolean;
  readonly leave: boolean;
  readonly freeze: boolean;
  readonly reload: boolean;
  readonly playerPause: boolean;
  /** Players' connections drop and resume (the launcher's reconnect loop; the host catches them up). */
  readonly drops: boolean;
  readonly heldBuilds: boolean;
  /** One game's world made to differ (the checksum rounds must find it; a resync round or Authority repairs it). */
  readonly divergence: boolean;
  /** Half the money divergences take all the money (the verdicts differ): off, the seeds found before it stay as they were. */
  readonly verdictDivergence: boolean;
  /** Some seeds without another divergence get a partial apply on the host's game (its save must not be the repair's). */
  readonly partialDivergence: boolean;
  /** Some sessions run with a host that does not reload, some with the host's load after the transfer. */
  readonly hostReloadModes: boolean;
}

export const ALL_WORKLOADS: Workloads = {
  lateJoin: true, startEarly: true, outsidersAct: true, pauseStorm: true, leave: true, freeze: true, reload: true,
  playerPause: true, drops: true,
  // its forks are fixed (docs/SIMULATOR.md "Known forks": seeds 48 and 93 at full length, test/sim/forks.test.ts)
  heldBuilds: true,
  divergence: true,
  verdictDivergence: true,
  partialDivergence: true,
  hostReloadModes: true,
};

export interface PlanOptions {
  readonly workloads?: Partial<Workloads>;
  /** Scales the session lengths (default 1). */
  readonly lengthScale?: number;
  /** The player counts drawn from (one picked per seed; default mostly small, up to 8). */
  readonly playerCounts?: readonly number[];
  /** The chance that a game freezes (default 0.3). */
  readonly freezeChance?: number;
  /**
   * Scales the freezes (default 1: 5–40 s, half of them over the 20 s after which the host marks a game stalled).
   * The CI run scales them down: a frozen stretch costs as much as any other; the stall of a long freeze has its own
   * full-length seed test (forks.test.ts).
   */
  readonly freezeScale?: number;
}

/** Most sessions small: every game reads every other game's clock (the cost grows with the square). */
export const DEFAULT_PLAYER_COUNTS: readonly number[] = [2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8];

function drawLink(r: SimRandom): Partial<LinkConditions> {
  const kind = r.pick(['lan', 'lan', 'internet', 'slow', 'jittery'] as const);
  switch (kind) {
    case 'lan':
      return { latencyMs: r.int(0, 3), jitterMs: r.int(0, 2) };
    case 'internet':
      return { latencyMs: r.int(10, 60), jitterMs: r.int(0, 15) };
    case 'slow':
      return { latencyMs: r.int(80, 200), jitterMs: r.int(0, 40), bytesPerSecond: r.int(8, 64) * 1024 };
    case 'jittery':
      return { latencyMs: r.int(5, 40), jitterMs: r.int(30, 150) };
  }
}

/** The plan of one seed. */
export function drawPlan(seed: number, options: PlanOptions = {}): Plan {
  const w = { ...ALL_WORKLOADS, ...options.workloads };
  const r = new SimRandom(seed ^ 0x51a7e);
  const scale = options.lengthScale ?? 1;
  let runMs = Math.round(r.int(4_000, 10_000) * scale);
  const players = r.pick(options.playerCounts ?? DEFAULT_PLAYER_COUNTS);
  const games: PlanGame[] = [];
  let freezeGame = -1;
  let freeze: { at: number; forMs: number } | undefined;
  if (w.freeze && r.chance(options.freezeChance ?? 0.3)) {
    freezeGame = r.int(0, players);
    const at = r.int(500, 3000);
    const forMs = r.chance(0.5) ? r.int(22_000, 40_000) : r.int(5_000, 21_000);
    freeze = { at, forMs: Math.max(1_000, Math.round(forMs * (options.freezeScale ?? 1))) };
    runMs = Math.max(runMs, freeze.at + freeze.forMs + r.int(2_000, 5_000));
  }
  const reloadGame = w.reload && r.chance(0.25) ? r.int(0, players) : -1;
  for (let i = 0; i <= players; i++) {
    const host = i === 0;
    const lateJoin = !host && w.lateJoin && r.chance(0.12);
    const leaves = !host && !lateJoin && w.leave && r.chance(0.12);
    const bursts: { at: number; count: number }[] = [];
    // an outsider that must not click (outsidersAct off) gets no bots and no bursts; the draws are made all the
    // same, so the rest of the plan stays what it was
    const quiet = lateJoin && !w.outsidersAct;
    if (r.chance(0.3)) {
      const burst = { at: r.int(200, runMs - 500), count: r.int(3, 12) };
      if (!quiet) bursts.push(burst);
    }
    games.push({
      name: host ? 'host' : `p${i}`,
      address: host ? '10.0.0.1' : `10.0.1.${i}`,
      joinAt: lateJoin ? r.int(500, Math.max(600, runMs - 2000)) : 'start',
      ...(leaves ? (r.chance(0.5) ? { leaveAt: r.int(500, runMs - 500) } : { cutAt: r.int(500, runMs - 500) }) : {}),
      link: host ? {} : drawLink(r),
      throttle: r.chance(0.15) ? r.pick([0.25, 0.5, 0.75]) : 1,
      frameMs: r.pick([33, 50, 100, 100]),
      botRate: ((rate) => (quiet ? 0 : rate))(r.pick([0, 10, 30, 60, 120, 240])),
      botSeed: r.seed(),
      bursts,
      ...(i === freezeGame && freeze ? { freeze } : {}),
      ...(i === reloadGame ? { reloadAt: r.int(1_000, runMs - 1_000) } : {}),
    });
  }
  const events: PlanEvent[] = [];
  const count = r.int(0, 5);
  for (let k = 0; k < count; k++) {
    const byPlayer = w.playerPause && r.chance(0.3);
    events.push({
      at: r.int(300, runMs - 300),
      by: byPlayer ? r.int(1, players) : 'host',
      speed: r.pick([0, 0, 1, 2, 4] as const),
    });
  }
  // a pause storm, drawn from a stream of its own (the draws above stay what they were for every seed)
  const storm = new SimRandom(seed ^ 0x5702);
  const pauseStorm = w.pauseStorm && storm.chance(0.15);
  if (pauseStorm) {
    let at = storm.int(500, Math.max(600, runMs - 2_000));
    for (let k = 0; k < storm.int(3, 6); k++) {
      const byPlayer = w.playerPause && storm.chance(0.3);
      const event: PlanEvent = { at, by: byPlayer ? storm.int(1, players) : 'host', speed: k % 2 === 0 ? 0 : storm.pick([1, 2, 4] as const) };
      if (at < runMs - 300) events.push(event);
      at += storm.int(30, 600);
    }
  }
  events.sort((a, b) => a.at - b.at);
  // drops, from a stream of their own (added later: every other draw stays what it was for every seed)
  const d = new SimRandom(seed ^ 0xd409);
  for (const game of games.slice(1)) {
    const drops: { at: number; downMs: number }[] = [];
    if (d.chance(0.25)) {
      for (let k = d.int(1, 3); k > 0; k--) drops.push({ at: d.int(300, Math.max(400, runMs - 1_500)), downMs: d.int(0, 3_000) });
    }
    if (w.drops && drops.length > 0) Object.assign(game, { drops: drops.sort((a, b) => a.at - b.at) });
  }
  const hb = new SimRandom(seed ^ 0xb11d);
  if (hb.chance(0.5)) {
    for (const game of games) {
      const share = hb.pick([0.25, 0.5, 1]);
      if (w.heldBuilds && hb.chance(0.7)) Object.assign(game, { heldBuilds: share });
    }
  }
  // a divergence, from a stream of its own; a full-length session then runs long enough for two checksum rounds after
  // it (a shorter one leaves the repair to its end, where the session runs on until it is repaired)
  const dv = new SimRandom(seed ^ 0xd1f7);
  const divergence = dv.chance(0.35)
    ? { game: dv.int(0, players), at: dv.int(500, Math.max(600, runMs - 1_000)), kind: dv.pick(['edges', 'edges', 'money'] as const) as DivergenceKind }
    : undefined;
  // half the money divergences take all the money (drawn after the others: the draws above stay what they were)
  if (w.verdictDivergence && divergence?.kind === 'money' && dv.chance(0.5)) Object.assign(divergence, { kind: 'verdicts' });
  const diverges: { divergence?: Plan['divergence'] } = w.divergence && divergence !== undefined ? { divergence } : {};
  if (diverges.divergence) runMs = Math.max(runMs, divergence!.at + Math.round(12_000 * scale));
  // a partial apply on the host's game, from a stream of its own drawn after every other (the draws above stay what
  // they were for every seed), in a seed with no other divergence where some game issues commands for it to apply;
  // the stream's constant draws it for none of the seeds the tests keep (forks, repairs, sim: they stay what they were).
  // With an early start too: its players are outsiders, never the repair source (seed 53, repairSource.test.ts)
  const startEarly = w.startEarly && r.chance(0.1);
  const pa = new SimRandom(seed ^ 0xb35e);
  const partialAt = pa.int(500, Math.max(600, runMs - 1_000));
  const issuesCommands = games.some((g) => g.botRate > 0 || g.bursts.length > 0);
  if (pa.chance(0.3) && w.divergence && w.partialDivergence && !diverges.divergence && issuesCommands) {
    diverges.divergence = { game: 0, at: partialAt, kind: 'partial' };
    runMs = Math.max(runMs, partialAt + Math.round(12_000 * scale));
  }
  const modes = w.hostReloadModes ? drawReloadModes(seed) : {};
  // a pause in the middle of a long freeze would hold the stall rule off: long freezes run unpaused
  if (freeze && freeze.forMs > 20_000) {
    const during = (e: PlanEvent) => e.at >= freeze!.at - 3_000 && e.at <= freeze!.at + freeze!.forMs;
    return { seed, startEarly, pauseStorm, runMs, games, events: events.filter((e) => !during(e)), ...diverges, ...modes };
  }
  return { seed, startEarly, pauseStorm, runMs, games, events, ...diverges, ...modes };
}

/**
 * The host's reload mode, from a stream of its own that depends on the seed alone (no other draw of any seed moves,
 * whatever the sizes): about one session in eight with a host that does not reload, one in eight with the host's load
 * after the transfer. The stream's constant draws neither for any seed the seed tests keep (forks, repairs,
 * repairSource, detected, sim: their sessions stay what they were found as; test/sim/hostReload.test.ts holds it).
 */
export function drawReloadModes(seed: number): { reloadModes?: ReloadModes } {
  const r = new SimRandom(seed ^ RELOAD_MODES_STREAM);
  const x = r.float();
  if (x < 0.125) return { reloadModes: { hostReloads: false, hostLoadsEarly: true } };
  if (x < 0.25) return { reloadModes: { hostReloads: true, hostLoadsEarly: false } };
  return {};
}

export const RELOAD_MODES_STREAM = 0x25acb;
