// The plan's timeline on the simulated clock, in ms after the session's start: the injected divergence, the host's
// pauses and speed changes, the players' speed requests, late joins, leaves, cuts, drops, bursts, freezes and a mod
// reload. It stops where the final pause begins (finish.ts).
import { diverge } from './divergence.ts';
import { join } from './playerLauncher.ts';
import type { SimGameSlot } from './session.ts';
import type { SimSession } from './sessionContext.ts';

/** Schedules every event of the plan (once the session started: `startAt`). */
export function scheduleTimeline(s: SimSession): void {
  const { plan, clock, happened, reloading } = s;
  // the timeline ends where the final pause begins: nothing of it runs after
  const at = (ms: number, fn: () => void): void =>
    void clock.setTimeout(() => {
      if (!s.finishing) fn();
    }, Math.max(0, s.startAt + ms - clock.now()));

  if (plan.divergence) {
    const d = plan.divergence;
    at(d.at, () => diverge(s, d));
  }
  for (const e of plan.events) {
    at(e.at, () => {
      if (e.by === 'host') {
        // the host's button, as its terminal takes it (adapters/cli/commands/host.ts): through the resync actor, which
        // ignores it and logs so while a round runs
        const taken = e.speed === 0 ? s.resync.hostPause() : s.resync.hostSpeed(e.speed);
        if (!taken) return void happened.add('hostButtonInRound');
        happened.add(e.speed === 0 ? 'hostPause' : 'speedChange');
        return;
      }
      const slot = s.slots[e.by]!;
      if (!slot.present || clock.now() < slot.frozenUntil || reloading.has(slot)) return;
      slot.game?.requestSpeed(e.speed);
      happened.add('playerSpeedRequest');
    });
  }
  for (const slot of s.slots) {
    const p = slot.plan;
    if (typeof p.joinAt === 'number') {
      at(p.joinAt, () => {
        happened.add('lateJoin');
        void join(s, slot);
      });
    }
    if (p.leaveAt !== undefined) at(p.leaveAt, () => leave(s, slot, 'leave'));
    if (p.cutAt !== undefined) at(p.cutAt, () => leave(s, slot, 'cut'));
    for (const d of p.drops ?? []) at(d.at, () => drop(s, slot, d.downMs));
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
        // the backlog the reloaded mod reads again holds an earlier round's load line besides its world's own (seed 724)
        if (game.records.filter((r) => r.what === 'load').length >= 2) happened.add('reloadAfterLoads');
        void s.driver.blocking(() => game.reloadMod()).finally(() => reloading.delete(slot));
      });
    }
  }
}

/** The plan's drop: the player's live link is cut (bytes on the way are lost, a frame may be cut in two). */
function drop(s: SimSession, slot: SimGameSlot, downMs: number): void {
  if (!slot.present || !slot.player?.joined || s.away.has(slot)) return;
  const link = s.net.links().find((l) => l.client.localAddress === slot.plan.address && l.cutReason === undefined);
  if (!link) return;
  s.downUntil.set(slot, s.clock.now() + downMs);
  slot.drops += 1;
  s.happened.add('drop');
  s.net.cut(link.client);
}

/** The plan's leave (the player leaves) or cut (its connection is cut for good): it is out of the session. */
function leave(s: SimSession, slot: SimGameSlot, how: 'leave' | 'cut'): void {
  if (!slot.present) return;
  slot.endT = slot.game?.time();
  const worldTimes = s.slots.filter((w) => w.present && w.holdsWorld && w.game).map((w) => w.game!.time());
  slot.window = Math.min(slot.endT ?? 0, ...worldTimes);
  slot.present = false;
  s.happened.add(how);
  if (how === 'leave') slot.player?.leave();
  else {
    const link = s.net.links().find((l) => l.client.localAddress === slot.plan.address);
    if (link) s.net.cut(link.client);
  }
  for (const stop of slot.stops) stop();
  slot.game?.close();
}
