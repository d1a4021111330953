// Starting the game beside the launcher (issue 4 item 5): the simulated game (`--game sim`, a child process
// of this same binary), Transport Fever 3 from its folder (`--game-dir PATH`), or none. Either way the game
// gets the session folder through FEVERLINK3_SESSION_DIR and talks to the launcher only through it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LogFn } from '../../actors/ports.ts';

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

const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
const TF3_EXECUTABLES = ['TransportFever3.exe', 'TransportFever3', 'TransportFever3.sh'];

/** The world seed of the default save: every launcher without --save starts from the same world. */
export const DEFAULT_WORLD_SEED = 1;

/** Makes a save file from a world seed (deterministic: the same seed gives the same bytes). */
export function makeSimSave(path: string, worldSeed: number): void {
  const made = spawnSync(process.execPath, [BIN, 'simgame', '--make-save', path, '--seed', String(worldSeed)], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error(`could not make the simulated world's save ${path}`);
}

export function simGameArgs(sessionDir: string, save: string, o: SimGameOptions): string[] {
  // With --save, --seed seeds only the bots: one world for all, different bots per player.
  const args = [BIN, 'simgame', '--session-dir', sessionDir, '--save', save, '--seed', String(o.botSeed)];
  if (o.bots !== undefined) args.push('--bots', String(o.bots));
  if (o.botRate !== undefined) args.push('--bot-rate', String(o.botRate));
  if (o.throttle !== undefined) args.push('--throttle', String(o.throttle));
  return args;
}

function watch(child: ChildProcess, what: string, log: LogFn): RunningGame {
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
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    return watch(child, 'sim', log);
  }
  const exe = TF3_EXECUTABLES.map((name) => join(choice.dir, name)).find((path) => existsSync(path));
  if (!exe) throw new Error(`no Transport Fever 3 executable in ${choice.dir} (looked for ${TF3_EXECUTABLES.join(', ')})`);
  log({ msg: 'starting Transport Fever 3', exe });
  return watch(spawn(exe, [], { env, cwd: choice.dir, stdio: 'ignore' }), 'tf3', log);
}

/** The command-line options host and join share: the session folder, the game, the simulated game's knobs. */
export const LAUNCHER_ARG_OPTIONS = {
  password: { type: 'string' },
  'session-dir': { type: 'string' },
  game: { type: 'string' },
  'game-dir': { type: 'string' },
  save: { type: 'string' },
  bots: { type: 'string' },
  'bot-rate': { type: 'string' },
  throttle: { type: 'string' },
  verbose: { type: 'boolean', default: false },
} as const;

/** Reads `--game`, `--game-dir` and the sim options shared by host and join. */
export function gameChoice(values: { game?: string; 'game-dir'?: string; save?: string; bots?: string; 'bot-rate'?: string; throttle?: string }, botSeed: number): GameChoice | string {
  if (values['game-dir']) return { kind: 'dir', dir: resolve(values['game-dir']) };
  const game = values.game ?? 'sim';
  if (game === 'none') return { kind: 'none' };
  if (game !== 'sim') return `--game: expected sim or none, got "${game}"`;
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const sim: SimGameOptions = { botSeed };
  if (values.save) sim.save = resolve(values.save);
  const bots = num(values.bots);
  const botRate = num(values['bot-rate']);
  const throttle = num(values.throttle);
  if (bots !== undefined) sim.bots = bots;
  if (botRate !== undefined) sim.botRate = botRate;
  if (throttle !== undefined) sim.throttle = throttle;
  return { kind: 'sim', sim };
}
