// Shared helpers of the simulated game's tests: temp folders and a mod loaded into a game.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

/**
 * The launcher's part for a game whose Actions no host relays: the host's copy of each own ordinary Action (the host
 * relays every Action to its origin too, and the mod applies its own action only with that copy). Each call appends
 * to to_game.log the copies of the Actions written to from_game.log since the last call (by seq; an unreadable
 * from_game.log sends nothing).
 */
export function ownActionEcho(sessionDir: string, id: number): () => number {
  let lastSeq = 0;
  return () => {
    let text: string;
    try {
      text = readFileSync(join(sessionDir, 'from_game.log'), 'utf8');
    } catch {
      return 0;
    }
    const copies: string[] = [];
    for (const line of text.split('\n')) {
      if (!line.startsWith('Action\t')) continue;
      const p = JSON.parse(line.slice(7)) as { seq: number; stamp?: number; category?: string };
      if (p.stamp === undefined || p.seq <= lastSeq) continue;
      lastSeq = p.seq;
      const category = ['build', 'bulldoze', 'spend'].includes(String(p.category)) ? p.category : 'other';
      copies.push(`Action\t${JSON.stringify({ ...p, category, from: id, allowed: true })}\n`);
    }
    if (copies.length > 0) appendFileSync(join(sessionDir, 'to_game.log'), copies.join(''));
    return copies.length;
  };
}
