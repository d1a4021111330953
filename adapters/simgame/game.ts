// The simulated game's loop: frames on wall time; at speed s a frame adds s × wall-ms of game time
// and executes whole 200 game-ms steps, calling feverlink3.beforeStep(t) before each, never at or
// past the limit. Bots issue commands through feverlink3.command. Implements the `engine` table.
// Spec: docs/ENGINE.md §2–3, lockstep.md "Units", filelink-contract (status.json).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Bot } from './bots.ts';
import type { EngineBackend, ModHooks } from './luaHost.ts';
import { writeStatus, type GameStatus } from './status.ts';
import { applyCommand } from './world/apply.ts';
import { worldHash } from './world/checksum.ts';
import { authorityValues, checksumLanes, checksumLists, correctAuthority, readChunk } from './world/checksumLanes.ts';
import { CATEGORY, type ApplyResult, type Command } from './world/commands.ts';
import { paddingFromEnv, readSaveFile, writeSaveFile } from './world/saveFile.ts';
import { step } from './world/step.ts';
import { SPEEDS, STEP, type Speed, type World } from './world/types.ts';

/** A frame longer than this (a stalled process) counts as this long: the game never races to catch up. */
export const MAX_FRAME_MS = 250;
/** status.json is rewritten about this often (wall ms). */
export const STATUS_EVERY_MS = 250;
/** How often (wall ms) the bots ask the mod whether the session has started. */
export const BOTS_CHECK_MS = 250;
/** Entity lists of checksum rounds kept at once (rounds being read, a dump); beyond it the oldest is dropped. */
export const MAX_CHECKSUM_LISTS = 8;
/** A name engine.save / engine.load accepts: a plain file name in the saves folder. */
const SAVE_NAME = /^[A-Za-z0-9_][A-Za-z0-9 _.-]{0,99}$/;

export interface SimGameOptions {
  readonly world: World;
  /** Wall clock in milliseconds (monotonic); tests pass a manual one. */
  readonly now: () => number;
  readonly bots?: readonly Bot[];
  /** The share of wall time this game gets (0.5: a game half as fast as asked). Default 1. */
  readonly throttle?: number;
  /** The speed the game runs at until engine.setSpeed says otherwise. Default 1. */
  readonly speed?: Speed;
  /** status.json path, or null for none. */
  readonly statusPath?: string | null;
  /** Folder of engine.save / engine.load. */
  readonly savesDir?: string;
  /** Filler bytes after the world in every save (benches: a big resync); default FEVERLINK3_SIM_SAVE_PADDING or 0. */
  readonly savePaddingBytes?: number;
  readonly log?: (level: 'info' | 'warn' | 'error', text: string) => void;
  /** The game's wall clock, ms since 1970 (engine.wallClock, the hop's `g`); none without it. */
  readonly wallClock?: () => number;
}

/** The game: the world, its clock and limit, the bots, and the mod's hooks. */
export class SimGame implements EngineBackend {
  world: World;
  private mod: ModHooks | null = null;
  private readonly bots: readonly Bot[];
  private readonly now: () => number;
  private readonly throttle: number;
  private readonly statusPath: string | null;
  private readonly savesDir: string;
  private readonly savePaddingBytes: number;
  private readonly log: NonNullable<SimGameOptions['log']>;
  /** engine.wallClock: ms since 1970, only when the options give a clock (the hop's `g`). */
  readonly wallClock?: () => number;
  private wanted: Speed;
  private limit: number | null = null;
  private acc = 0;
  private lastFrame: number | null = null;
  private lastStatus = -Infinity;
  private seq = 0;
  private botsCheck: { at: number; may: boolean } | null = null;
  private botsStopped = false;
  /** The entity lists of the spread checksum rounds being read, by handle. */
  private readonly lists = new Map<number, Record<string, number[]>>();
  private listSeq = 0;
  /** Counters for status.json. */
  applied = 0;
  refused = 0;
  actions = 0;
  steps = 0;
  /** The last notices of engine.notify, newest last. */
  readonly notices: { level: string; text: string }[] = [];

  constructor(options: SimGameOptions) {
    this.world = options.world;
    this.now = options.now;
    this.bots = options.bots ?? [];
    this.throttle = options.throttle ?? 1;
    this.wanted = options.speed ?? 1;
    this.statusPath = options.statusPath ?? null;
    this.savesDir = options.savesDir ?? '.';
    this.savePaddingBytes = options.savePaddingBytes ?? paddingFromEnv();
    this.log = options.log ?? ((level, text) => console.error(`[simgame ${level}] ${text}`));
    if (options.wallClock !== undefined) this.wallClock = options.wallClock;
  }

  /**
   * engine.dryRun (a held strict build's dry run on a peer): the command applied to a copy of the world, which is
   * thrown away; this world, its counters and its ids stay as they were.
   */
  dryRun(cmd: unknown): ApplyResult {
    return applyCommand(structuredClone(this.world), cmd);
  }

  /** Stops (or restarts) the bots: the players stop clicking (a simulator's session winding down). */
  stopBots(stopped = true): void {
    this.botsStopped = stopped;
  }

  /** Connects the mod (after it was loaded with this game as its engine). */
  attach(mod: ModHooks | null): void {
    this.mod = mod;
    this.botsCheck = null;
  }

  // ---- the engine table (ENGINE.md §2) ----

  time(): number {
    return this.world.time;
  }

  /** May the next step run? Only while the world stands before the limit. */
  canStep(): boolean {
    return this.limit === null || this.world.time < this.limit;
  }

  speed(): number {
    return this.canStep() ? this.wanted : 0;
  }

  setSpeed(speed: number): void {
    if ((SPEEDS as readonly number[]).includes(speed)) this.wanted = speed as Speed;
    else this.log('warn', `engine.setSpeed(${speed}) ignored: speeds are ${SPEEDS.join(', ')}`);
  }

  setLimit(limit: number | null): void {
    if (limit === null || Number.isFinite(limit)) this.limit = limit;
    else this.log('warn', `engine.setLimit(${limit}) ignored`);
  }

  apply(cmd: unknown): ApplyResult {
    const r = applyCommand(this.world, cmd);
    if (r.ok) this.applied += 1;
    else this.refused += 1;
    return r;
  }

  /** The spec's parts of a checksum round (world/checksumLanes.ts). */
  checksum(): Record<string, string> {
    return checksumLanes(this.world);
  }

  /**
   * A spread round's start: the light lanes, ids and freeq hashed whole, and each heavy lane's entity list, kept here
   * under a handle (at most MAX_CHECKSUM_LISTS; the oldest is dropped) so that only counts and chunk sums cross into
   * Lua (a Lua table crossing wasmoon costs far more than the reading itself).
   */
  checksumLists(withKeys: boolean): { parts: Record<string, string>; lanes: Record<string, number>; list: number; keys?: Record<string, string[]> } {
    const taken = checksumLists(this.world, withKeys);
    const list = ++this.listSeq;
    this.lists.set(list, taken.lanes);
    while (this.lists.size > MAX_CHECKSUM_LISTS) this.lists.delete(this.lists.keys().next().value!);
    const lanes = Object.fromEntries(Object.entries(taken.lanes).map(([lane, ids]) => [lane, ids.length]));
    return { parts: taken.parts, lanes, list, ...(taken.keys ? { keys: taken.keys } : {}) };
  }

  /** Entities from..from+count-1 (1-based) of a kept list's lane, read as the world stands (world/checksumLanes.ts). */
  checksumRead(list: number, lane: string, from: number, count: number, withKeys: boolean): ReturnType<typeof readChunk> {
    const ids = this.lists.get(list)?.[lane];
    if (ids === undefined) throw new Error(`checksumRead: no list ${list} with lane ${lane}`);
    return readChunk(this.world, lane, ids.slice(Math.max(0, from - 1), Math.max(0, from - 1 + count)), withKeys);
  }

  /** Forgets a kept list. */
  checksumDone(list: number): void {
    this.lists.delete(list);
  }

  /** The Authority values (money, loan) the host corrects to. */
  authority(): Record<string, number> {
    return authorityValues(this.world);
  }

  /** Applies the host's Authority values (spec Authority 16). */
  correct(values: Record<string, number>): void {
    const changed = correctAuthority(this.world, values);
    if (changed.length > 0) this.log('info', `authority applied: ${changed.map((k) => `${k}=${values[k]}`).join(', ')}`);
  }

  save(name: string): { ok: boolean; detail: string } {
    if (!SAVE_NAME.test(name)) return { ok: false, detail: `bad save name ${JSON.stringify(name)}` };
    const path = join(this.savesDir, name);
    try {
      mkdirSync(this.savesDir, { recursive: true });
      writeSaveFile(path, this.world, this.savePaddingBytes);
      // Counted from the saved world on, as a game that loads it counts from its load (see `load`): a host that does
      // not reload (FEVERLINK3_HOST_RELOAD=0) and the players that load its save then count alike.
      this.applied = 0;
      this.refused = 0;
      return { ok: true, detail: path };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  load(name: string): { ok: boolean; detail: string } {
    if (!SAVE_NAME.test(name)) return { ok: false, detail: `bad save name ${JSON.stringify(name)}` };
    const path = join(this.savesDir, name);
    const r = readSaveFile(path);
    if (!r.ok) return { ok: false, detail: `${path}: ${r.reason}` };
    this.world = r.world;
    this.acc = 0;
    this.lists.clear(); // the lists name the old world's entities
    // The verdicts counted are this world's: a game that joined late and one that ran from the start, once both
    // loaded the same save, have decided the same commands since (the demo compares these counts).
    this.applied = 0;
    this.refused = 0;
    return { ok: true, detail: path };
  }

  notify(level: string, text: string): void {
    this.notices.push({ level, text });
    if (this.notices.length > 50) this.notices.shift();
    this.log(level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'info', `notice: ${text}`);
  }

  // ---- commands of the local player (the bots) ----

  /** A new key `<sender>:<seq>`; the sequence continues above every key of this sender the world holds. */
  newKey(): string {
    const id = this.mod?.status()?.id;
    const named = typeof id === 'number' || (typeof id === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(id));
    const sender = named ? String(id) : 'solo';
    for (const entity of [...this.world.lines.values(), ...this.world.vehicles.values()]) {
      const [s, n] = entity.key.split(':');
      if (s === sender) this.seq = Math.max(this.seq, Number(n));
    }
    this.seq += 1;
    return `${sender}:${this.seq}`;
  }

  /**
   * Players wait in the lobby: in a session that has not started, the bots do nothing (an action sent
   * before the others joined would reach nobody). Solo (the mod inactive or absent) they always act.
   */
  private botsMayAct(): boolean {
    // the mod's status is a whole table crossing from Lua: asked at most every BOTS_CHECK_MS, not every frame
    const now = this.now();
    if (this.botsCheck !== null && now - this.botsCheck.at < BOTS_CHECK_MS && now >= this.botsCheck.at) return this.botsCheck.may;
    const mod = this.mod?.status() ?? null;
    const may = mod?.active !== true || mod.started === true;
    this.botsCheck = { at: now, may };
    return may;
  }

  /**
   * A local command: offered to the mod first; applied now only when the mod does not take it. strict: a held strict
   * build (the construction tools and the bulldozer in the game: the mod holds it, peers dry-run it).
   */
  issue(cmd: Command, strict = false): void {
    if (this.mod?.command(cmd, CATEGORY[cmd.type], strict) === true) {
      this.actions += 1;
      return;
    }
    this.apply(cmd);
  }

  // ---- the loop ----

  /** One frame at the current wall time: the mod's frame, the bots, then the steps that are due. */
  frame(): void {
    const now = this.now();
    const wall = this.lastFrame === null ? 0 : Math.min(MAX_FRAME_MS, Math.max(0, now - this.lastFrame));
    this.lastFrame = now;
    const dt = wall * this.throttle;
    if (this.bots.length > 0 && !this.botsStopped && this.botsMayAct()) {
      for (const bot of this.bots) {
        for (const cmd of bot.tick(this.world, dt, () => this.newKey())) this.issue(cmd, bot.strict(cmd));
      }
    }
    this.mod?.frame();
    this.acc += dt * this.wanted;
    while (this.acc >= STEP) {
      if (!this.canStep()) {
        this.acc = 0;
        break;
      }
      this.mod?.beforeStep(this.world.time);
      // beforeStep applies commands only; it never moves time, so the step starts where it said.
      step(this.world);
      this.steps += 1;
      this.acc -= STEP;
    }
    if (this.statusPath !== null && now - this.lastStatus >= STATUS_EVERY_MS) this.writeStatus(false);
  }

  status(final: boolean): GameStatus {
    const mod = this.mod?.status() ?? null;
    const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    return {
      t: this.world.time,
      speed: this.speed(),
      applied: this.applied,
      refused: this.refused,
      late: count(mod?.late),
      worldHash: worldHash(this.world),
      actions: this.actions,
      wanted: this.wanted,
      limit: this.limit,
      steps: this.steps,
      modErrors: (this.mod as { errors?: number } | null)?.errors ?? 0,
      active: mod?.active === true,
      pause: count(mod?.pause),
      queued: count(mod?.queued),
      margin: typeof mod?.margin === 'number' ? mod.margin : null,
      outbox: count(mod?.outbox),
      outboxDropped: count(mod?.outboxDropped),
      held: mod?.held === true,
      droppedCommands: count(mod?.dropped),
      final,
    };
  }

  /** Writes status.json now (atomic replace). */
  writeStatus(final: boolean): void {
    if (this.statusPath === null) return;
    this.lastStatus = this.now();
    try {
      writeStatus(this.statusPath, this.status(final));
    } catch (e) {
      this.log('warn', `status.json not written: ${(e as Error).message}`);
    }
  }
}
