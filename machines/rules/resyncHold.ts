// While the save travels (spec wire-protocol.txt "While the save travels"): from the announcement (resync_file_ready)
// a participant's game is about to replace its world by the save, so every message for it except the session layer's
// own (Ping, ResyncChunk, ResyncLoad, Kicked) is held and sent right after its ResyncLoad, in the order it was made.
// The host's own game is held too when it reloads after the transfer (host_reloads without host_loads_early); a host
// sent its load early, or one that does not reload, gets everything at once. A round that fails in Transferring sends
// what was held; a participant that leaves is forgotten with what was held for it. Pure: the session keeps the value
// (ids → messages, unsealed, so they are sealed in order when they go out) and acts on what these return.
import type { KindName } from '../../protocol/messages/kinds.ts';

/** The kinds that pass while a game's messages are held: the session layer's own. */
export const PASSES_WHILE_HELD: ReadonlySet<KindName> = new Set<KindName>(['Ping', 'ResyncChunk', 'ResyncLoad', 'Kicked']);

/** Messages held per game id, in the order they were made. */
export type LoadHold<T> = ReadonlyMap<number, readonly T[]>;

/** At the announcement: every participant is held, and the host's game (0) when it reloads after the transfer. */
export function holdAtAnnouncement<T>(participants: readonly number[], hostReloads: boolean, hostLoadsEarly: boolean): LoadHold<T> {
  const ids = hostReloads && !hostLoadsEarly ? [0, ...participants] : participants;
  return new Map(ids.map((id) => [id, []]));
}

/** A message of `kind` for game `to`: held (the new hold) or to be sent now (`send`). */
export function route<T>(hold: LoadHold<T>, to: number, kind: KindName, message: T): { send: true } | { send: false; hold: LoadHold<T> } {
  const held = hold.get(to);
  if (held === undefined || PASSES_WHILE_HELD.has(kind)) return { send: true };
  const next = new Map(hold);
  next.set(to, [...held, message]);
  return { send: false, hold: next };
}

/**
 * The games' ResyncLoad went out (or the round failed in Transferring: pass every held id): what each was held, in
 * order, to send right after it; those games are no longer held.
 */
export function release<T>(hold: LoadHold<T>, ids: readonly number[]): { release: [number, readonly T[]][]; hold: LoadHold<T> } {
  const next = new Map(hold);
  const out: [number, readonly T[]][] = [];
  for (const id of ids) {
    const held = next.get(id);
    if (held === undefined) continue;
    out.push([id, held]);
    next.delete(id);
  }
  return { release: out, hold: next };
}

/** A participant left: forgotten with what was held for it. */
export function forgetHeld<T>(hold: LoadHold<T>, id: number): LoadHold<T> {
  if (!hold.has(id)) return hold;
  const next = new Map(hold);
  next.delete(id);
  return next;
}
