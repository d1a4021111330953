// status.json of the simulated game (filelink-contract: written by the game, atomic replace, read by
// the launcher and the demo): the game's time, speed, counters and world hash.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** What status.json holds. The first seven fields are the contract; the rest help a reader. */
export interface GameStatus {
  /** Game time the world stands at. */
  t: number;
  /** Speed in effect (0 while standing still). */
  speed: number;
  /** Commands applied (natively or through engine.apply) since the world was started, or last saved or loaded (a resync). */
  applied: number;
  /** Commands refused, counted alike. */
  refused: number;
  /** Late items the mod reported (its status().late), 0 without a mod. */
  late: number;
  worldHash: string;
  /** Own commands the mod took and sent (command() returned true). */
  actions: number;
  /** The speed asked for (engine.setSpeed or the start speed). */
  wanted: number;
  /** The limit in force, or null. */
  limit: number | null;
  /** Steps executed since the game started. */
  steps: number;
  /** Errors raised by mod callbacks. */
  modErrors: number;
  /** Whether the mod says its session is active. */
  active: boolean;
  /** The mod's own counters when it has them (status().pause: pause-order items read; queued: items held). */
  pause: number;
  queued: number;
  /** The smallest margin (game-ms left before the stamp) of the last actions that arrived; null before any. */
  margin: number | null;
  /** Lines the mod keeps for from_game.log (waiting after failed appends; 0 when the link is healthy). */
  outbox: number;
  /** Lines the mod's outbox refused because it was full (docs/ENGINE.md §7). */
  outboxDropped: number;
  /** The world stands because the mod's outbox is full. */
  held: boolean;
  /** Own commands the mod dropped (outbox or queue full): applied nowhere. */
  droppedCommands: number;
  /** True in the last status a game writes before it exits. */
  final: boolean;
}

/** Writes `path` atomically: a temporary file in the same folder, fsync, rename over the old one, fsync the folder. */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // Make the rename itself durable; not every platform can open a folder, so this is best effort.
  try {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // a folder that cannot be fsynced (Windows) still has the file in place
  }
}

export function writeStatus(path: string, status: GameStatus): void {
  writeFileAtomic(path, `${JSON.stringify(status)}\n`);
}
