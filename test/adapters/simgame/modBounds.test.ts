// The simulated game with the real mod when from_game.log takes no lines (docs/ENGINE.md §7): the mod keeps its
// lines in order up to its bound, the world stands once the outbox is full, the bots' commands are dropped on
// every game alike (never applied natively), status.json says so; once the file takes lines again everything kept
// is written and the world runs on.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Bot } from '../../../adapters/simgame/bots.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { LuaHost } from '../../../adapters/simgame/luaHost.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { manualClock, ownActionEcho, REAL_MOD, tempDir } from './support.ts';

let tmp: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof manualClock>;
beforeEach(() => {
  tmp = tempDir();
  clock = manualClock();
});
afterEach(() => {
  tmp.cleanup();
});

/** Frames; `echo`: the launcher's copies of the game's own Actions (the host relays each to its origin too). */
function run(game: SimGame, frames: number, ms = 20, echo?: () => number): void {
  for (let i = 0; i < frames; i++) {
    clock.advance(ms);
    game.frame();
    echo?.();
  }
}

describe('simulated game: the mod’s outbox while from_game.log takes no lines', () => {
  it('stands when full, drops commands alike, reports it in status, then writes everything and runs on', async () => {
    writeFileSync(join(tmp.dir, 'identity.txt'), 'name=Host\nid=0\nrole=host\nstart=1:0\n');
    writeFileSync(join(tmp.dir, 'to_game.log'), 'Session\t{"started":true,"speed":1,"lead":2}\n');
    const game = new SimGame({ world: createWorld(5), now: clock.now, bots: [new Bot({ seed: 3, ratePerMin: 3_000 })] });
    const host = await LuaHost.create({ modDir: REAL_MOD, env: { FEVERLINK3_SESSION_DIR: tmp.dir }, engine: game, wallMs: clock.now });
    game.attach(host);
    const echo = ownActionEcho(tmp.dir, 0);
    try {
      run(game, 50, 20, echo);
      expect(game.time()).toBeGreaterThan(0);
      host.run("require('feverlink3_outbox').MAX_LINES = 30");
      const fromGame = join(tmp.dir, 'from_game.log');
      const kept = readFileSync(fromGame, 'utf8');
      rmSync(fromGame);
      mkdirSync(fromGame); // every append fails, root or not
      run(game, 300, 20, echo);
      expect(game.status(false)).toMatchObject({ held: true, outbox: 30 });
      const t = game.time();
      run(game, 50, 20, echo);
      expect(game.time()).toBe(t);
      const held = game.status(false);
      expect(held.droppedCommands).toBeGreaterThan(0);
      const mod = host.status()!;
      expect(game.applied + game.refused + Number(mod.queued) + held.droppedCommands).toBe(game.actions);

      rmSync(fromGame, { recursive: true });
      writeFileSync(fromGame, kept);
      run(game, 100, 20, echo);
      const after = game.status(false);
      expect(after).toMatchObject({ held: false, outbox: 0 });
      expect(game.time()).toBeGreaterThan(t);
      const actions = readFileSync(fromGame, 'utf8').split('\n').filter((l) => l.startsWith('Action\t'));
      expect(actions).toHaveLength(game.actions - after.droppedCommands);
      const seqs = actions.map((l) => (JSON.parse(l.slice(7)) as { seq: number }).seq);
      expect(seqs).toEqual(seqs.map((_, k) => k + 1));
      expect(host.errors).toBe(0);
    } finally {
      host.close();
    }
  });
});
