// Pure rules of the resync round (spec wire-protocol.txt "Resync round", "Repair source", "Participants", "Hot
// join"): the round's timeouts, the save's name, whom the round waits on at each step, the repair source, and the
// reasons a failed round gives (each names what was missing: which players, by name). machines/resync.ts calls these.

/** The spec's timeouts, in ms (named delays of the chart; a test or the session may override them by name). */
export const RESYNC_TIMEOUTS = {
  pausing: 120_000,
  saving: 180_000,
  /** Saving with a repair source: 180 s for its SaveDone + 600 s for its upload. */
  sourceSaving: 180_000 + 600_000,
  transferring: 600_000,
  loading: 600_000,
  verifying: 120_000,
} as const;

/** The host's own game is player 0. */
export const HOST_GAME = 0;

/**
 * The name every game saves and loads the round's world as (ResyncSave / ResyncLoad `name`). It is also the file a
 * launcher writes a received save to in the game's savegame folder, the player's chunks and the repair source's
 * upload alike: the file of the save a game loads by that name (spec "Repair source": `feverlink3-resync-<id>.sav`
 * is that file for an engine that adds `.sav` to a save's name; the simulated game adds nothing; docs/DECISIONS.md).
 */
export function resyncSaveName(id: number): string {
  return `feverlink3-resync-${id}`;
}

/** What the round knows of a connected player (the roster the session feeds it). */
export interface RoundPlayer {
  id: number;
  name: string;
  /** Announced the capability resync-source-1 (its launcher knows the savegame folders). */
  capable: boolean;
}

/** The players' names for a reason or a log: "alice, bob" (the host's game is "the host's game"). */
export function namesOf(ids: readonly number[], players: readonly RoundPlayer[]): string {
  return ids
    .map((id) => (id === HOST_GAME ? "the host's game" : (players.find((p) => p.id === id)?.name ?? `player ${id}`)))
    .join(', ');
}

/**
 * The game whose save the round copies (spec "Repair source"): the host's (0) unless the host's game is marked
 * partial; then the first player, in roster order, that is ready in the session's world (`inWorld`: its game said
 * Hello and is no outsider; copying an outsider's world would lose the session's, and a game that has not said Hello
 * has no world of the session yet), is not marked and is capable. A host that does not reload always copies its own
 * world. `warning` is set when the host's world is copied although it is marked.
 */
export function chooseSource(
  players: readonly RoundPlayer[],
  marked: readonly number[],
  hostReloads: boolean,
  inWorld: readonly number[],
): { source: number; warning?: string } {
  if (!marked.includes(HOST_GAME)) return { source: HOST_GAME };
  const unmarked = players.filter((p) => !marked.includes(p.id));
  const why = !hostReloads
    ? 'the host does not reload'
    : players.length === 0
      ? 'no player is connected'
      : unmarked.length === 0
        ? 'every game is marked partial'
        : unmarked.every((p) => !inWorld.includes(p.id))
          ? "no unmarked player is ready in the session's world"
          : 'no unmarked player can send its save (resync-source-1)';
  if (hostReloads) {
    const source = unmarked.find((p) => inWorld.includes(p.id) && p.capable);
    if (source) return { source: source.id };
  }
  return {
    source: HOST_GAME,
    warning: `the host's world is copied although an action was applied partly on it (${why}); it may still be broken`,
  };
}

/** The games whose Hello the Loading step waits for: the participants, and the host's game when it reloads. */
export function helloAwaited(participants: readonly number[], hostReloads: boolean, heard: readonly number[]): number[] {
  const games = hostReloads ? [HOST_GAME, ...participants] : [...participants];
  return games.filter((id) => !heard.includes(id));
}

/** The reasons of ResyncFailed: each names what was missing. */
export const failureReason = {
  pausing: (names: string) => `pause not reached in ${RESYNC_TIMEOUTS.pausing / 1000} s by ${names || 'no game (none reported)'}`,
  saveTimeout: (source: string, ms: number) => `no save from ${source} in ${ms / 1000} s`,
  saveFailed: (source: string, detail: string | undefined) => `the save of ${source} failed${detail ? `: ${detail}` : ''}`,
  sourceLeft: (source: string) => `the repair source ${source} left before its save arrived`,
  fileNotReady: () => `the save file was not ready in ${RESYNC_TIMEOUTS.transferring / 1000} s`,
  transfer: (names: string) => `the save did not reach ${names} in ${RESYNC_TIMEOUTS.transferring / 1000} s`,
  differs: (detail: string | undefined) => `the verification checksum differs${detail ? `: ${detail}` : ''}`,
  verifyTimeout: (names: string) =>
    `the verification checksum was not complete in ${RESYNC_TIMEOUTS.verifying / 1000} s${names ? ` (not reported by ${names})` : ''}`,
} as const;

/**
 * The host's reload modes from the environment (spec "Host that does not reload"): hostReloads unless
 * FEVERLINK3_HOST_RELOAD=0, hostLoadsEarly unless FEVERLINK3_HOST_LOAD_EARLY=0. The launcher passes its process.env.
 */
/** HostOptions.autoResync: a repair request starts a resync round, unless FEVERLINK3_AUTO_RESYNC=0 (then it is only logged and shown). */
export function autoResyncFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.FEVERLINK3_AUTO_RESYNC?.trim() !== '0';
}

export function reloadModesFromEnv(env: Readonly<Record<string, string | undefined>>): { hostReloads: boolean; hostLoadsEarly: boolean } {
  return { hostReloads: env.FEVERLINK3_HOST_RELOAD?.trim() !== '0', hostLoadsEarly: env.FEVERLINK3_HOST_LOAD_EARLY?.trim() !== '0' };
}
