// Seeded bots for the simulated game: each, given the world and its own seed, issues a command now
// and then (build, bulldoze, buy, spend). The same seed, world and ticks give the same commands.
// Issue 4 item 3; the commands are those of world/commands.ts.
import type { Command, WirePoint } from './world/commands.ts';
import { hashInts, Rng } from './world/rng.ts';
import { CONSTRUCTIONS, LOAN_UNIT, VEHICLES, type Point, type World } from './world/types.ts';

export interface BotOptions {
  /** The bot's own seed (not the world's). */
  readonly seed: number;
  /** Commands per minute of the time given to tick(); 0 = never. */
  readonly ratePerMin: number;
  /**
   * The share (0..1) of its build commands (roads, tracks, constructions, bulldozing: the strict tools of
   * architecture.txt) issued as held strict builds; drawn from a stream of its own, so the commands stay the same.
   */
  readonly strictShare?: number;
}

/** The commands the game's strict mode holds (construction tools and the bulldozer). */
export const STRICT_TYPES: ReadonlySet<Command['type']> = new Set(['buildRoad', 'buildTrack', 'buildConstruction', 'bulldoze']);

type Action = 'road' | 'track' | 'construction' | 'line' | 'vehicle' | 'sell' | 'bulldoze' | 'spend' | 'loan';
const WEIGHTS: readonly (readonly [Action, number])[] = [
  ['road', 25], ['track', 8], ['construction', 15], ['line', 10], ['vehicle', 15],
  ['sell', 4], ['bulldoze', 10], ['spend', 5], ['loan', 8],
];
const TOTAL = WEIGHTS.reduce((s, [, w]) => s + w, 0);

/** Centimetres to metres as the wire carries them. */
const m = (p: Point): WirePoint => ({ x: p.x / 100, y: p.y / 100 });

/** A bot: a seeded source of commands. Its state is its generator and the time to its next command. */
export class Bot {
  readonly rng: Rng;
  readonly ratePerMin: number;
  private wait: number;
  private readonly strictShare: number;
  private readonly strictRng: Rng;

  constructor(options: BotOptions) {
    this.rng = new Rng(hashInts(options.seed >>> 0, 0xb07));
    this.ratePerMin = options.ratePerMin;
    this.strictShare = options.strictShare ?? 0;
    this.strictRng = new Rng(hashInts(options.seed >>> 0, 0xb11d));
    this.wait = this.interval();
  }

  private interval(): number {
    if (!(this.ratePerMin > 0)) return Infinity;
    const mean = 60_000 / this.ratePerMin;
    return Math.max(1, Math.round(mean * (0.5 + this.rng.nextU32() / 0x1_0000_0000)));
  }

  /**
   * Lets `ms` of time pass; returns the commands that fell due in it (usually none or one).
   * `newKey` names an entity the command creates (`<sender>:<seq>`).
   */
  tick(world: World, ms: number, newKey: () => string): Command[] {
    const out: Command[] = [];
    this.wait -= ms;
    while (this.wait <= 0 && out.length < 8) {
      out.push(this.decide(world, newKey));
      this.wait += this.interval();
    }
    if (this.wait <= 0) this.wait = this.interval();
    return out;
  }

  /** Whether `cmd` goes out as a held strict build (a build command, with the chance of `strictShare`). */
  strict(cmd: Command): boolean {
    if (!(this.strictShare > 0) || !STRICT_TYPES.has(cmd.type)) return false;
    const held = this.strictRng.chance(this.strictShare);
    if (held) this.strictMade += 1;
    return held;
  }

  /** Commands this bot issued as held strict builds (the simulator's coverage). */
  strictMade = 0;

  /** One command for the world as it stands. */
  decide(world: World, newKey: () => string): Command {
    let roll = this.rng.int(TOTAL);
    let action: Action = 'road';
    for (const [a, w] of WEIGHTS) {
      if (roll < w) {
        action = a;
        break;
      }
      roll -= w;
    }
    return this.make(action, world, newKey) ?? this.edge(world, 'buildRoad');
  }

  private anchor(world: World): Point {
    const nodes = [...world.nodes.values()];
    if (nodes.length > 0 && this.rng.chance(0.8)) return this.rng.pick(nodes);
    const towns = [...world.towns.values()];
    return towns.length > 0 ? this.rng.pick(towns) : { x: 0, y: 0 };
  }

  /** A node within 300 m of `p` (another end for a road), else a point near it. */
  private anchorNear(world: World, p: Point): Point {
    const close = [...world.nodes.values()]
      .filter((n) => Math.abs(n.x - p.x) <= 30_000 && Math.abs(n.y - p.y) <= 30_000);
    return close.length > 0 ? this.rng.pick(close) : this.near(p, 80);
  }

  private near(p: Point, metres: number): Point {
    return { x: p.x + this.rng.range(-metres, metres) * 100, y: p.y + this.rng.range(-metres, metres) * 100 };
  }

  private edge(world: World, type: 'buildRoad' | 'buildTrack'): Command {
    const from = this.anchor(world);
    const to = this.rng.chance(0.3) ? this.anchorNear(world, from) : this.near(from, 80);
    return { type, from: m(from), to: m(to) };
  }

  private make(action: Action, world: World, newKey: () => string): Command | null {
    const rng = this.rng;
    switch (action) {
      case 'road':
        return this.edge(world, 'buildRoad');
      case 'track':
        return this.edge(world, 'buildTrack');
      case 'construction': {
        const file = rng.pick(Object.keys(CONSTRUCTIONS));
        const towns = [...world.towns.values()];
        const base = towns.length > 0 ? rng.pick(towns) : this.anchor(world);
        return { type: 'buildConstruction', file, at: m(this.near(base, 300)), rot: rng.int(4) * 90 };
      }
      case 'line': {
        const kind = rng.chance(0.7) ? 'road' : 'track';
        const stations = [...world.constructions.values()].filter((c) => CONSTRUCTIONS[c.file]?.stop === kind);
        if (stations.length < 2 || world.lines.size >= stations.length) return null;
        const count = Math.min(stations.length, rng.range(2, 4));
        const stops: WirePoint[] = [];
        for (let i = 0; i < count; i++) stops.push(m(stations.splice(rng.int(stations.length), 1)[0]!));
        return { type: 'createLine', key: newKey(), stops };
      }
      case 'vehicle': {
        const lines = [...world.lines.values()];
        if (lines.length === 0) return null;
        const line = rng.pick(lines);
        const models = Object.keys(VEHICLES).filter((k) => VEHICLES[k]!.kind === line.kind);
        return { type: 'buyVehicle', key: newKey(), line: line.key, model: rng.pick(models) };
      }
      case 'sell': {
        const vehicles = [...world.vehicles.values()];
        return vehicles.length === 0 ? null : { type: 'sellVehicle', vehicle: rng.pick(vehicles).key };
      }
      case 'bulldoze': {
        const edges = [...world.edges.values()].filter((e) => e.owner === 'player');
        const cons = [...world.constructions.values()];
        const r = rng.int(10);
        if (r < 5 && edges.length > 0) {
          const e = rng.pick(edges);
          const a = world.nodes.get(e.a)!;
          const b = world.nodes.get(e.b)!;
          return { type: 'bulldoze', at: m({ x: Math.round((a.x + b.x) / 2), y: Math.round((a.y + b.y) / 2) }) };
        }
        if (r < 8 && cons.length > 0) return { type: 'bulldoze', at: m(rng.pick(cons)) };
        return { type: 'bulldoze', at: m(this.near(this.anchor(world), 20)) };
      }
      case 'spend':
        return { type: 'spend', amount: rng.range(1, 50) * 1_000 };
      case 'loan':
        // A poor company borrows more often than it repays.
        const take = rng.chance(world.money < 500_000 ? 0.8 : 0.4);
        return { type: take ? 'takeLoan' : 'repayLoan', amount: rng.range(1, 50) * LOAN_UNIT };
    }
  }
}

/** The seed of bot number `index` of a game whose bots are seeded with `seed`. */
export function botSeed(seed: number, index: number): number {
  return hashInts(seed >>> 0, index, 0xb075);
}
