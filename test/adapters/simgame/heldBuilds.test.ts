// The simulated game's held strict builds (issue 9 item 5; docs/ENGINE.md engine.dryRun, engine.wallClock): a bot
// issues a share of its build commands strict, drawn from a stream of its own (the commands stay what they were);
// the dry run applies the command to a copy of the world and changes nothing.
import { describe, expect, it } from 'vitest';
import { Bot, STRICT_TYPES } from '../../../adapters/simgame/bots.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';

describe('held strict builds in the simulated game', () => {
  it('a bot marks a share of its build commands strict without changing its commands', () => {
    const plain = new Bot({ seed: 7, ratePerMin: 600 });
    const strict = new Bot({ seed: 7, ratePerMin: 600, strictShare: 0.5 });
    const world = createWorld(1);
    let key = 0;
    const a = plain.tick(world, 60_000, () => `k:${++key}`);
    key = 0;
    const b = strict.tick(world, 60_000, () => `k:${++key}`);
    expect(b).toEqual(a);
    const marks = b.map((cmd) => strict.strict(cmd));
    expect(marks.some(Boolean)).toBe(true);
    b.forEach((cmd, i) => {
      if (!STRICT_TYPES.has(cmd.type)) expect(marks[i]).toBe(false);
    });
    expect(a.every((cmd) => plain.strict(cmd) === false)).toBe(true);
  });

  it('dryRun answers like apply and leaves the world as it was', () => {
    const game = new SimGame({ world: createWorld(2), now: () => 0, statusPath: null });
    const before = worldHash(game.world);
    const road = { type: 'buildRoad', from: { x: 0, y: 0 }, to: { x: 50, y: 0 } };
    expect(game.dryRun(road)).toEqual({ ok: true });
    expect(game.dryRun({ type: 'nothing' })).toMatchObject({ ok: false, class: 'decode' });
    expect(worldHash(game.world)).toBe(before);
    expect(game.applied).toBe(0);
    expect(game.wallClock).toBeUndefined();
    const timed = new SimGame({ world: createWorld(2), now: () => 0, statusPath: null, wallClock: () => 1_700_000_000_000 });
    expect(timed.wallClock?.()).toBe(1_700_000_000_000);
  });
});
