// The chunk cost of a spread checksum round (issue 10 item 5; wire-protocol.txt "Spread full rounds", "Chunk size
// and detail") over a simulated world of 3 000 heavy-lane entities (FEVERLINK3_BENCH_CHECKSUM_ENTITIES to change):
// the real mod's checksum module (mod/feverlink3_checksum.lua, in wasmoon) reads the heavy lanes chunk by chunk at
// their steps over adapters/simgame/world/checksumLanes.ts, measuring each chunk on the wall clock; the host's chunk
// sizing (machines/rules/checksumChunks.ts) picks the next rounds' chunk from the reported cost, as in a session.
// Baseline in the same run: the same world hashed whole in one step (engine.checksum(), the round without spread).
// Prints ms per chunk (the costliest chunk and the reported cost × chunk) against the 30 ms step budget. Asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ChecksumDriver } from '../adapters/simgame/checksumDriver.ts';
import { checksumLanes } from '../adapters/simgame/world/checksumLanes.ts';
import { createBigWorld, heavyEntityCount } from '../adapters/simgame/world/create.ts';
import { createChunkSizing, recordCost, resize, DEFAULT_CHUNK, STEP_BUDGET_MS } from '../machines/rules/checksumChunks.ts';

const ENTITIES = Number(process.env.FEVERLINK3_BENCH_CHECKSUM_ENTITIES ?? 3_000);
/** Rounds measured in each part (the first ones warm the JIT; every round is printed). */
const ROUNDS = 8;
/** The mod's L.CHECKSUM_MAX_CHUNKS (mod/feverlink3_checksum.lua). */
const MAX_CHUNKS = 20;
/** spread: the game speed in steps (ChecksumPolicy::spread_steps at speed 1). */
const SPREAD = 1;

const fmt = (v: number, digits = 2): string => v.toFixed(digits);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-bench-checksum-'));
  const world = createBigWorld(7, ENTITIES);
  const driver = await ChecksumDriver.create({ world, modDir: resolve(import.meta.dirname, '../mod'), sessionDir: dir });
  try {
    const total = heavyEntityCount(world);
    console.log(`world: ${total} heavy-lane entities (${world.edges.size} edges, ${world.nodes.size} nodes, ` +
      `${world.constructions.size} constructions, ${world.towns.size} towns); step budget ${STEP_BUDGET_MS} ms`);
    // Baseline: the whole world hashed in one step (JS alone, then through the mod: engine.checksum()).
    const wholeJs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      checksumLanes(world);
      wholeJs.push(performance.now() - t0);
    }
    const wholeMod: number[] = [];
    for (let n = 1; n <= 3; n++) {
      driver.request({ n: 1000 + n, at: world.time, paused: false });
      const t0 = performance.now();
      driver.step(1);
      wholeMod.push(performance.now() - t0);
    }
    console.log(`whole round in one step: ${fmt(Math.min(...wholeJs))} ms (JS, best of 5), ${fmt(Math.min(...wholeMod))} ms ` +
      `(through the mod, best of 3, the step included)`);
    const header = 'round  chunk  chunks  entityNs  costliest-step ms  cost×chunk ms  of budget  next chunk';
    let sizing = createChunkSizing();
    let n = 0;
    /** One spread round at `chunk`; its ms per chunk (entityNs × chunk), and the row printed. */
    const round = (chunk: number, resizeAfter: boolean): number | undefined => {
      n += 1;
      const at = world.time;
      driver.request({ n, at, paused: false, spread: SPREAD, ...(chunk === DEFAULT_CHUNK ? {} : { chunk }) });
      // the towns grow, so the world may have a chunk more than at the start: step until the report
      const chunks = Math.min(MAX_CHUNKS, Math.ceil(heavyEntityCount(world) / chunk));
      driver.step(chunks * SPREAD);
      let report = driver.reports().find((r) => r.n === n);
      for (let i = 0; i < 4 * SPREAD && !report; i++) {
        driver.step(1);
        report = driver.reports().find((r) => r.n === n);
      }
      if (!report?.cost) {
        console.log(`round ${n}: no cost reported`);
        return undefined;
      }
      const { entityNs, stepMaxUs } = report.cost;
      const perChunkMs = (entityNs * report.cost.chunk) / 1e6;
      if (resizeAfter) sizing = resize(recordCost(sizing, 0, entityNs), [0]).sizing;
      console.log(`${String(n).padStart(5)}  ${String(report.cost.chunk).padStart(5)}  ${String(chunks).padStart(6)}  ` +
        `${String(entityNs).padStart(8)}  ${fmt(stepMaxUs / 1000).padStart(17)}  ${fmt(perChunkMs).padStart(13)}  ` +
        `${(100 * perChunkMs / STEP_BUDGET_MS).toFixed(0).padStart(8)}%  ${resizeAfter ? String(sizing.chunk).padStart(10) : ''}`);
      return perChunkMs;
    };
    console.log(`the game's default chunk (${DEFAULT_CHUNK} entities a step), ${ROUNDS} rounds:`);
    console.log(header);
    const fixed = Array.from({ length: ROUNDS }, () => round(DEFAULT_CHUNK, false)).filter((v): v is number => v !== undefined);
    const sorted = [...fixed].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
    console.log(`chunk of ${DEFAULT_CHUNK}: median ${fmt(median)} ms a chunk, worst ${fmt(sorted[sorted.length - 1] ?? NaN)} ms ` +
      `(budget ${STEP_BUDGET_MS} ms a step: ${(100 * median / STEP_BUDGET_MS).toFixed(0)}% at the median)`);
    console.log(`the host sizing the chunk from each round's cost (ChecksumPolicy::chunk_for, ~12 ms a chunk), ${ROUNDS} rounds:`);
    console.log(header);
    for (let i = 0; i < ROUNDS; i++) round(sizing.chunk, true);
    console.log('(costliest-step: the dearest step of the round, the round\'s own step that hashes the light lanes and ' +
      'takes the lists included; cost×chunk: the reported entityNs × chunk, what the host sizes by, aiming at 12 ms)');
  } finally {
    driver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
