// The simulated game's world model: plain data, integers only (positions in centimetres, money in
// whole units, time in game-ms), so every game that applies the same commands holds the same bytes.
// Spec: architecture.txt §6 (entity references) and §7 (determinism); lockstep.md "Units".

/** One simulation step, in game-ms (lockstep.md "Units"). */
export const STEP = 200;

/** The engine speeds (game-ms per wall-ms). */
export const SPEEDS = [0, 1, 2, 4] as const;
export type Speed = (typeof SPEEDS)[number];

/** Two positions closer than this (centimetres) are the same node (architecture.txt §6: 1.5 m). */
export const NODE_MATCH_CM = 150;

/** A point of the map in whole centimetres. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface WorldNode {
  id: number;
  x: number;
  y: number;
}

export const EDGE_KINDS = { road: 'road', track: 'track' } as const;
export type EdgeKind = (typeof EDGE_KINDS)[keyof typeof EDGE_KINDS];

export const OWNERS = { player: 'player', town: 'town' } as const;
export type Owner = (typeof OWNERS)[keyof typeof OWNERS];

export interface Edge {
  id: number;
  /** Node ids of the two ends. */
  a: number;
  b: number;
  kind: EdgeKind;
  owner: Owner;
}

export interface Construction {
  id: number;
  /** The construction file, one of CONSTRUCTIONS. */
  file: string;
  x: number;
  y: number;
  /** Rotation in whole degrees, 0..359. */
  rot: number;
  /** Passengers waiting at this station (always 0 at a construction that is no stop): the checksum part `stocks`. */
  stock: number;
}

export interface Line {
  id: number;
  /** `<sender>:<seq>` for lines made in a session, `s:<id>` for lines from the save. */
  key: string;
  kind: EdgeKind;
  /** Construction ids of the stops, in order; the route runs back from the last to the first. */
  stops: number[];
}

export interface Vehicle {
  id: number;
  key: string;
  /** Line id. */
  line: number;
  model: string;
  /** Index of the stop the vehicle drives towards. */
  leg: number;
  /** Centimetres driven on the current leg. */
  progress: number;
  /** Passengers aboard (at most the model's capacity): the checksum part `onboard`. */
  onboard: number;
}

export interface Town {
  id: number;
  name: string;
  x: number;
  y: number;
  population: number;
  /** Persons a vehicle brought here from elsewhere, not yet gone home: the checksum part `persons`. */
  visitors: number;
}

/**
 * The free-id queue: ids are taken from the front of `free` (FIFO, oldest freed first), and only
 * when it is empty is `next` handed out and incremented. Freed ids go to the back.
 */
export interface IdQueue {
  next: number;
  free: number[];
}

/**
 * The whole world. Maps keep insertion order and the save keeps that order, so a loaded world
 * iterates exactly like the running one it was saved from.
 */
export interface World {
  seed: number;
  time: number;
  money: number;
  loan: number;
  ids: IdQueue;
  nodes: Map<number, WorldNode>;
  edges: Map<number, Edge>;
  constructions: Map<number, Construction>;
  lines: Map<number, Line>;
  vehicles: Map<number, Vehicle>;
  towns: Map<number, Town>;
}

export interface ConstructionType {
  readonly cost: number;
  /** The kind of line that may stop here, or null for no stop (a depot). */
  readonly stop: EdgeKind | null;
}

/** The construction files the world knows. */
export const CONSTRUCTIONS: Readonly<Record<string, ConstructionType>> = {
  'station/street/bus_stop.con': { cost: 20_000, stop: 'road' },
  'station/rail/train_station.con': { cost: 250_000, stop: 'track' },
  'depot/road_depot.con': { cost: 60_000, stop: null },
  'depot/train_depot.con': { cost: 120_000, stop: null },
};

export interface VehicleType {
  readonly cost: number;
  readonly kind: EdgeKind;
  /** Centimetres per step (200 game-ms). */
  readonly speed: number;
  /** Fare earned at each stop. */
  readonly fare: number;
  /** Passengers it carries at most. */
  readonly capacity: number;
}

/** The vehicle models the world knows. */
export const VEHICLES: Readonly<Record<string, VehicleType>> = {
  'vehicle/bus/city_bus.mdl': { cost: 45_000, kind: 'road', speed: 300, fare: 1_500, capacity: 40 },
  'vehicle/bus/coach.mdl': { cost: 80_000, kind: 'road', speed: 450, fare: 2_500, capacity: 60 },
  'vehicle/train/regional.mdl': { cost: 400_000, kind: 'track', speed: 700, fare: 9_000, capacity: 200 },
};

/** A town within this distance of a stop adds to the fare there, and its persons wait there (world/passengers.ts). */
export const CATCHMENT_CM = 50_000;

/** Cost per metre of new road / track. */
export const COST_PER_M: Readonly<Record<EdgeKind, number>> = { road: 60, track: 120 };

/** Longest edge one command may build, centimetres. */
export const MAX_EDGE_CM = 200_000;
/** Shortest edge, centimetres (shorter ends would be one node anyway). */
export const MIN_EDGE_CM = NODE_MATCH_CM * 2;
/** The map is a square of ± this many centimetres around 0. */
export const MAP_HALF_CM = 1_000_000;
/** Constructions may not stand closer than this to each other, centimetres. */
export const CONSTRUCTION_SPACING_CM = 2_000;
/** Credit line: the loan never exceeds this. */
export const MAX_LOAN = 10_000_000;
/** Loans are taken and repaid in multiples of this. */
export const LOAN_UNIT = 10_000;
/** Cost of bulldozing one thing. */
export const BULLDOZE_COST = 1_000;
/** The largest single `spend` amount. */
export const MAX_SPEND = 100_000_000;
