// The host's reload modes end to end (spec "Host that does not reload"; issue 11 item 3): whole sessions over the
// in-memory network on one simulated clock, the real HostSession with its lockstep, checksum and resync actors, the
// players' launchers, and simulated games running the real mod (the simulator's runSession, test/sim/session.ts, on a
// plan written here instead of drawn from a seed). A host that does not reload (FEVERLINK3_HOST_RELOAD=0) saves
// without loading and Verifying is the only proof that its live world and the players' loaded copies agree; a host
// whose load goes out with the players' (FEVERLINK3_HOST_LOAD_EARLY=0) loads only after the transfer, and what is made
// for its game meanwhile is held until after its load line (host.hold([0])).
import { describe, expect, it } from 'vitest';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { checkRun } from '../sim/invariants.ts';
import type { Plan, PlanGame, ReloadModes } from '../sim/plan.ts';
import { runSession, type SessionRun } from '../sim/session.ts';
import type { SimSession } from '../sim/sessionContext.ts';

/** Game `i` of a plan (0: the host): joins at the start on a quick link, its bot building now and then. */
function game(i: number, o: Partial<PlanGame> = {}): PlanGame {
  return {
    name: i === 0 ? 'host' : `p${i}`, address: i === 0 ? '10.0.0.1' : `10.0.1.${i}`, joinAt: 'start',
    link: { latencyMs: 10, jitterMs: 2 }, throttle: 1, frameMs: 50, botRate: 30, botSeed: 100 + i, bursts: [], ...o,
  };
}

function plan(games: PlanGame[], o: Partial<Plan> & { reloadModes?: ReloadModes }): Plan {
  return { seed: 7001, startEarly: false, pauseStorm: false, runMs: 8_000, games, events: [], ...o };
}

/** The records of slot `index`'s game of one kind. */
const recordsOf = (run: SessionRun, index: number, what: 'save' | 'load') => run.slots[index]!.game!.records.filter((r) => r.what === what);

/** What the host sent of a round's loads, and what its game read, on the clock. */
interface Watched {
  loadsSent: { id: number; to: number[]; at: number }[];
  chatSentAt?: number;
  hostLines: () => string[];
}

/** Runs the plan; at round 1's announcement p1 chats (a message made for the host's game while the save travels). */
async function runWatched(p: Plan, savePaddingBytes?: number): Promise<{ run: SessionRun; w: Watched }> {
  let session: SimSession | undefined;
  const w: Watched = { loadsSent: [], hostLines: () => (session!.fs.readText('/s/host/to_game.log') ?? '').split('\n').filter((l) => l !== '') };
  const run = await runSession(p, {
    repairCooldownSeconds: 10,
    ...(savePaddingBytes === undefined ? {} : { savePaddingBytes }),
    onSession: (s) => {
      session = s;
      s.resync.actor.on('out.load', (e) => void w.loadsSent.push({ id: e.id, to: [...e.to], at: s.clock.now() }));
      s.resync.actor.on('out.announced', (e) => {
        if (e.id !== 1 || w.chatSentAt !== undefined) return;
        s.slots[1]!.player!.chat('made while the save travels');
        w.chatSentAt = s.clock.now();
      });
    },
  });
  return { run, w };
}

/** When round `id` entered `state` on the host's clock. */
const entered = (run: SessionRun, id: number, state: string) => run.reloads.progress.find((p) => p.id === id && p.state === state)?.at;

describe('a host that does not reload (hostReloads false, FEVERLINK3_HOST_RELOAD=0)', () => {
  it('repairs a player’s divergence and a hot join without loading: the host’s live world is every game’s after Verifying', async () => {
    // p1's first road changes hands at 1 s (the policy's repair, about 11 s in), p3 joins at 14 s (a `new player` round)
    const p = plan([game(0), game(1), game(2), game(3, { joinAt: 14_000 })], {
      runMs: 18_000, divergence: { game: 1, at: 1_000, kind: 'edges' }, reloadModes: { hostReloads: false, hostLoadsEarly: true },
    });
    const { run, w } = await runWatched(p);
    expect(checkRun(run).failures).toEqual([]);
    expect(run.resyncs.rounds).toEqual({ verified: 2, failed: 0 });
    expect(run.resyncs.last).toMatchObject({ id: 2, reason: 'new player', result: 'verified' });

    // the host's game saved each round's world and never loaded one; no ResyncLoad was ever addressed to it
    expect(recordsOf(run, 0, 'save').map((r) => r.name)).toEqual([resyncSaveName(1), resyncSaveName(2)]);
    expect(recordsOf(run, 0, 'load')).toEqual([]);
    expect(w.loadsSent.some((l) => l.to.includes(0))).toBe(false);
    expect(w.hostLines().some((l) => l.startsWith('ResyncLoad\t'))).toBe(false);
    // the players loaded: p1 and p2 both rounds, the joiner its own
    expect(recordsOf(run, 1, 'load').map((r) => r.name)).toEqual([resyncSaveName(1), resyncSaveName(2)]);
    expect(recordsOf(run, 2, 'load').map((r) => r.name)).toEqual([resyncSaveName(1), resyncSaveName(2)]);
    expect(recordsOf(run, 3, 'load').map((r) => r.name)).toEqual([resyncSaveName(2)]);

    // the divergence was repaired by round 1 (the policy's), and as each round was verified every game that loaded
    // its save stood where the host's live world stood, with the same world
    expect(run.divergence).toMatchObject({ index: 1, kind: 'edges', repaired: true });
    expect(run.resyncs.rounds.verified).toBe(run.reloads.verified.length);
    for (const v of run.reloads.verified) {
      const host = v.worlds.find((x) => x.index === 0)!;
      const loaded = new Set(run.reloads.loads.filter((l) => l.id === v.id).map((l) => l.index));
      expect(v.elsewhere).toBe(0);
      expect(v.worlds.map((x) => x.index).sort()).toEqual([0, ...loaded].sort());
      for (const x of v.worlds) expect({ index: x.index, t: x.t, hash: x.hash }).toEqual({ index: x.index, t: host.t, hash: host.hash });
    }
    expect(run.reloads.verified.map((v) => v.worlds.length)).toEqual([3, 4]);
    expect(checkRun(run).checks.hostReload).toBeGreaterThanOrEqual(2 + 2 + 3);
  }, 120_000);
});

describe('a host whose load goes out with the players’ (hostLoadsEarly false, FEVERLINK3_HOST_LOAD_EARLY=0)', () => {
  // p2 joins at 1.5 s over a link of 512 KiB/s; the saves carry 4 MiB of filler, more than the sender queues for a
  // connection at once (4 MiB of frames), so the hot join's transfer (Transferring) lasts seconds on the clock
  const FILLER = 4 * 1_048_576;
  const slowJoin = () => [game(0), game(1), game(2, { joinAt: 1_500, link: { latencyMs: 20, jitterMs: 0, bytesPerSecond: 524_288 } })];

  it('the host’s game loads after the transfer, with the players, and reads what was made meanwhile after its load line (host.hold([0]))', async () => {
    const { run, w } = await runWatched(plan(slowJoin(), { reloadModes: { hostReloads: true, hostLoadsEarly: false } }), FILLER);
    expect(checkRun(run).failures).toEqual([]);
    expect(run.resyncs.last).toMatchObject({ id: 1, reason: 'new player', result: 'verified' });
    // one ResyncLoad event for the host's game and the participants, when the round entered Loading
    const loading = entered(run, 1, 'Loading')!;
    expect(w.loadsSent).toEqual([{ id: 1, to: [0, 1, 2], at: loading }]);
    expect(loading - entered(run, 1, 'Transferring')!).toBeGreaterThan(1_000); // the slow transfer came first
    // the host's game loaded once, in Loading (not while the save travelled), no sooner than the players' loads went out
    const hostLoad = run.reloads.loads.filter((l) => l.index === 0);
    expect(hostLoad).toHaveLength(1);
    expect(hostLoad[0]).toMatchObject({ id: 1, state: 'Loading' });
    expect(hostLoad[0]!.at).toBeGreaterThanOrEqual(loading);
    expect(run.happened.has('hostLoadedLate')).toBe(true);

    // host.hold([0]): p1 chatted at the announcement, seconds before the host's load went out; the host's game read
    // that chat after its load line (unheld, it would come before it, in the world the load replaces)
    const lines = w.hostLines();
    const chat = lines.findIndex((l) => l.startsWith('Chat\t') && l.includes('made while the save travels'));
    const load = lines.findIndex((l) => l.startsWith('ResyncLoad\t'));
    expect(w.chatSentAt!).toBeLessThan(loading - 1_000);
    expect(load).toBeGreaterThan(0);
    expect(chat).toBeGreaterThan(load);
  }, 120_000);

  it('by default (the early load) the same session loads the host’s game at the announcement, while the player downloads', async () => {
    const { run, w } = await runWatched(plan(slowJoin(), {}), FILLER);
    expect(checkRun(run).failures).toEqual([]);
    expect(run.resyncs.last).toMatchObject({ id: 1, reason: 'new player', result: 'verified' });
    const loading = entered(run, 1, 'Loading')!;
    const announced = w.loadsSent[0]!;
    expect(w.loadsSent).toEqual([{ id: 1, to: [0], at: announced.at }, { id: 1, to: [1, 2], at: loading }]);
    expect(announced.at).toBeLessThan(loading - 1_000);
    const hostLoad = run.reloads.loads.filter((l) => l.index === 0);
    expect(hostLoad).toEqual([expect.objectContaining({ id: 1, state: 'Transferring' })]);
    expect(hostLoad[0]!.at).toBeLessThan(loading);
  }, 120_000);
});
