// Commands of the simulated world: hostile input is a `decode` refusal, positions match nodes within
// 1.5 m (else split an edge, else a new node), keys resolve only to what they should (architecture §6).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCommand, findByKey } from '../../../adapters/simgame/world/apply.ts';
import { decodeCommand } from '../../../adapters/simgame/world/commands.ts';
import { createWorld, emptyWorld } from '../../../adapters/simgame/world/create.ts';
import { serializeWorld } from '../../../adapters/simgame/world/save.ts';
import type { World } from '../../../adapters/simgame/world/types.ts';

const ok = { ok: true };
const road = (w: World, from: [number, number], to: [number, number]) =>
  applyCommand(w, { type: 'buildRoad', from: { x: from[0], y: from[1] }, to: { x: to[0], y: to[1] } });

describe('command decoding', () => {
  it('never throws on any JSON value and refuses what is not a command with class decode', () => {
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      const world = emptyWorld(1);
      const before = serializeWorld(world);
      const r = applyCommand(world, v);
      if (!r.ok) expect(['decode', 'engine', 'company']).toContain(r.class);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) {
        expect(r).toMatchObject({ ok: false, class: 'decode' });
      }
      if (!r.ok) expect(serializeWorld(world)).toBe(before);
    }), { numRuns: 300 });
  });

  it('refuses bad fields by name', () => {
    const to = { x: 1, y: 1 };
    expect(decodeCommand({ type: 'buildRoad', from: { x: 0 }, to })).toMatchObject({ class: 'decode', detail: /from/ });
    expect(decodeCommand({ type: 'buildRoad', from: { x: Infinity, y: 0 }, to })).toMatchObject({ class: 'decode' });
    expect(decodeCommand({ type: 'buildRoad', from: { x: 1e9, y: 0 }, to }))
      .toMatchObject({ class: 'engine', detail: /outside/ });
    expect(decodeCommand({ type: 'spend', amount: -5 })).toMatchObject({ class: 'decode', detail: /amount/ });
    expect(decodeCommand({ type: 'spend', amount: 1.5 })).toMatchObject({ class: 'decode' });
    const stops = [{ x: 0, y: 0 }, to];
    expect(decodeCommand({ type: 'createLine', key: 's:4', stops })).toMatchObject({ class: 'decode', detail: /save/ });
    expect(decodeCommand({ type: 'createLine', key: '0:1', stops: {} }))
      .toMatchObject({ class: 'decode', detail: /stops/ });
    expect(decodeCommand({ type: 'buyVehicle', key: '0:1', line: 'x', model: 'm' }))
      .toMatchObject({ class: 'decode', detail: /line/ });
    expect(decodeCommand({ type: 'explode' })).toMatchObject({ class: 'decode', detail: /unknown command/ });
    expect(decodeCommand({ type: 'buildConstruction', file: 'a', at: to, rot: 400 }))
      .toMatchObject({ class: 'decode' });
  });
});

describe('road graph', () => {
  it('matches an end within 1.5 m to the existing node, and makes a new node beyond', () => {
    const w = emptyWorld(1);
    expect(road(w, [0, 0], [50, 0])).toEqual(ok);
    expect(road(w, [50.9, 1.1], [50, 60])).toEqual(ok); // 1.42 m from (50, 0): the same node
    expect(w.nodes.size).toBe(3);
    expect(road(w, [0, 1.6], [-40, 40])).toEqual(ok); // 1.6 m from (0, 0): a new node
    expect(w.nodes.size).toBe(5);
    expect(road(w, [0, 0], [50.5, 0.5])).toMatchObject({ ok: false, class: 'engine', detail: /exists already/ });
    expect(road(w, [0, 0], [1, 1])).toMatchObject({ ok: false, class: 'engine', detail: /same node/ });
  });

  it('splits an edge of the same kind where an end lands on it, and refuses a road along it', () => {
    const w = emptyWorld(1);
    expect(road(w, [0, 0], [100, 0])).toEqual(ok);
    expect(road(w, [40, 1], [40, 50])).toEqual(ok);
    expect(w.edges.size).toBe(3);
    expect(w.nodes.size).toBe(4);
    expect(road(w, [0, 0], [20, 0])).toMatchObject({ ok: false, detail: /along an existing edge/ });
    // A track end on a road does not split it.
    expect(applyCommand(w, { type: 'buildTrack', from: { x: 70, y: 0 }, to: { x: 70, y: -50 } })).toEqual(ok);
    expect(w.edges.size).toBe(4);
  });

  it('refuses a road it cannot pay for, with class company, and changes nothing', () => {
    const w = emptyWorld(1);
    w.money = 100;
    const before = serializeWorld(w);
    expect(road(w, [0, 0], [100, 0])).toMatchObject({ ok: false, class: 'company', detail: /not enough money/ });
    expect(serializeWorld(w)).toBe(before);
  });
});

describe('references by key', () => {
  it('resolves the save\'s s:<id> keys and refuses a key of the wrong kind instead of using it', () => {
    const w = createWorld(4);
    const line = [...w.lines.values()][0]!;
    const bus = [...w.vehicles.values()][0]!;
    expect(findByKey(w, line.key)).toMatchObject({ kind: 'line' });
    const model = 'vehicle/bus/city_bus.mdl';
    expect(applyCommand(w, { type: 'buyVehicle', key: '0:1', line: line.key, model })).toEqual(ok);
    const before = serializeWorld(w);
    // A vehicle's key named as a line: refused, never applied to whatever shares the id.
    expect(applyCommand(w, { type: 'buyVehicle', key: '0:2', line: bus.key, model: 'vehicle/bus/city_bus.mdl' }))
      .toMatchObject({ ok: false, class: 'engine', detail: /not a line/ });
    expect(applyCommand(w, { type: 'buyVehicle', key: '0:1', line: line.key, model: 'vehicle/bus/city_bus.mdl' }))
      .toMatchObject({ ok: false, detail: /bound already/ });
    expect(applyCommand(w, { type: 'buyVehicle', key: '0:3', line: line.key, model: 'vehicle/train/regional.mdl' }))
      .toMatchObject({ ok: false, detail: /track vehicle on the road line/ });
    expect(applyCommand(w, { type: 'sellVehicle', vehicle: line.key }))
      .toMatchObject({ ok: false, detail: /not a vehicle/ });
    expect(applyCommand(w, { type: 'sellVehicle', vehicle: `s:${line.id + 1000}` }))
      .toMatchObject({ ok: false, detail: /not found/ });
    expect(serializeWorld(w)).toBe(before);
    expect(applyCommand(w, { type: 'sellVehicle', vehicle: '0:1' })).toEqual(ok);
  });

  it('resolves line stops by position, refuses a stop that is no station, and keeps a used stop', () => {
    const w = emptyWorld(1);
    const build = (file: string, x: number, y: number) =>
      applyCommand(w, { type: 'buildConstruction', file, at: { x, y } });
    expect(build('station/street/bus_stop.con', 0, 0)).toEqual(ok);
    expect(build('station/street/bus_stop.con', 100, 0)).toEqual(ok);
    expect(build('depot/road_depot.con', 200, 0)).toEqual(ok);
    expect(build('depot/road_depot.con', 205, 0)).toMatchObject({ ok: false, detail: /too close/ });
    const line = (stops: [number, number][]) =>
      applyCommand(w, { type: 'createLine', key: '1:1', stops: stops.map(([x, y]) => ({ x, y })) });
    expect(line([[0, 0], [200, 0]])).toMatchObject({ ok: false, detail: /stop 2: no station/ });
    expect(line([[0, 0], [50, 0]])).toMatchObject({ ok: false, detail: /stop 2: no station/ });
    expect(line([[0.5, 0.5], [100, 1]])).toEqual(ok);
    const bulldoze = (x: number, y: number) => applyCommand(w, { type: 'bulldoze', at: { x, y } });
    expect(bulldoze(100, 0)).toMatchObject({ ok: false, detail: /stop of line 1:1/ });
    expect(bulldoze(200, 2)).toEqual(ok);
    expect(bulldoze(300, 0)).toMatchObject({ ok: false, detail: /nothing to bulldoze/ });
  });

  it('keeps money and loan within the rules', () => {
    const w = emptyWorld(1);
    const m0 = w.money;
    expect(applyCommand(w, { type: 'takeLoan', amount: 20_000 })).toEqual(ok);
    expect([w.money, w.loan]).toEqual([m0 + 20_000, 2_020_000]);
    expect(applyCommand(w, { type: 'takeLoan', amount: 15_000 })).toMatchObject({ ok: false, detail: /multiples/ });
    expect(applyCommand(w, { type: 'takeLoan', amount: 9_000_000 })).toMatchObject({ ok: false, class: 'company' });
    expect(applyCommand(w, { type: 'repayLoan', amount: 3_000_000 })).toMatchObject({ ok: false, class: 'company' });
    expect(applyCommand(w, { type: 'spend', amount: 1_000 })).toEqual(ok);
    expect(w.money).toBe(m0 + 19_000);
  });
});
