// The end of a simulated session: the players stop clicking, nothing stays frozen, and the host pauses; then the run
// waits until every game of the session's world stands still at one pause with the same items applied (`still`),
// letting the session run a while more when an injected divergence is not repaired yet (`settled`), and fails the
// progress check when nothing moves for too long (`stuck`). A last common pause is compared at the end.
import { comparePause } from './pauses.ts';
import type { SimSession } from './sessionContext.ts';

/** How long the session runs on for an injected divergence not repaired yet at its end, and how many times. */
const RUN_FOR_REPAIR_MS = 6_000;
const RUNS_FOR_REPAIR = 6;

/** Brings the session to its final pause (a progress problem if it does not get there). */
export async function finish(s: SimSession): Promise<void> {
  const { clock, slots, lockstep, resync, checksums, happened, reloading, lockstepState } = s;
  s.finishing = true;
  // the players stop clicking and every game runs: the last pause must settle
  for (const slot of slots) {
    slot.frozenUntil = 0;
    slot.game?.game.stopBots();
  }
  if (!resync.running()) lockstep.pause();
  // when a round was last verified (its end resumes the speed from before it)
  let verifiedAt: number | undefined;
  const verified = resync.actor.on('out.succeeded', () => void (verifiedAt = clock.now()));
  const still = () => {
    // a request sent before a drop and resent after the resume may unpause, and a verified round resumes the
    // speed before it: the host pauses again (not during a round: the button is ignored then)
    if (lockstepState() === 'Running' && !resync.running() && clock.now() >= runsUntil) {
      happened.add('pausedAgain');
      // in the instant of the round's resume: no Clock has replaced the stops of the round's pause yet (seed 113)
      if (verifiedAt === clock.now()) happened.add('pausedAtResume');
      lockstep.pause();
    }
    // every dropped player is back first (its launcher keeps trying until the host answers)
    if ([...s.away].some((a) => a.present)) return false;
    // a resync round runs to its end (the session is left paused after it)
    if (resync.running()) return false;
    const world = slots.filter((w) => w.present && w.holdsWorld && w.game && !reloading.has(w));
    if (world.length === 0) return true;
    const t = world[0]!.game!.time();
    const applied = world[0]!.game!.worldItems;
    if (!world.every((w) => w.game!.time() === t && w.game!.worldItems === applied)) return false;
    return world.every((w) => w.game!.standsStill());
  };
  // a slow game far behind may need long to catch up: the run fails only when nothing moves for 30 s (or after
  // 10 minutes of clock time)
  let lastMove = clock.now();
  let lastShape = '';
  const stuck = (): boolean => {
    // every step: the counts alone (status() copies every ended round)
    const rounds = checksums.roundCounts();
    const shape = slots.map((w) => (w.present && w.game ? `${w.game.time()}/${w.game.worldItems}` : '-')).join(' ')
      + ` ${resync.status().state} ${rounds.identical + rounds.different + rounds.dropped + rounds.time_skew}`;
    if (shape !== lastShape) {
      lastShape = shape;
      lastMove = clock.now();
    }
    // a divergence not repaired yet: the policy may wait out its cooldown (120 s) before the repair starts
    return clock.now() - lastMove > (unrepaired() ? 150_000 : 30_000);
  };
  const unrepaired = (): boolean => {
    const divergence = s.divergence;
    return divergence !== undefined && !divergence.repaired && (slots[divergence.index]!.present || divergence.index === 0);
  };
  // Standing with a divergence not repaired: the checksum policy needs a second round, which a pause does not give
  // (one paused round a pause), and an Authority stamped in the pause is applied only once the games run. The host
  // lets the session run a little more, as players would: 6 s (a round every 5 s), at most 6 times.
  let runsUntil = 0;
  let runsForRepair = 0;
  const settled = (): boolean => {
    if (!still()) return false;
    // standing still at one pause: compared now (the 250 ms watch may not have come yet), so a divergence a round just
    // repaired does not make the session run on for nothing
    if (unrepaired()) comparePause(s);
    if (!unrepaired()) return true;
    if (runsForRepair < RUNS_FOR_REPAIR && !resync.running()) {
      runsForRepair += 1;
      happened.add('runForRepair');
      runsUntil = clock.now() + RUN_FOR_REPAIR_MS;
      lockstep.speed(1);
    }
    return false;
  };
  if (!(await s.driver.runUntil(() => settled() || stuck(), 900_000)) || !still()) {
    const ts = slots.filter((w) => w.present && w.holdsWorld).map((w) => {
      const st = w.game?.status();
      return `${w.plan.name}@${w.game?.time()}/${w.game?.worldItems} (pauseAt ${String(st?.pauseAt)} barrier ${String(st?.barrier)} limit ${String(st?.limit)} speed ${String(st?.speed)} engine ${w.game?.game.speed()} stop ${String(st?.stop)} held ${String(st?.held)} queued ${String(st?.queued)})`;
    });
    s.problems.push({ invariant: 'progress', detail: `the games did not all stand still at one pause with the same items applied (name@t/items): ${ts.join(', ')}; host: ${lockstepState()} ${JSON.stringify(s.host.sessionPayload())}` });
  }
  verified.unsubscribe();
  await s.driver.runFor(500);
  comparePause(s);
}
