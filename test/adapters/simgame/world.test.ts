// The simulated world is deterministic: the same seed and commands give the same hash, a refusal
// changes nothing, and save → load → continue equals never saving (architecture.txt §7).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../../adapters/simgame/world/apply.ts';
import { checksumParts, PART_NAMES, worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { cloneWorld, deserializeWorld, serializeWorld } from '../../../adapters/simgame/world/save.ts';
import { step } from '../../../adapters/simgame/world/step.ts';
import { STEP, type World } from '../../../adapters/simgame/world/types.ts';
import { Bot } from '../../../adapters/simgame/bots.ts';
import { ops as opList, testWorld, type Op } from './arbitraries.ts';

function run(world: World, ops: readonly Op[]): string[] {
  const results: string[] = [];
  for (const o of ops) {
    if ('cmd' in o) {
      const r = applyCommand(world, o.cmd);
      results.push(r.ok ? 'ok' : `${r.class}: ${r.detail}`);
    } else {
      for (let i = 0; i < o.steps; i++) step(world);
    }
  }
  return results;
}

/** A busy session made by a bot: many commands of every kind, with steps between them. */
function botSession(seed: number, commands: number): Op[] {
  const world = createWorld(seed);
  const bot = new Bot({ seed, ratePerMin: 60 });
  let n = 0;
  const ops: Op[] = [];
  while (ops.length < commands) {
    for (const cmd of bot.tick(world, 1_000, () => `0:${++n}`)) {
      ops.push({ cmd });
      applyCommand(world, cmd);
    }
    ops.push({ steps: 5 });
    for (let i = 0; i < 5; i++) step(world);
  }
  return ops;
}

describe('simulated world', () => {
  it('makes the same world from the same seed, and another from another seed', () => {
    expect(worldHash(createWorld(7))).toBe(worldHash(createWorld(7)));
    expect(serializeWorld(createWorld(7))).toBe(serializeWorld(createWorld(7)));
    expect(worldHash(createWorld(7))).not.toBe(worldHash(createWorld(8)));
    const w = createWorld(7);
    expect(w.towns.size).toBeGreaterThanOrEqual(3);
    expect(w.edges.size).toBeGreaterThan(0);
    expect([...w.lines.values()][0]?.key).toMatch(/^s:\d+$/);
  });

  it('gives the same hash for the same seed and command list, twice', () => {
    const ops = botSession(11, 150);
    const a = createWorld(11);
    const b = createWorld(11);
    const ra = run(a, ops);
    const rb = run(b, ops);
    expect(ra).toEqual(rb);
    expect(worldHash(a)).toBe(worldHash(b));
    expect(serializeWorld(a)).toBe(serializeWorld(b));
    // The session really did things, and refused some.
    expect(ra.filter((r) => r === 'ok').length).toBeGreaterThan(30);
    expect(ra.some((r) => r !== 'ok')).toBe(true);
    expect(worldHash(a)).not.toBe(worldHash(createWorld(11)));
  });

  it('property: random command sequences applied to two copies give equal hashes', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), opList(60), (seed, ops) => {
      const a = testWorld(seed);
      const b = cloneWorld(a);
      expect(run(a, ops)).toEqual(run(b, ops));
      expect(worldHash(a)).toBe(worldHash(b));
    }), { numRuns: 150 });
  });

  it('property: save → load → continue gives the same hash as never saving', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), opList(60), fc.nat(), (seed, ops, cut) => {
      const at = cut % (ops.length + 1);
      const kept = testWorld(seed);
      const r1 = run(kept, ops);
      let saved = testWorld(seed);
      const r2 = run(saved, ops.slice(0, at));
      const loaded = deserializeWorld(serializeWorld(saved));
      expect(loaded.ok).toBe(true);
      saved = loaded.ok ? loaded.world : saved;
      r2.push(...run(saved, ops.slice(at)));
      expect(r2).toEqual(r1);
      expect(worldHash(saved)).toBe(worldHash(kept));
    }), { numRuns: 150 });
  });

  it('save → load → continue equals never saving in a long bot session too', () => {
    const ops = botSession(5, 200);
    const kept = createWorld(5);
    run(kept, ops);
    let saved = createWorld(5);
    run(saved, ops.slice(0, 120));
    saved = cloneWorld(saved);
    run(saved, ops.slice(120));
    expect(worldHash(saved)).toBe(worldHash(kept));
  });

  it('property: a refusal changes nothing and is the same on a copy', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), opList(40), (seed, ops) => {
      const world = testWorld(seed);
      for (const o of ops) {
        if (!('cmd' in o)) {
          run(world, [o]);
          continue;
        }
        const before = serializeWorld(world);
        const copy = cloneWorld(world);
        const r = applyCommand(world, o.cmd);
        const again = applyCommand(copy, o.cmd);
        expect(again).toEqual(r);
        if (!r.ok) {
          expect(serializeWorld(world)).toBe(before);
          expect(['decode', 'engine', 'company']).toContain(r.class);
        }
      }
    }), { numRuns: 150 });
  });

  it('steps 200 game-ms at a time; vehicles earn, towns grow, maintenance is booked', () => {
    const w = createWorld(3);
    const money0 = w.money;
    const pop0 = [...w.towns.values()].reduce((s, t) => s + t.population, 0);
    step(w);
    expect(w.time).toBe(STEP);
    for (let i = 0; i < 999; i++) step(w);
    expect(w.time).toBe(1000 * STEP);
    const pop = [...w.towns.values()].reduce((s, t) => s + t.population, 0);
    expect(pop).toBeGreaterThan(pop0);
    expect(w.money).not.toBe(money0);
    const bus = [...w.vehicles.values()][0]!;
    expect(bus.leg + bus.progress).toBeGreaterThan(0);
  });

  it('names every checksum part, and a part changes only with what it covers', () => {
    const w = createWorld(9);
    const before = checksumParts(w);
    expect(Object.keys(before).sort()).toEqual([...PART_NAMES].sort());
    expect(applyCommand(w, { type: 'takeLoan', amount: 10_000 })).toEqual({ ok: true });
    const after = checksumParts(w);
    const changed = PART_NAMES.filter((n) => before[n] !== after[n]);
    expect(changed.sort()).toEqual(['loan', 'money']);
  });

  it('refuses a damaged or foreign save with a reason, never an exception', () => {
    const good = JSON.parse(serializeWorld(createWorld(1))) as { world: Record<string, unknown> };
    const bad = (mutate: (w: Record<string, unknown>) => void): string => {
      const copy = structuredClone(good);
      mutate(copy.world);
      const r = deserializeWorld(JSON.stringify(copy));
      expect(r.ok).toBe(false);
      return r.ok ? '' : r.reason;
    };
    expect(deserializeWorld('{').ok).toBe(false);
    expect(deserializeWorld('null').ok).toBe(false);
    expect(deserializeWorld('{"format":"x"}').ok).toBe(false);
    expect(bad((w) => { w.time = 123; })).toMatch(/multiple/);
    expect(bad((w) => { (w.edges as { a: number }[])[0]!.a = 99_999; })).toMatch(/edge/);
    expect(bad((w) => { (w.ids as { free: number[] }).free = [1]; })).toMatch(/ids.free/);
    expect(bad((w) => { (w.lines as { key: string }[])[0]!.key = 'nokey'; })).toMatch(/key/);
    expect(bad((w) => { (w.vehicles as { line: number }[])[0]!.line = 1; })).toMatch(/vehicle/);
    fc.assert(fc.property(fc.json(), (text) => {
      expect(() => deserializeWorld(text)).not.toThrow();
    }), { numRuns: 200 });
  });
});
