// The host's reload modes in the simulator (spec "Host that does not reload"; issue 11 item 3): what each round did
// with the host's own game, and the `hostReload` check. A host that does not reload (FEVERLINK3_HOST_RELOAD=0) never
// loads a round's save, and its live world must equal every world that loaded it once the round is verified (the
// paused checksum is the only proof then, and it does not cover the whole world). A host whose load goes out with the
// players' (FEVERLINK3_HOST_LOAD_EARLY=0) never loads while the save travels. By default the host's game loads every
// verified round's save (its load sent at the announcement, so it may load while the players download).
import type { ResyncProgressState } from '../../machines/resync.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import type { Invariant } from './invariants.ts';
import type { ReloadModes } from './plan.ts';
import type { SimGameSlot } from './session.ts';
import type { SimSession } from './sessionContext.ts';
import type { GameRecord } from './simGame.ts';

/** What the session's rounds did with the games' worlds (SessionRun.reloads). */
export interface ReloadRecord {
  /** The modes the host ran with (the defaults when the plan drew none). */
  readonly modes: ReloadModes;
  /** Each state a round entered, on the host's clock. */
  readonly progress: { id: number; state: ResyncProgressState; at: number }[];
  /** Every load of a round's save by a game (its slot), on the clock, with the state its round was in then. */
  readonly loads: { index: number; id: number; at: number; state: ResyncProgressState }[];
  /**
   * As each round was verified: the world (t and hash) of the host's game and of every game there that loaded its save
   * and stands where the host's stands (`elsewhere`: how many stood elsewhere in the pause, not compared; `diverged`:
   * how many the plan's divergence changed after the round's save or their load, not compared either).
   */
  readonly verified: { id: number; worlds: { index: number; t: number; hash: string }[]; elsewhere: number; diverged: number }[];
}

export function newReloadRecord(modes: ReloadModes | undefined): ReloadRecord {
  return { modes: modes ?? { hostReloads: true, hostLoadsEarly: true }, progress: [], loads: [], verified: [] };
}

/** Follows the host's resync rounds: their states, and the worlds as each one is verified. */
export function watchReloads(s: SimSession): void {
  const { reloads } = s;
  s.resync.actor.on('out.progress', (e) => void reloads.progress.push({ id: e.id, state: e.state, at: s.clock.now() }));
  s.resync.actor.on('out.succeeded', (e) => {
    // The verified speed is only asked for here: every game still stands in the round's pause. Compared: the host's
    // game and those that loaded this round's save and are still there (not away after a drop), each where it stands
    // now if that is where the host's stands (the same t and the same items: the pause's flush, stamped once every
    // game stood in the loaded world, may not have reached a game on a slow link yet).
    const loaded = new Set(reloads.loads.filter((l) => l.id === e.id).map((l) => l.index));
    const host = s.slots[0]!.game!;
    const world = s.slots.filter((w) => (w.index === 0 || loaded.has(w.index)) && w.present && !s.away.has(w) && w.game);
    const where = world.filter((w) => w.game!.time() === host.time() && w.game!.worldItems === host.worldItems);
    // A world the plan's divergence changed after this round's save (the host's, which every other game copied) or
    // after its own load is the fault's doing, not the round's: the divergence checks (detected, repaired) follow it.
    // Seed 2477: a command applied partly on the host's game, flushed in Verifying after the verification round read.
    const d = s.divergence;
    const savedAt = reloads.progress.find((p) => p.id === e.id && p.state === 'Saving')?.at;
    const loadedAt = (index: number) => reloads.loads.findLast((l) => l.id === e.id && l.index === index)?.at;
    const changed = (index: number): boolean =>
      d !== undefined && d.index === index && d.at >= ((index === 0 ? savedAt : loadedAt(index)) ?? Infinity);
    const compared = changed(0) ? where.filter((w) => w.index === 0) : where.filter((w) => !changed(w.index));
    reloads.verified.push({
      id: e.id,
      worlds: compared.map((w) => ({ index: w.index, t: w.game!.time(), hash: w.game!.hash() })),
      elsewhere: world.length - where.length,
      diverged: where.length - compared.length,
    });
  });
}

/** A game's load record: which round's save, and where that round stood (onlineBarrier.ts calls it). */
export function noteLoad(s: SimSession, slot: SimGameSlot, r: GameRecord): void {
  const id = Number(/-(\d+)$/.exec(r.name ?? '')?.[1] ?? -1);
  const state = s.reloads.progress.findLast((p) => p.id === id)?.state ?? 'Idle';
  s.reloads.loads.push({ index: slot.index, id, at: s.clock.now(), state });
}

const WHILE_THE_SAVE_TRAVELS: readonly ResyncProgressState[] = ['Pausing', 'Saving', 'Transferring'];

/**
 * hostReload: for every round that reached Verifying, the host's game loaded its save exactly when the host reloads;
 * with the late order, not before the round was Loading; without a reload, every world equal to the host's live one
 * as the round was verified (but those the plan's divergence changed since: `verified[].diverged`).
 */
export function checkHostReload(
  r: ReloadRecord, checks: Record<Invariant, number>, fail: (invariant: Invariant, detail: string) => void,
): void {
  const { hostReloads, hostLoadsEarly } = r.modes;
  const reachedVerifying = [...new Set(r.progress.filter((p) => p.state === 'Verifying').map((p) => p.id))];
  for (const id of reachedVerifying) {
    checks.hostReload += 1;
    const load = r.loads.find((l) => l.index === 0 && l.id === id);
    if (!hostReloads && load !== undefined) fail('hostReload', `round ${id}: the host's game loaded ${resyncSaveName(id)} although the host does not reload`);
    else if (hostReloads && load === undefined) fail('hostReload', `round ${id} reached Verifying without the host's game loading ${resyncSaveName(id)}`);
    else if (!hostLoadsEarly && load !== undefined && WHILE_THE_SAVE_TRAVELS.includes(load.state)) {
      fail('hostReload', `round ${id}: the host's game loaded in ${load.state}, before its load went out with the players' (FEVERLINK3_HOST_LOAD_EARLY=0)`);
    }
  }
  if (hostReloads) return;
  for (const v of r.verified) {
    const host = v.worlds.find((w) => w.index === 0);
    if (host === undefined) continue;
    for (const w of v.worlds.filter((x) => x.index !== 0)) {
      checks.hostReload += 1;
      if (w.t !== host.t || w.hash !== host.hash) {
        fail('hostReload', `round ${v.id} verified, but game ${w.index}'s world (t=${w.t}, ${w.hash.slice(0, 12)}) is not the host's live one (t=${host.t}, ${host.hash.slice(0, 12)})`);
      }
    }
  }
}

/** The coverage names: a round verified with a host that kept its world; the host's game loading with the late order. */
export function reloadCoverage(r: ReloadRecord, happened: Set<string>): void {
  const verified = new Set(r.verified.map((v) => v.id));
  const hostLoads = r.loads.filter((l) => l.index === 0 && verified.has(l.id));
  if (!r.modes.hostReloads && verified.size > 0) happened.add('hostKeptWorld');
  if (!r.modes.hostLoadsEarly && hostLoads.length > 0) happened.add('hostLoadedLate');
}
