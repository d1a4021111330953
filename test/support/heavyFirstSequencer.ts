// The order test files start in (vitest.config.ts `sequence.sequencer`). On a clean clone vitest has no durations
// cached and starts the largest files first; the simulator's shards are four tiny files that run ~55–85 s each, so
// they started last and ran alone at the end on one worker or two (a clean clone's CI: 600 s of wall time for 956 s
// of tests on two workers). The heavy directories go first, in this order, each in vitest's own order: the
// simulator's seeds, the end-to-end tests with real processes, the hostile-input tests; the many short files fill
// both workers at the end.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const HEAVY_FIRST = ['/test/sim/sim.shard', '/test/sim/', '/test/e2e/', '/test/hostile/'];

/** The rank of a test file: the index of the first heavy prefix its path holds, or after all of them. */
export function heavyRank(path: string): number {
  const at = HEAVY_FIRST.findIndex((prefix) => path.includes(prefix));
  return at === -1 ? HEAVY_FIRST.length : at;
}

export class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return [...base].sort((a, b) => heavyRank(a.moduleId) - heavyRank(b.moduleId));
  }
}
