// `feverlink3 simgame`: the simulated game as a process. It runs the real Lua mod on a world loaded
// from a save and talks to its launcher only through the session folder (FEVERLINK3_SESSION_DIR),
// exactly as the game does; SIGTERM/SIGINT end it cleanly with a final status.json.
// Spec: issue 4 item 3, filelink-contract, docs/ENGINE.md.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Bot, botSeed } from './bots.ts';
import { BOTS_CHECK_MS, SimGame } from './game.ts';
import { BOTS_STOP_FILE, watchBotsStop } from './botsStop.ts';
import { LuaHost } from './luaHost.ts';
import { writeFileAtomic } from './status.ts';
import { createWorld } from './world/create.ts';
import { hashInts } from './world/rng.ts';
import { deserializeWorld, serializeWorld } from './world/save.ts';
import { SPEEDS, type Speed } from './world/types.ts';
import { defaultModDir, modSources } from '../runtime.ts';
import { desyncFromEnv } from './desync.ts';
import { simSavesDir } from '../launcher/gameSaves.ts';

export const USAGE = [
  'usage: feverlink3 simgame --session-dir DIR (--save FILE | --new-save FILE) [--seed N] [--bots N]',
  '                          [--bot-rate PER_MIN] [--throttle F] [--speed 0|1|2|4] [--mod-dir DIR]',
  '       feverlink3 simgame --make-save FILE --seed N',
  '  --seed: the world seed of --new-save / --make-save, and the bots\' seed (default: from the folder path)',
  '  --throttle F: this game gets only F × the wall time (0.5 = a game half as fast as asked)',
].join('\n');

/** Wall milliseconds between frames. */
export const FRAME_MS = 16;

interface Args {
  sessionDir?: string;
  save?: string;
  newSave?: string;
  makeSave?: string;
  seed?: number;
  bots: number;
  botRate: number;
  throttle: number;
  speed: Speed;
  /** Undefined: the mod that ships with the launcher (mod/ of the checkout, or the binary's own copy). */
  modDir?: string;
}

type Parsed = { ok: true; args: Args } | { ok: false; error: string };

const wholeNumber = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** The numeric options: which field each sets and which values it accepts. */
const NUMBERS: Readonly<Record<string, readonly [keyof Args, (n: number) => boolean]>> = {
  '--seed': ['seed', wholeNumber],
  '--bots': ['bots', (n) => wholeNumber(n) && n <= 64],
  '--bot-rate': ['botRate', (n) => n >= 0 && n <= 60_000],
  '--throttle': ['throttle', (n) => n > 0 && n <= 4],
  '--speed': ['speed', (n) => (SPEEDS as readonly number[]).includes(n)],
};
/** The path options. */
const PATHS: Readonly<Record<string, keyof Args>> = {
  '--session-dir': 'sessionDir',
  '--save': 'save',
  '--new-save': 'newSave',
  '--make-save': 'makeSave',
  '--mod-dir': 'modDir',
};

function parse(argv: readonly string[]): Parsed {
  const args: Args = { bots: 1, botRate: 30, throttle: 1, speed: 1 };
  const out = args as unknown as Record<string, unknown>;
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    const number = NUMBERS[flag];
    const path = PATHS[flag];
    if (number === undefined && path === undefined) return { ok: false, error: `unknown option ${flag}` };
    if (value === undefined) return { ok: false, error: `${flag} needs a value` };
    if (path !== undefined) {
      out[path] = path === 'modDir' ? resolve(value) : value;
      continue;
    }
    const [field, accepts] = number!;
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || !accepts(n)) {
      return { ok: false, error: `${flag}: bad value ${JSON.stringify(value)}` };
    }
    out[field] = n;
  }
  return { ok: true, args };
}

/**
 * The launcher's lifeline (adapters/launcher/gameProcess.ts): with FEVERLINK3_LIFELINE=stdin the game's stdin is
 * a pipe from its launcher that is never written; it closes when the launcher ends in any way (even SIGKILL),
 * and the game then ends as on SIGTERM. Returns a function that stops watching (and lets stdin go).
 */
function watchLifeline(onGone: () => void): () => void {
  if (process.env.FEVERLINK3_LIFELINE !== 'stdin') return () => {};
  const gone = (): void => onGone();
  process.stdin.on('end', gone);
  process.stdin.on('close', gone);
  process.stdin.on('error', gone);
  process.stdin.resume();
  return () => {
    process.stdin.off('end', gone);
    process.stdin.off('close', gone);
    process.stdin.off('error', gone);
    process.stdin.on('error', () => {});
    process.stdin.destroy();
  };
}

const say = (text: string): void => {
  process.stderr.write(`feverlink3 simgame: ${text}\n`);
};

/** Runs the command; resolves with the exit status (0 ok, 1 failure, 2 usage) once the game ends. */
export async function runSimGame(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const parsed = parse(argv);
  if (!parsed.ok) {
    say(`${parsed.error}\n${USAGE}`);
    return 2;
  }
  const a = parsed.args;
  if (a.makeSave !== undefined) {
    if (a.seed === undefined) {
      say(`--make-save needs --seed\n${USAGE}`);
      return 2;
    }
    writeFileAtomic(a.makeSave, serializeWorld(createWorld(a.seed)));
    return 0;
  }
  if (a.sessionDir === undefined || (a.save === undefined) === (a.newSave === undefined)) {
    say(`give --session-dir and one of --save / --new-save\n${USAGE}`);
    return 2;
  }
  const sessionDir = resolve(a.sessionDir);
  // Watched from here on, so a launcher gone while the mod loads ends the game too.
  let launcherGone = false;
  let onLauncherGone = (): void => {
    launcherGone = true;
  };
  const stopWatching = watchLifeline(() => onLauncherGone());
  let savePath: string;
  let world;
  if (a.newSave !== undefined) {
    savePath = resolve(a.newSave);
    world = createWorld(a.seed ?? 0);
    writeFileAtomic(savePath, serializeWorld(world));
  } else {
    savePath = resolve(a.save!);
    if (!existsSync(savePath)) {
      say(`no save at ${savePath}`);
      stopWatching();
      return 1;
    }
    const loaded = deserializeWorld(readFileSync(savePath, 'utf8'));
    if (!loaded.ok) {
      say(`${savePath}: ${loaded.reason}`);
      stopWatching();
      return 1;
    }
    world = loaded.world;
  }
  // Without --seed the bots of two games of one session differ: the seed comes from the folder path.
  const seed = a.seed ?? hashInts(...[...sessionDir].map((c) => c.charCodeAt(0)));
  const bots = Array.from({ length: a.bots }, (_, i) => new Bot({ seed: botSeed(seed, i), ratePerMin: a.botRate }));
  const game = new SimGame({
    world,
    now: () => performance.now(),
    bots,
    throttle: a.throttle,
    speed: a.speed,
    statusPath: join(sessionDir, 'status.json'),
    // The resync saves: this game's own folder (adapters/launcher/gameSaves.ts), never the shared start save's.
    savesDir: simSavesDir(sessionDir),
    log: (level, text) => say(`${level}: ${text}`),
  });
  let host: LuaHost | null = null;
  try {
    host = await LuaHost.create({
      ...(a.modDir !== undefined ? { modDir: a.modDir } : builtInMod()),
      env: { ...process.env, FEVERLINK3_SESSION_DIR: sessionDir },
      engine: game,
      log: (level, text) => say(`${level}: ${text}`),
    });
  } catch (e) {
    say(`the mod did not load: ${(e as Error).message}`);
    stopWatching();
    return 1;
  }
  game.attach(host);
  // `feverlink3 demo --desync`: one divergence injected into this game's world (adapters/simgame/desync.ts).
  const desync = desyncFromEnv(process.env, say);
  const stopWatchingBots = watchBotsStop(sessionDir, BOTS_CHECK_MS, () => {
    game.stopBots();
    say(`info: the bots stopped (${BOTS_STOP_FILE})`);
  });
  game.writeStatus(false);
  return new Promise<number>((done) => {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    let failures = 0;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      stopWatching();
      stopWatchingBots();
      game.writeStatus(true);
      host?.close();
      done(0);
    };
    const tick = (): void => {
      if (stopped) return;
      const started = performance.now();
      try {
        game.frame();
        desync?.(game.world);
      } catch (e) {
        failures += 1;
        if (failures <= 10 || failures % 1000 === 0) {
          say(`error: frame failed (${failures}): ${(e as Error).stack ?? String(e)}`);
        }
      }
      timer = setTimeout(tick, Math.max(1, FRAME_MS - (performance.now() - started)));
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    onLauncherGone = stop;
    if (launcherGone) stop();
    else tick();
  });
}

/** The mod that ships with the launcher: its files in a checkout, its sources carried in the binary. */
function builtInMod(): { modDir: string } | { modSources: Record<string, string> } {
  const sources = modSources();
  return sources ? { modSources: sources } : { modDir: defaultModDir()! };
}
