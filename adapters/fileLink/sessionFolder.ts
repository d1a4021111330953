// The session folder: its file names and paths (spec: architecture.txt §2, the file link between launcher and game;
// briefs: the session folder contract). One folder per session; the game finds it through FEVERLINK3_SESSION_DIR.
import { join } from 'node:path';

/** The environment variable that tells the game (the mod's link module) where the session folder is. */
export const SESSION_DIR_ENV = 'FEVERLINK3_SESSION_DIR';

/** File names inside a session folder, with their one writer each (docs/FILE_LINK.md). */
export const SessionFile = {
  /** launcher → mod: who this game is and where its session starts in to_game.log (atomic replace). */
  identity: 'identity.txt',
  /** launcher → game link lines (the launcher is its only writer). */
  toGame: 'to_game.log',
  /** game → launcher link lines (the mod is its only writer). */
  fromGame: 'from_game.log',
  /** launcher → mod: where a reloaded mod resumes reading to_game.log (atomic replace). */
  resyncCursor: 'resync_cursor.txt',
  /** the mod's own log, for people. */
  modLog: 'mod.log',
  /** the simulated game's live status (atomic replace by the game). */
  status: 'status.json',
} as const;

export type SessionFileName = (typeof SessionFile)[keyof typeof SessionFile];

/** Absolute paths of every file of the session folder `dir`. */
export interface SessionPaths {
  readonly dir: string;
  readonly identity: string;
  readonly toGame: string;
  readonly fromGame: string;
  readonly resyncCursor: string;
  readonly modLog: string;
  readonly status: string;
}

/** The paths of the files in session folder `dir` (nothing is touched on disk). */
export function sessionPaths(dir: string): SessionPaths {
  return {
    dir,
    identity: join(dir, SessionFile.identity),
    toGame: join(dir, SessionFile.toGame),
    fromGame: join(dir, SessionFile.fromGame),
    resyncCursor: join(dir, SessionFile.resyncCursor),
    modLog: join(dir, SessionFile.modLog),
    status: join(dir, SessionFile.status),
  };
}
