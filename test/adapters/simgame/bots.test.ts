// Seeded bots: the same seed, world and ticks give the same commands; they build, bulldoze, buy and
// spend, at about the rate asked, and every command they make is well formed.
import { describe, expect, it } from 'vitest';
import { Bot, botSeed } from '../../../adapters/simgame/bots.ts';
import { applyCommand } from '../../../adapters/simgame/world/apply.ts';
import { decodeCommand, type Command } from '../../../adapters/simgame/world/commands.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { step } from '../../../adapters/simgame/world/step.ts';

/** Runs a bot for `seconds` on its own world (100 ms ticks, one step per tick); returns its commands. */
function session(seed: number, rate: number, seconds: number): Command[] {
  const world = createWorld(1);
  const bot = new Bot({ seed, ratePerMin: rate });
  let n = 0;
  const out: Command[] = [];
  for (let i = 0; i < seconds * 10; i++) {
    for (const cmd of bot.tick(world, 100, () => `0:${++n}`)) {
      out.push(cmd);
      applyCommand(world, cmd);
    }
    step(world);
  }
  return out;
}

describe('bots', () => {
  it('are deterministic from their seed', () => {
    const a = session(42, 120, 60);
    expect(a.length).toBeGreaterThan(50);
    expect(session(42, 120, 60)).toEqual(a);
    expect(session(43, 120, 60)).not.toEqual(a);
  });

  it('act at about the rate asked, and never at rate 0', () => {
    const n = session(7, 30, 120).length;
    expect(n).toBeGreaterThanOrEqual(40);
    expect(n).toBeLessThanOrEqual(80);
    expect(session(7, 0, 60)).toEqual([]);
  });

  it('build, bulldoze, buy and spend, always with well-formed commands', () => {
    const cmds = session(3, 600, 60);
    const types = new Set(cmds.map((c) => c.type));
    for (const t of ['buildRoad', 'buildTrack', 'buildConstruction', 'bulldoze', 'createLine', 'buyVehicle', 'spend']) {
      expect(types).toContain(t);
    }
    for (const c of cmds) expect(decodeCommand(c)).not.toHaveProperty('ok');
  });

  it('gives each bot of a game its own seed', () => {
    expect(new Set([0, 1, 2, 3].map((i) => botSeed(5, i))).size).toBe(4);
    expect(botSeed(5, 0)).toBe(botSeed(5, 0));
  });
});
