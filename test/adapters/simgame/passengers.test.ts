// Passengers in the simulated world (world/passengers.ts) and the checksum parts that cover them (spec wire-protocol
// "Resync policy" drift parts onboard, persons, stocks; "Light rounds": none of them is heavy): they flow (stations
// gather persons, vehicles carry them, towns hold visitors), stay deterministic (same seed, same world; a loaded save
// steps like the running world), and a change to each is named by its own part alone, in the mod's parts
// (checksumLanes) and in the status' parts (checksumParts).
import { describe, expect, it } from 'vitest';
import { applyCommand } from '../../../adapters/simgame/world/apply.ts';
import { checksumParts } from '../../../adapters/simgame/world/checksum.ts';
import { checksumLanes, checksumLists, HEAVY_LANES } from '../../../adapters/simgame/world/checksumLanes.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { cloneWorld, deserializeWorld, serializeWorld } from '../../../adapters/simgame/world/save.ts';
import { step } from '../../../adapters/simgame/world/step.ts';
import { VEHICLES, type World } from '../../../adapters/simgame/world/types.ts';

const PASSENGER_PARTS = ['onboard', 'persons', 'stocks'] as const;

function changedParts(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]).sort();
}

/** The parts (both views) that change when `mutate` changes the world. */
function partsChangedBy(world: World, mutate: (w: World) => void): { lanes: string[]; status: string[] } {
  const lanes = checksumLanes(world);
  const status = checksumParts(world);
  mutate(world);
  return { lanes: changedParts(lanes, checksumLanes(world)), status: changedParts(status, checksumParts(world)) };
}

function run(world: World, steps: number, seen?: { stock: number; onboard: number; visitors: number }): void {
  for (let i = 0; i < steps; i++) {
    step(world);
    if (!seen) continue;
    if ([...world.constructions.values()].some((c) => c.stock > 0)) seen.stock += 1;
    if ([...world.vehicles.values()].some((v) => v.onboard > 0)) seen.onboard += 1;
    if ([...world.towns.values()].some((t) => t.visitors > 0)) seen.visitors += 1;
  }
}

describe('simulated world: passengers', () => {
  it('flow on every seed: stations gather persons, vehicles carry them, towns hold visitors; same seed, same world', () => {
    const seen = { stock: 0, onboard: 0, visitors: 0 };
    for (const seed of [1, 2, 3, 7, 11]) {
      const a = createWorld(seed);
      const b = createWorld(seed);
      run(a, 1500, seen);
      run(b, 1500);
      expect(serializeWorld(b)).toBe(serializeWorld(a));
      for (const v of a.vehicles.values()) expect(v.onboard).toBeLessThanOrEqual(VEHICLES[v.model]!.capacity);
    }
    // coverage: each of the three kinds of passenger state held something for a good part of the run
    expect(seen.stock).toBeGreaterThan(1000);
    expect(seen.onboard).toBeGreaterThan(1000);
    expect(seen.visitors).toBeGreaterThan(1000);
  });

  it('a world loaded from its save in the middle of a run steps exactly like the running one', () => {
    const running = createWorld(5);
    run(running, 700);
    const loaded = cloneWorld(running);
    expect(serializeWorld(loaded)).toBe(serializeWorld(running));
    run(running, 800);
    run(loaded, 800);
    expect(serializeWorld(loaded)).toBe(serializeWorld(running));
    // every part but freeq, the order trace of the id stream, which a load starts afresh (world/freeIds.ts)
    const { freeq: _loadedTrace, ...loadedParts } = checksumLanes(loaded);
    const { freeq: _runningTrace, ...runningParts } = checksumLanes(running);
    expect(loadedParts).toEqual(runningParts);
    for (const part of PASSENGER_PARTS) expect(loadedParts[part]).toBeDefined();
  });

  it('a change in each is named by its own part alone, and every passenger part is a light one (hashed whole)', () => {
    const world = createWorld(4);
    run(world, 300);
    const bus = [...world.vehicles.values()][0]!;
    const stop = world.constructions.get(world.lines.values().next().value!.stops[0]!)!;
    const town = [...world.towns.values()][0]!;
    expect(partsChangedBy(world, () => { bus.onboard += 1; })).toEqual({ lanes: ['onboard'], status: ['onboard'] });
    expect(partsChangedBy(world, () => { stop.stock += 1; })).toEqual({ lanes: ['stocks'], status: ['stocks'] });
    expect(partsChangedBy(world, () => { town.visitors += 1; })).toEqual({ lanes: ['persons'], status: ['persons'] });
    const spread = checksumLists(world, true);
    for (const part of PASSENGER_PARTS) {
      expect(HEAVY_LANES as readonly string[]).not.toContain(part);
      expect(spread.parts[part]).toBe(checksumLanes(world)[part]);
      expect(spread.keys![part]!.length).toBeGreaterThan(0);
    }
  });

  it('the bots’ commands change them: a vehicle bought or sold, a station built', () => {
    const world = createWorld(4);
    run(world, 300);
    const line = world.lines.values().next().value!;
    const bought = partsChangedBy(world, (w) => {
      expect(applyCommand(w, { type: 'buyVehicle', key: '1:1', line: line.key, model: 'vehicle/bus/city_bus.mdl' })).toEqual({ ok: true });
    });
    expect(bought.lanes).toEqual(expect.arrayContaining(['onboard', 'vehicles']));
    const town = [...world.towns.values()][0]!;
    const at = { x: (town.x + 10_000) / 100, y: (town.y + 10_000) / 100 };
    const built = partsChangedBy(world, (w) => {
      expect(applyCommand(w, { type: 'buildConstruction', file: 'station/street/bus_stop.con', at })).toEqual({ ok: true });
    });
    expect(built.lanes).toEqual(expect.arrayContaining(['stocks', 'constructions']));
    const bus = [...world.vehicles.values()].find((v) => v.onboard > 0) ?? [...world.vehicles.values()][0]!;
    bus.onboard = Math.max(1, bus.onboard);
    const sold = partsChangedBy(world, (w) => {
      expect(applyCommand(w, { type: 'sellVehicle', vehicle: bus.key })).toEqual({ ok: true });
    });
    expect(sold.lanes).toContain('onboard');
  });

  it('a save without passengers (older) loads with none; a bad count is refused with a reason', () => {
    const doc = JSON.parse(serializeWorld(createWorld(1))) as { world: Record<string, Record<string, unknown>[]> };
    const older = structuredClone(doc);
    for (const c of older.world.constructions!) delete c.stock;
    for (const v of older.world.vehicles!) delete v.onboard;
    for (const t of older.world.towns!) delete t.visitors;
    const loaded = deserializeWorld(JSON.stringify(older));
    expect(loaded.ok && serializeWorld(loaded.world)).toBe(serializeWorld(createWorld(1)));
    const bad = (mutate: (w: typeof doc.world) => void): string => {
      const copy = structuredClone(doc);
      mutate(copy.world);
      const r = deserializeWorld(JSON.stringify(copy));
      return r.ok ? 'loaded' : r.reason;
    };
    expect(bad((w) => { w.constructions![0]!.stock = -1; })).toMatch(/construction.stock/);
    expect(bad((w) => { w.towns![0]!.visitors = 1.5; })).toMatch(/town.visitors/);
    expect(bad((w) => { w.vehicles![0]!.onboard = 41; })).toMatch(/more passengers than it carries/);
  });
});
