// The plan's injected divergence: one world game's world changed behind the mod's back (a road's owner, or its
// money), so the checksum rounds must find it and a resync round repair it. Its world is not the session's from
// then until it loads a save (`staleT`); the divergence stands until a common pause finds the worlds equal again.
import { injectDivergence } from '../../adapters/simgame/desync.ts';
import type { Plan } from './plan.ts';
import { roundsCompared, type SimSession } from './sessionContext.ts';

/** Injects the plan's divergence into its game (nothing if that game is not a present world game then). */
export function diverge(s: SimSession, d: NonNullable<Plan['divergence']>): void {
  const slot = s.slots[d.game]!;
  if (!slot.present || !slot.holdsWorld || !slot.game || s.reloading.has(slot)) return;
  const world = slot.game.game.world;
  const what =
    d.kind === 'edges' ? injectDivergence(world) : d.kind === 'money' ? ((world.money += 1), 'money + 1') : ((world.money = 0), 'money 0');
  if (what === undefined) return;
  s.divergence = { index: slot.index, kind: d.kind, at: s.clock.now(), t: world.time, repaired: false, what, roundsAtInjection: roundsCompared(s) };
  slot.staleT = Math.min(slot.staleT ?? Infinity, world.time);
  s.note(`${slot.plan.name} DIVERGENCE at t=${world.time}: ${what}`);
  s.happened.add('divergence');
  s.happened.add(`divergence:${d.kind}`);
}
