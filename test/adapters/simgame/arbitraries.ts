// fast-check generators for the simulated world's tests: commands on a small grid around one town,
// so they often hit each other (shared nodes, splits, bulldozed stops, key collisions).
import fc from 'fast-check';
import { emptyWorld } from '../../../adapters/simgame/world/create.ts';
import type { Command } from '../../../adapters/simgame/world/commands.ts';
import type { World } from '../../../adapters/simgame/world/types.ts';

const BUS_STOP = 'station/street/bus_stop.con';
const BUS = 'vehicle/bus/city_bus.mdl';

/** A point of a 5 × 5 grid of 20 m (so commands meet), sometimes nudged by up to 2 m. */
export const point = fc.record({
  x: fc.integer({ min: -2, max: 2 }).map((v) => v * 20),
  y: fc.integer({ min: -2, max: 2 }).map((v) => v * 20),
}).chain((p) => fc.oneof(
  { weight: 4, arbitrary: fc.constant(p) },
  { weight: 1, arbitrary: fc.record({ dx: fc.integer({ min: -20, max: 20 }), dy: fc.integer({ min: -20, max: 20 }) })
    .map(({ dx, dy }) => ({ x: p.x + dx / 10, y: p.y + dy / 10 })) },
));

/** Keys of new entities (mostly `0:n` / `1:n`; now and then the save's `s:n`, which is refused). */
const key = fc.tuple(fc.constantFrom('0', '0', '0', '1', '1', 's'), fc.integer({ min: 1, max: 4 }))
  .map(([s, n]) => `${s}:${n}`);

export const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({
    type: fc.constantFrom('buildRoad' as const, 'buildTrack' as const), from: point, to: point,
  }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('bulldoze' as const), at: point }) },
  { weight: 3, arbitrary: fc.record({
    type: fc.constant('buildConstruction' as const),
    file: fc.constantFrom(
      'station/street/bus_stop.con', 'station/street/bus_stop.con', 'station/street/bus_stop.con',
      'station/rail/train_station.con', 'depot/road_depot.con', 'nope.con',
    ),
    at: point,
    rot: fc.constantFrom(0, 90, 180),
  }) },
  { weight: 2, arbitrary: fc.record({
    type: fc.constant('createLine' as const), key, stops: fc.array(point, { minLength: 2, maxLength: 4 }),
  }) },
  { weight: 3, arbitrary: fc.record({
    type: fc.constant('buyVehicle' as const), key, line: key,
    model: fc.constantFrom('vehicle/bus/city_bus.mdl', 'vehicle/bus/city_bus.mdl', 'vehicle/train/regional.mdl'),
  }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('sellVehicle' as const), vehicle: key }) },
  { weight: 1, arbitrary: fc.record({
    type: fc.constantFrom('takeLoan' as const, 'repayLoan' as const, 'spend' as const),
    amount: fc.integer({ min: 1, max: 60 }).map((n) => n * (n % 7 === 0 ? 5_000 : 10_000)),
  }) },
);

/** A step of a session: a command, some simulation steps, or a command aimed at an earlier one's position. */
export type Op = { cmd: Command } | { steps: number };
type RawOp = Op | { bulldozeRef: number } | { lineRef: number[]; key: string } | { vehicleRef: number; key: string };

const rawOp: fc.Arbitrary<RawOp> = fc.oneof(
  { weight: 6, arbitrary: command.map((cmd) => ({ cmd })) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 60 }).map((steps) => ({ steps })) },
  { weight: 1, arbitrary: fc.nat().map((bulldozeRef) => ({ bulldozeRef })) },
  { weight: 2, arbitrary: fc.record({ lineRef: fc.array(fc.nat(), { minLength: 2, maxLength: 3 }), key }) },
  { weight: 2, arbitrary: fc.record({ vehicleRef: fc.nat(), key }) },
);

/** The road and track ends the commands so far named. */
function earlierPoints(ops: readonly Op[]): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  for (const o of ops) {
    if ('cmd' in o && (o.cmd.type === 'buildRoad' || o.cmd.type === 'buildTrack')) out.push(o.cmd.from, o.cmd.to);
  }
  return out;
}

/** Turns references into plain commands (the same list always gives the same commands). */
function resolve(raw: readonly RawOp[]): Op[] {
  const ops: Op[] = [];
  for (const r of raw) {
    if ('bulldozeRef' in r) {
      const pts = earlierPoints(ops);
      if (pts.length > 0) ops.push({ cmd: { type: 'bulldoze', at: pts[r.bulldozeRef % pts.length]! } });
    } else if ('lineRef' in r) {
      const stations = ops.flatMap((o) =>
        'cmd' in o && o.cmd.type === 'buildConstruction' && o.cmd.file === BUS_STOP ? [o.cmd.at] : []);
      // Stops are the latest bus stops, taken in turn from a place the op chose.
      const recent = stations.slice(-4);
      const start = r.lineRef[0]!;
      const stops = r.lineRef.map((_, i) => recent[(start + i) % recent.length]!);
      if (recent.length > 0) ops.push({ cmd: { type: 'createLine', key: r.key, stops } });
    } else if ('vehicleRef' in r) {
      const lines = ops.flatMap((o) => ('cmd' in o && o.cmd.type === 'createLine' ? [o.cmd.key] : []));
      const line = lines[r.vehicleRef % Math.max(1, lines.length)];
      if (line !== undefined) ops.push({ cmd: { type: 'buyVehicle', key: r.key, line, model: BUS } });
    } else {
      ops.push(r);
    }
  }
  return ops;
}

export const ops = (maxLength: number): fc.Arbitrary<Op[]> => fc.array(rawOp, { maxLength, size: 'max' }).map(resolve);

/** An empty world with one town at the origin (so growth meets the commands). */
export function testWorld(seed: number): World {
  const w = emptyWorld(seed);
  w.towns.set(1, { id: 1, name: 'Origin', x: 0, y: 0, population: 800, visitors: 0 });
  w.ids.next = 2;
  return w;
}
