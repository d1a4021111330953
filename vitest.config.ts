import { defineConfig } from 'vitest/config';
import { HeavyFirstSequencer } from './test/support/heavyFirstSequencer.ts';

// Two cores here and in CI: forks keep native crypto and sockets isolated per file,
// and the per-test timeout is generous because e2e tests start real processes.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // vitest's default in a run is one worker fewer than the cores: ONE here, which left a core idle for the whole
    // run (11½ minutes). Two workers; the simulator's seeds are four files so they spread over both.
    maxWorkers: 2,
    // the long files first, so the short ones fill both workers at the end (test/support/heavyFirstSequencer.ts)
    sequence: { sequencer: HeavyFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print the plain closing line ("N passed, N failed") CI reads.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
  },
});
