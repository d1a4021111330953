// Starts a slot's simulated game (simGame.ts: the real mod on its in-memory session folder) once its launcher's
// link is open: follows what it writes to its launcher, takes its records (onlineBarrier.ts) and frames it on the
// simulated clock at its plan's frame rate, except while frozen or reloading its mod.
import type { GameLink } from '../../adapters/fileLink/gameLink.ts';
import { onRecord } from './onlineBarrier.ts';
import type { SimGameSlot } from './session.ts';
import type { SimSession } from './sessionContext.ts';
import { SimulatedGame } from './simGame.ts';

const WORLD_SEED = 7;

export async function startGame(s: SimSession, slot: SimGameSlot, link: GameLink, dir: string): Promise<void> {
  const { clock, options } = s;
  slot.written = s.written.follow(dir, slot.id!, () => {
    const view = s.lockstepContext().games[slot.id!];
    return slot.holdsWorld && slot.staleT === undefined && !s.away.has(slot) && view?.hasWorld === true && view.ready;
  }, () => !slot.holdsWorld && s.startAt > 0);
  const game = await s.driver.blocking(() =>
    SimulatedGame.start({
      fs: s.fs, dir, clock, worldSeed: WORLD_SEED, botSeed: slot.plan.botSeed, botRate: slot.plan.botRate,
      throttle: slot.plan.throttle, fault: slot.index === s.faultIndex, savesDir: s.savesOf(slot), savedItems: s.savedItems, ...(slot.plan.heldBuilds ? { heldBuilds: slot.plan.heldBuilds } : {}), ...(options.modDir ? { modDir: options.modDir } : {}),
      ...(options.savePaddingBytes === undefined ? {} : { savePaddingBytes: options.savePaddingBytes }), log: (text) => s.note(`${slot.plan.name} ${text}`),
    }),
  );
  game.onRecord = onRecord(s, slot);
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
    if (!s.reloading.has(slot)) {
      try {
        game.frame();
      } catch (e) {
        s.problems.push({ invariant: 'progress', detail: `${slot.plan.name}'s frame threw: ${String(e)}` });
      }
    }
    clock.setTimeout(frame, slot.plan.frameMs);
  };
  clock.setTimeout(frame, slot.plan.frameMs);
}
