// Where a game's resync saves live (spec "Resync round": ResyncSave / ResyncLoad name a save the game writes and
// reads in its savegame folder; a player's launcher writes the received save there). The simulated game uses the
// folder `saves` inside its session folder (each game its own, even when several share one start save); for
// Transport Fever 3 the savegame folder is not known yet (the engine adapter is a later issue): no resync save.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GameChoice } from './gameProcess.ts';

/** The simulated game's savegame folder in session folder `sessionDir`. */
export function simSavesDir(sessionDir: string): string {
  return join(sessionDir, 'saves');
}

/** The chosen game's savegame folder, created when missing; undefined when the launcher does not know it. */
export function gameSavesDir(choice: GameChoice, sessionDir: string): string | undefined {
  if (choice.kind !== 'sim') return undefined;
  const dir = simSavesDir(sessionDir);
  mkdirSync(dir, { recursive: true });
  return dir;
}
