// Starting the game beside the launcher (issue 4 item 5): the simulated game (`--game sim`, a child process
// of this same binary), Transport Fever 3 from its folder (`--game-dir PATH`), or none. Either way the game
// gets the session folder through FEVERLINK3_SESSION_DIR and talks to the launcher only through it.
//
// The game ends with its launcher however the launcher ends: stop() on a normal end; a SIGTERM to every game
// still running when the process exits (a signal handled, an error the supervisor caught); and, for the
// simulated game, a lifeline: its stdin is a pipe from the launcher that nobody writes, and the game ends
// when it closes, which the kernel does when the launcher dies, even by SIGKILL. The child runs in its own
// process group (detached) so a terminal's Ctrl-C or hang-up reaches only the launcher, which decides.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LogFn } from '../../actors/ports.ts';
import { selfCommand } from '../runtime.ts';

/** Set in a child's environment: end when stdin closes (the parent's end of the pipe, gone with the parent). */
export const LIFELINE_ENV = 'FEVERLINK3_LIFELINE';

export interface SimGameOptions {
  /** The save every game starts from; default: a world made from `worldSeed` in the session folder. */
  save?: string;
  worldSeed?: number;
  /** The bots' seed (differs per player so their actions differ). */
  botSeed: number;
  bots?: number;
  botRate?: number;
  throttle?: number;
}

export type GameChoice = { kind: 'sim'; sim: SimGameOptions } | { kind: 'dir'; dir: string } | { kind: 'none' };

export interface RunningGame {
  readonly pid: number | undefined;
  /** Ends the game (SIGTERM) and waits for it to exit (at most `graceMs`, then SIGKILL). */
  stop(graceMs?: number): Promise<void>;
  readonly exited: Promise<number | null>;
}

const TF3_EXECUTABLES = ['TransportFever3.exe', 'TransportFever3', 'TransportFever3.sh'];

/** The world seed of the default save: every launcher without --save starts from the same world. */
export const DEFAULT_WORLD_SEED = 1;

/** Makes a save file from a world seed (deterministic: the same seed gives the same bytes). */
export function makeSimSave(path: string, worldSeed: number): void {
  const self = selfCommand(['simgame', '--make-save', path, '--seed', String(worldSeed)]);
  const made = spawnSync(self.command, self.args, { stdio: 'inherit' });
  if (made.status !== 0) throw new Error(`could not make the simulated world's save ${path}`);
}

/** The simulated game's command line after the program (`simgame …`; selfCommand adds the entry in a checkout). */
export function simGameArgs(sessionDir: string, save: string, o: SimGameOptions): string[] {
  // With --save, --seed seeds only the bots: one world for all, different bots per player.
  const args = ['simgame', '--session-dir', sessionDir, '--save', save, '--seed', String(o.botSeed)];
  if (o.bots !== undefined) args.push('--bots', String(o.bots));
  if (o.botRate !== undefined) args.push('--bot-rate', String(o.botRate));
  if (o.throttle !== undefined) args.push('--throttle', String(o.throttle));
  return args;
}

/** Its own process group on POSIX; on Windows `detached` would open a console window instead. */
const OWN_GROUP = process.platform !== 'win32';

/** Every game this process started that has not exited yet. */
const live = new Set<ChildProcess>();
let exitHooked = false;

/** Sends SIGTERM to every game still running; synchronous, so it works in an 'exit' handler. */
export function endGamesNow(): void {
  for (const child of live) {
    try {
      child.kill('SIGTERM');
    } catch {
      // already gone
    }
  }
}

function track(child: ChildProcess): void {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', endGamesNow);
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
}

function watch(child: ChildProcess, what: string, log: LogFn): RunningGame {
  track(child);
  const exited = new Promise<number | null>((done) => {
    child.once('exit', (code, signal) => {
      log({ msg: 'game exited', what, code, signal });
      done(code);
    });
    child.once('error', (error) => {
      log({ msg: 'game failed to start', level: 'error', what, error: String(error) });
      done(null);
    });
  });
  return {
    pid: child.pid,
    exited,
    stop: async (graceMs = 5000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts the chosen game for the session folder; undefined for `none`. */
export function startGame(choice: GameChoice, sessionDir: string, log: LogFn): RunningGame | undefined {
  const env = { ...process.env, FEVERLINK3_SESSION_DIR: sessionDir };
  if (choice.kind === 'none') return undefined;
  if (choice.kind === 'sim') {
    let save = choice.sim.save;
    if (!save) {
      save = join(sessionDir, 'start.sav');
      makeSimSave(save, choice.sim.worldSeed ?? DEFAULT_WORLD_SEED);
    }
    const args = simGameArgs(sessionDir, save, choice.sim);
    log({ msg: 'starting the simulated game', save, botSeed: choice.sim.botSeed });
    const self = selfCommand(args);
    const child = spawn(self.command, self.args, {
      env: { ...env, [LIFELINE_ENV]: 'stdin' },
      stdio: ['pipe', 'ignore', 'inherit'],
      detached: OWN_GROUP,
    });
    child.stdin?.on('error', () => {}); // never written; the game may be gone
    log({ msg: 'game started', what: 'sim', gamePid: child.pid });
    return watch(child, 'sim', log);
  }
  const exe = findGameExecutable(choice.dir);
  if (!exe) throw new Error(gameProblem(choice)!);
  log({ msg: 'starting Transport Fever 3', exe });
  const child = spawn(exe, [], { env, cwd: choice.dir, stdio: 'ignore', detached: OWN_GROUP });
  log({ msg: 'game started', what: 'tf3', gamePid: child.pid });
  return watch(child, 'tf3', log);
}

function findGameExecutable(dir: string): string | undefined {
  return TF3_EXECUTABLES.map((name) => join(dir, name)).find((path) => existsSync(path));
}

/** Why the chosen game cannot start (checked before anything else starts), or undefined. */
export function gameProblem(choice: GameChoice): string | undefined {
  if (choice.kind === 'sim' && choice.sim.save !== undefined && !existsSync(choice.sim.save)) return `no save at ${choice.sim.save}`;
  if (choice.kind !== 'dir' || findGameExecutable(choice.dir)) return undefined;
  return `no Transport Fever 3 executable in ${choice.dir} (looked for ${TF3_EXECUTABLES.join(', ')})`;
}

/** Reads `--game`, `--game-dir` and the sim options shared by host and join. */
export function gameChoice(
  values: { game?: string; 'game-dir'?: string; save?: string; bots?: string; 'bot-rate'?: string; throttle?: string },
  botSeed: number,
): GameChoice | string {
  if (values['game-dir']) return { kind: 'dir', dir: resolve(values['game-dir']) };
  const game = values.game ?? 'sim';
  if (game === 'none') return { kind: 'none' };
  if (game !== 'sim') return `--game: expected sim or none, got "${game}"`;
  const sim: SimGameOptions = { botSeed };
  if (values.save) sim.save = resolve(values.save);
  // The simulated game's own limits (adapters/simgame/main.ts), checked here so a bad value is a usage error
  // of the launcher and not a game that quietly fails to start.
  const numbers = [
    ['bots', 'bots', /^\d{1,2}$/, (n: number) => n <= 64, 'a whole number from 0 to 64'],
    ['bot-rate', 'botRate', /^\d{1,5}(\.\d+)?$/, (n: number) => n <= 60_000, 'a number from 0 to 60000'],
    ['throttle', 'throttle', /^\d(\.\d+)?$/, (n: number) => n > 0 && n <= 4, 'a number more than 0, at most 4'],
  ] as const;
  for (const [option, field, shape, accept, expected] of numbers) {
    const text = values[option];
    if (text === undefined) continue;
    const n = Number(text);
    if (!shape.test(text) || !accept(n)) return `--${option}: expected ${expected}, got ${JSON.stringify(text)}`;
    sim[field] = n;
  }
  return { kind: 'sim', sim };
}
