// Players and slots (spec "Players and slots", lockstep.md "Leave and removal"): ids from 1 in join order,
// never given twice; display names unique case-insensitively (a clash becomes name#id; an away player's
// name stays taken); at most maxPlayers games with the host's own game (player 0) counted.

/** The last id a session can hand out: 65 534 joins, then every join is `full`. */
export const MAX_PLAYER_ID = 65_534;
export const DEFAULT_MAX_PLAYERS = 8;

export type SlotState = 'connected' | 'away';

export interface RosterEntry {
  readonly id: number;
  readonly name: string;
  readonly state: SlotState;
  readonly ready: boolean;
}

export interface Roster {
  /** The host's own game is player 0 and holds one of the maxPlayers slots. */
  readonly hostName: string;
  readonly maxPlayers: number;
  /** The next id to hand out; ids are never reused. */
  readonly nextId: number;
  /** Held slots (connected or away) by id. */
  readonly players: ReadonlyMap<number, RosterEntry>;
}

export function createRoster(hostName: string, maxPlayers = DEFAULT_MAX_PLAYERS): Roster {
  if (!Number.isInteger(maxPlayers) || maxPlayers < 1 || maxPlayers > 64) {
    throw new RangeError(`maxPlayers: expected 1..64, got ${maxPlayers}`);
  }
  return { hostName, maxPlayers, nextId: 1, players: new Map() };
}

export type AdmitDecision =
  | { ok: true; roster: Roster; player: RosterEntry }
  | { ok: false; reason: 'full'; detail: string };

function nameTaken(roster: Roster, name: string): boolean {
  const key = name.toLocaleLowerCase('en-US');
  if (roster.hostName.toLocaleLowerCase('en-US') === key) return true;
  for (const p of roster.players.values()) if (p.name.toLocaleLowerCase('en-US') === key) return true;
  return false;
}

/** The clash form `name#<digits>` at the end of a name. */
const CLASH_FORM = /#[0-9]+$/u;

/**
 * The name a joiner is shown by: the requested one while no holder (nor the host) has it case-insensitively,
 * else `name#id`. A requested name that already ends like a clash form (`Bob#4`) always takes the suffix too
 * (`Bob#4#2`), so every name ending in `#digits` ends in its own holder's id, which no other player has: no two
 * players ever share a name, and the result fits the 38 code points a display name may have (32 + `#65534`).
 * Only the host's own name can still clash with a suffixed form; then a neutral `player#id` (or `guest#id`).
 */
export function displayNameFor(roster: Roster, requested: string, id: number): string {
  if (!CLASH_FORM.test(requested) && !nameTaken(roster, requested)) return requested;
  for (const candidate of [`${requested}#${id}`, `player#${id}`, `guest#${id}`]) {
    if (!nameTaken(roster, candidate)) return candidate;
  }
  return `#${id}`; // unreachable: the host holds one name, so one of the three is free
}

/** The spec's detail for `full`: the slot count and how many holders are away (they may return). */
export function fullDetail(roster: Roster): string {
  let away = 0;
  for (const p of roster.players.values()) if (p.state === 'away') away++;
  return `${roster.maxPlayers} players, ${away} of them away`;
}

/** Seats a new player: a fresh id, a unique name, or `full` (no slot, or no ids left). */
export function admitPlayer(roster: Roster, requestedName: string): AdmitDecision {
  if (roster.nextId > MAX_PLAYER_ID) return { ok: false, reason: 'full', detail: 'no player ids left in this session' };
  if (roster.players.size + 1 >= roster.maxPlayers) return { ok: false, reason: 'full', detail: fullDetail(roster) };
  const id = roster.nextId;
  const name = displayNameFor(roster, requestedName, id);
  const player: RosterEntry = { id, name, state: 'connected', ready: false };
  const players = new Map(roster.players);
  players.set(id, player);
  return { ok: true, roster: { ...roster, nextId: id + 1, players }, player };
}

function withPlayer(roster: Roster, id: number, change: (p: RosterEntry) => RosterEntry | undefined): Roster {
  const current = roster.players.get(id);
  if (!current) return roster;
  const players = new Map(roster.players);
  const next = change(current);
  if (next) players.set(id, next);
  else players.delete(id);
  return { ...roster, players };
}

/** The connection dropped: the slot is held (and the name stays taken) for the reconnect window; ready is kept. */
export function markAway(roster: Roster, id: number): Roster {
  return withPlayer(roster, id, (p) => ({ ...p, state: 'away' }));
}

/** A returning player (reconnect) takes its held slot back. */
export function markConnected(roster: Roster, id: number): Roster {
  return withPlayer(roster, id, (p) => ({ ...p, state: 'connected' }));
}

export function setReady(roster: Roster, id: number, ready: boolean): Roster {
  return withPlayer(roster, id, (p) => ({ ...p, ready }));
}

/** Leave, kick or the end of the window: the slot is free again; the id is never given again. */
export function releaseSlot(roster: Roster, id: number): Roster {
  return withPlayer(roster, id, () => undefined);
}

/** One player as Welcome lists it. */
type WelcomeRow = { id: number; name: string; ready: boolean; away?: true };

/**
 * Players as Welcome lists them: the host's game first (id 0), then every held slot in id order, an away one marked
 * `away: true` (the others learnt it from its PlayerLeft; a joiner has only this list).
 */
export function welcomePlayers(roster: Roster, hostReady: boolean): WelcomeRow[] {
  const list: WelcomeRow[] = [{ id: 0, name: roster.hostName, ready: hostReady }];
  const ids = [...roster.players.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const p = roster.players.get(id)!;
    list.push({ id, name: p.name, ready: p.ready, ...(p.state === 'away' ? { away: true as const } : {}) });
  }
  return list;
}
