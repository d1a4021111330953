// The plumbing of the tests that run the real mod in the simulated game on a session folder of their own (the resync
// and reload tests): a temp session folder and a manual clock per test, the launcher's files (to_game.log, the resync
// cursor), the game's answers (from_game.log, mod.log, the saves) and the real mod loaded into a game.
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, REAL_MOD, tempDir } from './support.ts';

/** The host's Session of a running game. */
export const RUNNING = { started: true, speed: 1, lead: 2 };
/** identity.txt of a player, Ada (id 1), in the session from its start. */
export const ADA = 'name=Ada\nid=1\nrole=player\nstart=1:0\n';

export interface ModSession {
  /** The session folder (FEVERLINK3_SESSION_DIR); the saves are in its `saves` folder. */
  readonly dir: string;
  readonly clock: ReturnType<typeof manualClock>;
  file(name: string): string;
  /** Writes identity.txt and an empty to_game.log. */
  begin(identity?: string): void;
  /** A game on createWorld(seed) saving into the session's `saves` folder, on the manual clock. */
  newGame(seed?: number): SimGame;
  /** The real mod loaded into `game` (attached); its log is dropped (the tests count its errors). */
  loadMod(game: SimGame): Promise<LuaHost>;
  /** `count` frames of `game`, the clock `wallMs` on before each. */
  frames(game: SimGame, count: number, wallMs?: number): void;
  /** Appends a line of `kind` to to_game.log, as the launcher does. */
  toGame(kind: string, payload: unknown): void;
  /** The payloads of from_game.log's lines of `kind`. */
  fromGame<T = Record<string, unknown>>(kind: string): T[];
  modLog(): string;
  /** The resync cursor naming the end of to_game.log, as the launcher writes it after a load line. */
  cursorAtEnd(): void;
  saveFile(name: string): Buffer;
  sha256(name: string): string;
  /** The time mod.log says the save `name` was made at. */
  savedAt(name: string): number;
  /** The names `game.load` or `game.save` is called with from now on. */
  callsOf(game: SimGame, method: 'load' | 'save'): string[];
  /**
   * A session under way: begin(identity), a game on createWorld(7) whose loads and saves are recorded (`callsOf`), the
   * real mod loaded into it, the host's Session RUNNING and 20 frames run.
   */
  running(identity?: string): Promise<{ game: SimGame; mod: LuaHost; loads: string[]; saves: string[] }>;
  /** One resync round on this game alone: it saves, the launcher writes the load line and its cursor, the game loads. */
  resyncRound(game: SimGame, id: number): void;
}

/** Registers a fresh session folder and clock for each test (beforeEach / afterEach); read them inside the tests. */
export function modSession(): ModSession {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof manualClock>;
  beforeEach(() => {
    tmp = tempDir();
    clock = manualClock();
  });
  afterEach(() => tmp.cleanup());

  const file = (name: string): string => join(tmp.dir, name);
  const s: ModSession = {
    get dir() {
      return tmp.dir;
    },
    get clock() {
      return clock;
    },
    file,
    begin(identity = ADA) {
      writeFileSync(file('identity.txt'), identity);
      writeFileSync(file('to_game.log'), '');
    },
    newGame: (seed = 7) => new SimGame({ world: createWorld(seed), now: clock.now, savesDir: file('saves') }),
    async loadMod(game) {
      const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now, log: () => {} });
      game.attach(host);
      return host;
    },
    frames(game, count, wallMs = 20) {
      for (let i = 0; i < count; i++) {
        clock.advance(wallMs);
        game.frame();
      }
    },
    toGame: (kind, payload) => appendFileSync(file('to_game.log'), `${kind}\t${JSON.stringify(payload)}\n`),
    fromGame: <T>(kind: string): T[] =>
      readFileSync(file('from_game.log'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${kind}\t`))
        .map((l) => JSON.parse(l.slice(kind.length + 1)) as T),
    modLog: () => readFileSync(file('mod.log'), 'utf8'),
    cursorAtEnd: () => writeFileSync(file('resync_cursor.txt'), `1:${statSync(file('to_game.log')).size}\n`),
    saveFile: (name) => readFileSync(join(tmp.dir, 'saves', name)),
    sha256: (name) => createHash('sha256').update(s.saveFile(name)).digest('hex'),
    savedAt: (name) => Number(new RegExp(`world saved as ${name} at t (\\d+)`).exec(s.modLog())?.[1]),
    callsOf(game, method) {
      const calls: string[] = [];
      const original = game[method].bind(game);
      game[method] = (name: string) => {
        calls.push(name);
        return original(name);
      };
      return calls;
    },
    async running(identity = ADA) {
      s.begin(identity);
      const game = s.newGame();
      const loads = s.callsOf(game, 'load');
      const saves = s.callsOf(game, 'save');
      const mod = await s.loadMod(game);
      s.toGame('Session', RUNNING);
      s.frames(game, 20);
      return { game, mod, loads, saves };
    },
    resyncRound(game, id) {
      const name = `feverlink3-resync-${id}`;
      s.toGame('ResyncSave', { id, name });
      s.frames(game, 3);
      s.toGame('ResyncLoad', { id, name, sha256: s.sha256(name) });
      s.cursorAtEnd();
      s.toGame('Session', RUNNING); // the host's Session after the load: the loaded world runs on
      s.frames(game, 5);
    },
  };
  return s;
}
