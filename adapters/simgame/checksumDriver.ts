// A driver of the mod's checksum module alone (mod/feverlink3_checksum.lua) over a simulated game, without the
// session controller: requests go straight to it, each step calls its beforeStep(t) and then steps the world, its
// reports are collected in memory, and its detail dump is asked for directly (the way the resync round asks at a
// repair). For benches (bench/checksumChunks.bench.ts) and tests that need every step in hand; the session-level path
// (to_game.log → report in from_game.log) is the same module reached through feverlink3_inbox / feverlink3_session.
import { SimGame } from './game.ts';
import { LuaHost } from './luaHost.ts';
import { step } from './world/step.ts';
import type { World } from './world/types.ts';

/** A ChecksumReport 33 as the module queued it. */
export interface DrivenReport {
  n: number;
  time: number;
  parts: Record<string, string | number>;
  authority?: Record<string, number>;
  cost?: { entityNs: number; stepMaxUs: number; chunk: number };
}

export interface ChecksumDriverOptions {
  readonly world: World;
  /** The mod's folder (`<repo>/mod`). */
  readonly modDir: string;
  /** The session folder the dump is written to (FEVERLINK3_SESSION_DIR; no identity.txt needed). */
  readonly sessionDir: string;
  /** This game's player id (the dump's name). Default 0. */
  readonly id?: number;
  /** The wall clock the module measures chunk costs on (os.clock). Default performance.now. */
  readonly wallMs?: () => number;
}

const HARNESS = String.raw`
local c = require('feverlink3_checksum')
local json = require('feverlink3_json')
local log = require('feverlink3_log')
local S = { engine = engine, id = __fl3driverId, pace = { stop = false }, outbox = { lines = {} } }
__fl3driverId = nil
function S.outbox:add(kind, p) self.lines[#self.lines + 1] = json.encode(p) return true end
__fl3driver = {
  request = function(text) local err = c.request(S, json.decode(text)) log.flush() return err end,
  beforeStep = function(t) c.beforeStep(S, t) log.flush() end,
  standing = function(t) S.pace.stop = true c.standing(S, t) S.pace.stop = false log.flush() end,
  take = function() local l = S.outbox.lines S.outbox.lines = {} return table.concat(l, '\n') end,
  dumpText = function(sync) return c.dumpText(S, sync, engine.time()) end,
  dump = function(sync) local name = c.dump(S, sync) log.flush() return name end,
}
`;

export class ChecksumDriver {
  readonly game: SimGame;
  readonly host: LuaHost;
  private readonly collected: DrivenReport[] = [];

  private constructor(game: SimGame, host: LuaHost) {
    this.game = game;
    this.host = host;
  }

  static async create(options: ChecksumDriverOptions): Promise<ChecksumDriver> {
    const game = new SimGame({ world: options.world, now: () => 0, savesDir: options.sessionDir, log: () => undefined });
    const host = await LuaHost.create({
      modDir: options.modDir,
      env: { FEVERLINK3_SESSION_DIR: options.sessionDir },
      engine: game,
      wallMs: options.wallMs ?? (() => performance.now()),
      log: () => undefined,
    });
    host.setGlobal('__fl3driverId', options.id ?? 0);
    host.run(HARNESS);
    return new ChecksumDriver(game, host);
  }

  /** A ChecksumRequest 15 payload; the module's complaint, if any. */
  request(payload: Record<string, unknown>): string | undefined {
    const r = this.host.run(`return __fl3driver.request(${luaString(JSON.stringify(payload))})`);
    return typeof r === 'string' ? r : undefined;
  }

  /** Runs `count` steps: beforeStep(t), then the world's step t → t + STEP. */
  step(count = 1): void {
    for (let i = 0; i < count; i++) {
      this.host.run(`__fl3driver.beforeStep(${this.game.world.time})`);
      step(this.game.world);
    }
  }

  /** The world stands still at its time: the paused rounds due are read. */
  standing(): void {
    this.host.run(`__fl3driver.standing(${this.game.world.time})`);
  }

  /** Every report so far, oldest first. */
  reports(): DrivenReport[] {
    const text = this.host.run('return __fl3driver.take()');
    if (typeof text === 'string' && text !== '') for (const line of text.split('\n')) this.collected.push(JSON.parse(line) as DrivenReport);
    return [...this.collected];
  }

  /** The detail dump's text at repair `sync`, the world as it stands. */
  dumpText(sync: number): string {
    return String(this.host.run(`return __fl3driver.dumpText(${sync})`));
  }

  /** Writes the detail dump of repair `sync` to the session folder; its file name, or null. */
  dump(sync: number): string | null {
    const r = this.host.run(`return __fl3driver.dump(${sync})`);
    return typeof r === 'string' ? r : null;
  }

  close(): void {
    this.host.close();
  }
}

/** A Lua string literal of `text` (long brackets would break on `]]`; decimal escapes never do). */
function luaString(text: string): string {
  return `"${[...Buffer.from(text, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${b}`)).join('')}"`;
}
