// The session's pauses as the simulator watches them: whether a game stalled or the session paused (for the coverage
// counters), and the worlds compared whenever every present world game stands still at the same t in a pause (one
// entry of `pauses` each, the worldsEqual check's). An injected divergence counts as repaired once such a pause
// finds the worlds equal again.
import type { SimSession } from './sessionContext.ts';

/** Worlds compared whenever every present world game stands still at the same t in a pause. */
export function comparePause(s: SimSession): void {
  if (s.lockstepState() !== 'Paused') return;
  const world = s.slots.filter((w) => w.present && w.holdsWorld && w.game);
  if (world.length < 2 || world.some((w) => s.clock.now() < w.frozenUntil || s.reloading.has(w))) return;
  const t = world[0]!.game!.time();
  // the same t, standing still, with the same number of items applied (a flush read by some games only is not
  // a common pause yet: the apply-log checks see a missing item)
  const applied = world[0]!.game!.worldItems;
  if (world.some((w) => w.game!.time() !== t || w.game!.worldItems !== applied || !w.game!.standsStill())) return;
  if (s.pauses.some((p) => p.t === t && p.applied === applied)) return;
  const hashes = world.map((w) => ({ index: w.index, hash: w.game!.hash() }));
  // an injected divergence stands until a common pause finds the worlds equal again (repaired)
  const divergence = s.divergence;
  if (divergence && !divergence.repaired) {
    if (hashes.some((h) => h.hash !== hashes[0]!.hash)) return;
    divergence.repaired = true;
    s.happened.add('repaired');
  }
  s.pauses.push({ t, applied, hashes });
}

/** Every 250 ms of clock time, for the whole run: stalls and pauses seen, common pauses compared. */
export function watchPauses(s: SimSession): void {
  const watch = (): void => {
    if (Object.values(s.lockstepContext().games).some((g) => g.stalled !== undefined)) s.happened.add('stalled');
    if (s.lockstepState() === 'Paused' && s.startAt > 0 && !s.finishing) s.happened.add('paused');
    comparePause(s);
    s.clock.setTimeout(watch, 250);
  };
  s.clock.setTimeout(watch, 250);
}
