// One simulated game in the simulator: the simulated world (adapters/simgame/game.ts) running the REAL mod (mod/*.lua
// under wasmoon) on an in-memory session folder (luaMemoryFiles.ts), framed by the simulated clock. The mod's apply
// and refuse are wrapped to record what the game applied where (the apply log the invariants compare), and its
// beforeStep to record every step. With `fault: 'fork'` the first action of another player this game meets is
// applied one step late (the checker must catch it: issue 9 item 4).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ManualClock } from '../../adapters/clock.ts';
import type { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { Bot } from '../../adapters/simgame/bots.ts';
import { SimGame } from '../../adapters/simgame/game.ts';
import { LuaHost } from '../../adapters/simgame/luaHost.ts';
import { luaMemoryFiles } from '../../adapters/simgame/luaMemoryFiles.ts';
import { worldHash } from '../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../adapters/simgame/world/create.ts';

/**
 * One thing a game did: its mod applied an item at its stamp, refused (vetoed) one, or stepped out of t; its engine
 * saved or loaded a resync save (`name`), or took the host's Authority values (a money correction).
 */
export interface GameRecord {
  readonly what: 'apply' | 'refuse' | 'step' | 'save' | 'load' | 'authority';
  /** The game time when it happened. */
  readonly t: number;
  readonly from: number;
  readonly seq: number;
  /** The item's stamp (-1: none). */
  readonly stamp: number;
  /** flush | commit | action ('' for a step). */
  readonly kind: string;
  /** The engine applied it (apply only). */
  readonly ok: boolean;
  /** The save written or loaded (save, load). */
  readonly name?: string;
  /** When it happened among every game's records of this process (a load is replayed after the save it loads). */
  readonly order: number;
}

let recordOrder = 0;

/** The `order` the next record of any game will get. */
export function nextRecordOrder(): number {
  return recordOrder;
}

/** The checkout's mod. */
export const DEFAULT_MOD_DIR = resolve(import.meta.dirname, '../../mod');
const modSourcesCache = new Map<string, Record<string, string>>();
/** A mod folder's files, read once per process. */
function modSources(dir: string): Record<string, string> {
  const cached = modSourcesCache.get(dir);
  if (cached) return cached;
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).filter((name) => name.endsWith('.lua')).sort()) out[f.slice(0, -4)] = readFileSync(join(dir, f), 'utf8');
  modSourcesCache.set(dir, out);
  return out;
}

/** The Lua that wraps the mod's apply/refuse/beforeStep to report to JS (and, when told, to fork on purpose). */
const HOOKS = String.raw`
local apply = require('feverlink3_apply')
local m = feverlink3
local record = __simRecord
local fault = __simFault
__simRecord, __simFault = nil, nil
local rawApply, rawRefuse, rawBefore = apply.apply, apply.refuse, m.beforeStep
local deferred = nil
apply.apply = function(S, item, t)
  if fault and deferred == nil and item.kind == 'action' and item.from ~= S.id and item.stamp == t then
    deferred = { S = S, item = item }
    return true
  end
  local ok = rawApply(S, item, t)
  record('apply', t, item.from, item.seq, item.stamp or -1, item.kind, ok and 1 or 0)
  return ok
end
apply.refuse = function(S, item, class, detail)
  local t = -1
  pcall(function() t = S.engine.time() end)
  record('refuse', t, item.from, item.seq, item.stamp or -1, item.kind, 0)
  return rawRefuse(S, item, class, detail)
end
m.beforeStep = function(t)
  if deferred and t > deferred.item.stamp then
    local d = deferred
    deferred = false
    apply.apply(d.S, d.item, t)
  end
  rawBefore(t)
  record('step', t, -1, -1, -1, '', 0)
end
`;

export interface SimGameSetup {
  readonly fs: MemoryFs;
  readonly dir: string;
  readonly clock: ManualClock;
  readonly worldSeed: number;
  readonly botSeed: number;
  readonly botRate: number;
  readonly throttle: number;
  readonly fault: boolean;
  /** The mod's folder (default the checkout's mod/): another version of the mod can be run against the same seed. */
  readonly modDir?: string;
  /** The game's savegame folder (engine.save / engine.load of a resync round: real files, a temp folder). */
  readonly savesDir?: string;
  /** The share of the bot's build commands issued as held strict builds (plan `heldBuilds`; default none). */
  readonly heldBuilds?: number;
  /** Filler bytes in each resync save it writes (SimGame.savePaddingBytes; default the environment's, none). */
  readonly savePaddingBytes?: number;
  /** The items each resync save's world holds, by save name, shared by the session's games (worldItems). */
  readonly savedItems?: Map<string, number>;
  readonly log: (text: string) => void;
}

/** A game and its mod on the memory folder, with its records. */
export class SimulatedGame {
  readonly records: GameRecord[] = [];
  /** Items applied at their stamps so far (apply records). */
  appliedItems = 0;
  /**
   * Items its world holds: applied since the start, or since the resync save it loaded plus the items the saving
   * game's world held when it saved (the pauses and the end compare these, not `appliedItems`).
   */
  worldItems = 0;
  /** Told of every record as it is made (the online checks). */
  onRecord: ((record: GameRecord) => void) | undefined;
  game!: SimGame;
  private mod!: LuaHost;
  private readonly setup: SimGameSetup;
  private burstBot: Bot;
  /** The game's bot, if it has one (its held strict builds count for the coverage). */
  private bot: Bot | undefined;

  /** Commands its bot issued as held strict builds. */
  get heldBuildsMade(): number {
    return this.bot?.strictMade ?? 0;
  }

  private constructor(setup: SimGameSetup) {
    this.setup = setup;
    this.burstBot = new Bot({ seed: setup.botSeed ^ 0xb0b5, ratePerMin: 0 });
  }

  static async start(setup: SimGameSetup): Promise<SimulatedGame> {
    const g = new SimulatedGame(setup);
    g.game = new SimGame({
      world: createWorld(setup.worldSeed),
      now: () => setup.clock.now(),
      bots: setup.botRate > 0
        ? [(g.bot = new Bot({ seed: setup.botSeed, ratePerMin: setup.botRate, ...(setup.heldBuilds ? { strictShare: setup.heldBuilds } : {}) }))]
        : [],
      // the hop's g: a wall clock in ms since 1970 on the simulated clock (the epoch of os.time below)
      wallClock: () => 1_700_000_000_000 + setup.clock.now(),
      throttle: setup.throttle,
      statusPath: null,
      ...(setup.savesDir ? { savesDir: setup.savesDir } : {}),
      ...(setup.savePaddingBytes === undefined ? {} : { savePaddingBytes: setup.savePaddingBytes }),
      log: (level, text) => setup.log(`${level} ${text}`),
    });
    g.recordEngine();
    await g.loadMod();
    return g;
  }

  /** The engine's saves, loads and Authority corrections become records (the checks replay loads; docs/SIMULATOR.md). */
  private recordEngine(): void {
    const game = this.game;
    const { save, load, correct } = { save: game.save.bind(game), load: game.load.bind(game), correct: game.correct.bind(game) };
    const engineRecord = (what: 'save' | 'load' | 'authority', name?: string): void => {
      const record: GameRecord = { what, t: game.world.time, from: -1, seq: -1, stamp: -1, kind: '', ok: true, ...(name ? { name } : {}), order: recordOrder++ };
      this.records.push(record);
      this.onRecord?.(record);
    };
    game.save = (name) => {
      const r = save(name);
      if (r.ok) {
        this.setup.savedItems?.set(name, this.worldItems);
        engineRecord('save', name);
      }
      return r;
    };
    game.load = (name) => {
      const r = load(name);
      if (r.ok) {
        this.worldItems = this.setup.savedItems?.get(name) ?? 0;
        engineRecord('load', name);
      }
      return r;
    };
    game.correct = (values) => {
      const money = game.world.money;
      const loan = game.world.loan;
      correct(values);
      if (game.world.money !== money || game.world.loan !== loan) engineRecord('authority');
    };
  }

  /** Loads the mod into a new Lua state (its init runs) and connects it to the game. */
  private async loadMod(): Promise<void> {
    const { setup } = this;
    const mod = await LuaHost.create({
      modSources: modSources(setup.modDir ?? DEFAULT_MOD_DIR),
      env: { FEVERLINK3_SESSION_DIR: setup.dir },
      engine: this.game,
      wallMs: () => setup.clock.now(),
      files: luaMemoryFiles(setup.fs),
      epochSeconds: () => 1_700_000_000 + Math.floor(setup.clock.now() / 1000),
      log: (level, text) => setup.log(`${level} ${text}`),
    });
    mod.setGlobal('__simFault', setup.fault);
    mod.setGlobal('__simRecord', (what: GameRecord['what'], t: number, from: number, seq: number, stamp: number, kind: string, ok: number) => {
      const record: GameRecord = { what, t, from, seq, stamp, kind, ok: ok === 1, order: recordOrder++ };
      if (what !== 'step') this.records.push(record);
      if (what === 'apply') {
        this.appliedItems += 1;
        this.worldItems += 1;
      }
      this.onRecord?.(record);
    });
    mod.run(HOOKS);
    this.mod = mod;
    this.game.attach(mod);
  }

  /** The mod is loaded again in a fresh Lua state (a reload in the middle of a session). */
  async reloadMod(): Promise<void> {
    this.game.attach(null);
    this.mod.close();
    await this.loadMod();
  }

  frame(): void {
    this.game.frame();
  }

  /** `count` commands at once, as a player clicking fast. */
  burst(count: number): void {
    for (let i = 0; i < count; i++) this.game.issue(this.burstBot.decide(this.game.world, () => this.game.newKey()));
  }

  /** A speed request of the local player (0 = pause) through the mod. */
  requestSpeed(speed: number): void {
    this.mod.run(`feverlink3.requestSpeed(${speed})`);
  }

  status(): Record<string, unknown> | null {
    return this.mod.status();
  }

  /** Whether the mod stands still at a stop (its status' `stop`), asked without copying the whole status. */
  standsStill(): boolean {
    return this.mod.statusField('stop') === true;
  }

  time(): number {
    return this.game.world.time;
  }

  hash(): string {
    return worldHash(this.game.world);
  }

  close(): void {
    this.game.attach(null);
    this.mod.close();
  }
}
