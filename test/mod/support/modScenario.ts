// Shared setup of the mod's scenario tests: the mod in wasmoon (Lua 5.4) or in Debian's lua5.2 (the game's Lua) with
// a TEST DOUBLE engine and real files in a temp session folder, a wall clock to advance, and the checks several
// scenarios share. A scenario file runs its blocks once per Lua (`describe.each(LUA_FLAVOURS)` + `useLua`).
import { afterEach, beforeEach, expect } from 'vitest';
import { loadGame, type LuaFlavour, type ModGame } from './luaMod.ts';

export { LUA_FLAVOURS, type LuaFlavour } from './luaMod.ts';

let flavour: LuaFlavour = '5.4';
/** The Lua the scenarios of the enclosing describe block load the mod into (set before each of its tests). */
export function useLua(lua: LuaFlavour): void {
  beforeEach(() => {
    flavour = lua;
  });
}
/** The Lua of the running scenario. */
export const currentLua = (): LuaFlavour => flavour;
import { makeSessionFolder, type LinkLine, type SessionFolder } from './sessionFolder.ts';

export const T0 = 3_000_000_000; // above 2^31: integers must stay exact
export const STEP = 200;
/** Cleanups run after each test (the games and folders a test made). */
export const disposers: (() => void)[] = [];
afterEach(() => {
  while (disposers.length) disposers.pop()!();
});

export async function setup(id = 0, start?: string): Promise<{ s: SessionFolder; g: ModGame }> {
  const s = makeSessionFolder(id, start ? { start } : {});
  const g = await loadGame({ sessionDir: s.dir, t0: T0, lua: flavour });
  disposers.push(() => g.close(), () => s.cleanup());
  expect(g.run('return _VERSION')).toBe(`Lua ${flavour}`);
  return { s, g };
}

/** Advances the wall clock, runs one frame, then up to k steps. */
export function tick(g: ModGame, wallMs: number, k = 0): number {
  g.wall.ms += wallMs;
  g.frame();
  return k > 0 ? g.step(k) : 0;
}

/** Every ordinary Action comes before any Clock whose safe passes its stamp. */
export function expectActionsBeforeClocks(lines: LinkLine[]): void {
  let promised = 0;
  for (const line of lines) {
    if (line.kind === 'Clock') promised = Math.max(promised, Number(line.payload.safe));
    if (line.kind === 'Action' && line.payload.stamp !== undefined) {
      expect(Number(line.payload.stamp), `Action ${JSON.stringify(line.payload)}`).toBeGreaterThanOrEqual(promised);
    }
  }
}

export const started = { started: true, speed: 1, lead: 2 };

/** An Action of the pause order as the host relays it (pauseSeq, pauseUpto, the flush's stamp). */
export function flushItem(stamp: number, from: number, seq: number, tag: string, pauseSeq: number, pauseUpto: number): object {
  return { stamp, seq, body: { tag }, from, allowed: true, pause: true, pauseSeq, pauseUpto };
}

/** How many of a folder's own ordinary Actions the launcher double has sent back already. */
const echoed = new WeakMap<SessionFolder, number>();

/**
 * The host's copy of the game's own ordinary Actions (the host relays every Action to its origin too, with `from`,
 * its `allowed` and the normalised category; docs/DECISIONS.md "Fixed: the originator applies its own action only
 * with the host's copy"): every Action with a stamp in from_game.log not sent back yet goes to to_game.log.
 * `allowed` decides per payload (default: allowed). Returns the copies sent.
 */
export function echoOwn(s: SessionFolder, id: number, allowed: (p: Record<string, unknown>) => boolean = () => true): Record<string, unknown>[] {
  const own = s.outOf('Action').filter((p) => p.stamp !== undefined);
  const from = echoed.get(s) ?? 0;
  const copies = own.slice(from).map((p) => {
    const category = ['build', 'bulldoze', 'spend'].includes(String(p.category)) ? p.category : 'other';
    return { ...p, category, from: id, allowed: allowed(p) };
  });
  for (const copy of copies) s.send('Action', copy);
  echoed.set(s, own.length);
  return copies;
}

/** Game `id` and its peer 2 stand still at the pause T0 + 2000 (`start`: identity.txt's, for a reload to continue). */
export async function pausedAtT0(id = 1, start?: string): Promise<{ s: SessionFolder; g: ModGame }> {
  const { s, g } = await setup(id, start);
  g.init();
  s.send('Session', { started: true, speed: 4, lead: 2 });
  s.send('PeerClock', { from: 2, t: T0, ahead: 2, safe: T0 + 400 });
  tick(g, 20);
  s.send('Session', { started: true, speed: 0, lead: 2, pauseAt: T0 + 2000 });
  s.send('PeerClock', { from: 2, t: T0 + 2000, ahead: 2, safe: T0 + 2400 });
  for (let i = 0; i < 10; i++) tick(g, 20, 20);
  return { s, g };
}
