// Chunk sizing and spread (spec "Spread full rounds", "Chunk size and detail"; ChecksumPolicy::chunk_for,
// spread_steps). A spread full round reads `chunk` entities of the heavy lanes at each step at + k·spread. Each
// report of such a round carries cost {entityNs, stepMaxUs, chunk}; the host keeps each game's last three and sizes
// the next rounds' chunk from the dearest cost of the present games so that the slowest game's chunk costs about
// 12 ms of the 30 ms step budget: 50..4000 entities, at most twice the last one. Every game gets the same number, so
// the chunks fall at the same steps and the comparison stays exact. Pure: no clock.

/** The game's own chunk when a request carries none. */
export const DEFAULT_CHUNK = 200;
export const MIN_CHUNK = 50;
export const MAX_CHUNK = 4000;
/** The step budget (ms) and the part of it a chunk may take on the slowest game (ns). */
export const STEP_BUDGET_MS = 30;
export const CHUNK_BUDGET_NS = 12_000_000;
/** Rounds of cost kept per game. */
export const COST_ROUNDS = 3;

export interface ChunkSizing {
  /** The chunk the next rounds carry. */
  chunk: number;
  /** Game id → its last COST_ROUNDS entityNs figures, oldest first. */
  costs: ReadonlyMap<number, readonly number[]>;
}

export interface ChunkChange {
  from: number;
  to: number;
  /** The slowest present game and its dearest entityNs. */
  game: number;
  entityNs: number;
}

export function createChunkSizing(): ChunkSizing {
  return { chunk: DEFAULT_CHUNK, costs: new Map() };
}

/** ChecksumPolicy::spread_steps: the game speed, 1..4 steps (one engine batch). */
export function spreadSteps(speed: number): number {
  return Math.min(4, Math.max(1, Math.round(speed)));
}

/** Records game `game`'s cost of one spread round (a figure that is not a positive finite number is ignored). */
export function recordCost(sizing: ChunkSizing, game: number, entityNs: number): ChunkSizing {
  if (!Number.isFinite(entityNs) || entityNs <= 0) return sizing;
  const costs = new Map(sizing.costs);
  costs.set(game, [...(costs.get(game) ?? []), entityNs].slice(-COST_ROUNDS));
  return { ...sizing, costs };
}

/** ChecksumPolicy::chunk_for: the chunk for a dearest cost of `entityNs` after a chunk of `last`. */
export function chunkFor(entityNs: number, last: number): number {
  const target = Math.floor(CHUNK_BUDGET_NS / entityNs);
  return Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, 2 * last, target));
}

/** The dearest cost over the present games' last rounds, if any game reported one. */
export function dearest(sizing: ChunkSizing, present: readonly number[]): { game: number; entityNs: number } | undefined {
  let worst: { game: number; entityNs: number } | undefined;
  for (const game of present) {
    for (const entityNs of sizing.costs.get(game) ?? []) if (!worst || entityNs > worst.entityNs) worst = { game, entityNs };
  }
  return worst;
}

/** Sizes the next rounds' chunk from the present games' costs; the costs of games gone are forgotten. */
export function resize(sizing: ChunkSizing, present: readonly number[]): { sizing: ChunkSizing; change?: ChunkChange } {
  const costs = new Map([...sizing.costs].filter(([game]) => present.includes(game)));
  const worst = dearest({ ...sizing, costs }, present);
  if (!worst) return { sizing: { ...sizing, costs } };
  const to = chunkFor(worst.entityNs, sizing.chunk);
  const next = { chunk: to, costs };
  return to === sizing.chunk ? { sizing: next } : { sizing: next, change: { from: sizing.chunk, to, ...worst } };
}

/** The spec's log line of a change: `checksum chunk: N entities a step from now on (...)`. */
export function chunkChangeText(change: ChunkChange, name: string): string {
  const us = (change.entityNs / 1000).toFixed(2);
  return `checksum chunk: ${change.to} entities a step from now on (slowest ${name}: ${us} µs an entity, was ${change.from})`;
}
