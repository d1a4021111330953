import { defineConfig } from 'vitest/config';

// Two cores here and in CI: forks keep native crypto and sockets isolated per file,
// and the per-test timeout is generous because e2e tests start real processes.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report lets .ci/run print the plain closing line ("N passed, N failed") CI reads.
    reporters: ['default', 'json'],
    outputFile: { json: '.tmp/vitest-results.json' },
  },
});
