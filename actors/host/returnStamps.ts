// Whether a returner can be caught up with what it missed, as far as stamps go (lockstep.md "Catching up"; the
// simulator, seed 5340): while its connection was down its game ran on alone, as far as its barrier let it (the
// lowest promise its peers had given when it dropped, or where it stood in a pause: `reachWhenCut`), and it heard
// nothing of what the host stamped meanwhile. A pause's flush, a held build's commit, stamped below where it may
// stand, would be applied late there: its world would part. Such a returner is reloaded instead (a `player returned`
// round), like one whose outbox ran out.
import { gameList, type Games } from '../../machines/rules/hostGames.ts';
import { cutOffBound } from '../../machines/rules/stamps.ts';
import type { Message } from '../wire.ts';

/**
 * How far game `id` may run alone from the moment its connection dropped: never past its barrier (`cutOffBound`). And
 * in a pause it had read (its last Clock a stop at `pauseAt` or past it), no further than where it stood and the
 * furthest stamp the host had relayed for a game to step to in a pause (`heldStampMax`: a flush, a BuildCommit): a
 * game standing still steps only to those (lockstep.md "Pause, speed and the pause order"). The simulator, seed 165:
 * a player dropped standing at a pause's 1400, and the flushes at 1400 it missed are not late for it.
 */
export function reachWhenCut(games: Games, id: number, pauseAt: number | undefined, heldStampMax: number): number {
  const bound = cutOffBound(gameList(games), id);
  const clock = games[id]?.clock;
  const stood = pauseAt !== undefined && clock?.stop === true && clock.t >= pauseAt;
  return stood ? Math.min(bound, Math.max(clock.t, heldStampMax)) : bound;
}

/**
 * Why the messages a returner missed cannot be resent to it, if a stamp among them lies below `bound` (how far its game
 * may have run). Its own ordinary Actions and BuildCommits are left out: a game stands at the stamp of its own item
 * until the host's copy comes (mod/feverlink3_pace.lua, feverlink3_builds.lua), so it never runs past one.
 */
export function stampRunPast(id: number, missed: readonly Message[], bound: number): string | undefined {
  for (const message of missed) {
    let stamp: number | undefined;
    if (message.kind === 'BuildCommit') stamp = message.payload.owner === id ? undefined : message.payload.stamp;
    else if (message.kind === 'Action') {
      const own = message.payload.from === id && message.payload.pause !== true;
      stamp = own ? undefined : message.payload.stamp;
    }
    if (stamp !== undefined && stamp < bound) {
      const reach = Number.isFinite(bound) ? `to ${bound}` : 'on without a bound';
      return `its game may have run ${reach} alone, past a stamp it missed (${message.kind} at ${stamp})`;
    }
  }
  return undefined;
}
