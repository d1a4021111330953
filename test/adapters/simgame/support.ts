// Shared helpers of the simulated game's tests: temp folders and a mod loaded into a game.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';

export const FIXTURE_MOD = resolve(import.meta.dirname, 'fixtures/mod');
export const REAL_MOD = resolve(import.meta.dirname, '../../../mod');

/** A fresh temp folder; `cleanup` removes it. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-simgame-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A manual wall clock. */
export function manualClock(start = 0): { now(): number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

/** A game on createWorld(seed) with a mod loaded from `modDir`, env naming `sessionDir`. */
export async function gameWithMod(options: {
  modDir: string;
  sessionDir: string;
  now: () => number;
  seed?: number;
}): Promise<{ game: SimGame; host: LuaHost; logs: string[] }> {
  const logs: string[] = [];
  const log = (level: string, text: string): void => {
    logs.push(`${level}: ${text}`);
  };
  const world = createWorld(options.seed ?? 1);
  const game = new SimGame({ world, now: options.now, savesDir: options.sessionDir, log });
  const host = await LuaHost.create({
    modDir: options.modDir,
    env: { FEVERLINK3_SESSION_DIR: options.sessionDir, OTHER: 'x' },
    engine: game,
    wallMs: options.now,
    log,
  });
  game.attach(host);
  return { game, host, logs };
}
