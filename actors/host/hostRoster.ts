// What the host tells of its roster (spec "Handshake", "Players and slots"; lockstep.md "Leave and removal"): the
// players holding a slot as the launcher's window and its `roster` notices list them (the host's game, player 0,
// first; away while the slot chart holds a dropped player's slot; each connected player's smoothed round trip), and
// the Welcome a joining or returning player gets (the roster and the session as they are now). Pure functions of
// the roster (machines/rules/roster.ts) and the player links; the HostSession (hostSession.ts) calls them.
import type { Payloads } from '../../protocol/messages/index.ts';
import * as roster from '../../machines/rules/roster.ts';
import { oneDecimal } from '../../machines/rules/rtt.ts';
import type { ModEntry } from './mods.ts';
import type { PlayerLink } from './playerLink.ts';

/** A player holding a slot, as the window lists it. */
export type HostPlayerRow = { id: number; name: string; ready: boolean; away: boolean; rtt?: number };

/** Players holding a slot, the host's game (0) first. */
export function playerRows(current: roster.Roster, links: ReadonlyMap<number, PlayerLink>): HostPlayerRow[] {
  const list: HostPlayerRow[] = [{ id: 0, name: current.hostName, ready: true, away: false }];
  for (const p of roster.welcomePlayers(current, true).slice(1)) {
    const entry = current.players.get(p.id)!;
    const rtt = links.get(p.id)?.rtt.smoothed;
    list.push({ ...p, away: entry.state === 'away', ...(rtt === undefined ? {} : { rtt: oneDecimal(rtt) }) });
  }
  return list;
}

/** A Welcome for player `id`: the roster and the session as they are now, with the join's or the resume's fields. */
export function welcomeFor(
  current: roster.Roster,
  options: { version: string; mods: ModEntry[] | undefined },
  id: number,
  session: Payloads['Session'],
  extra: Partial<Payloads['Welcome']>,
): Payloads['Welcome'] {
  return {
    you: id,
    hostName: current.hostName,
    version: options.version,
    players: roster.welcomePlayers(current, true),
    session,
    ...extra,
    ...(options.mods ? { modsChecked: true } : {}),
  };
}
