// `npm run bench`: runs every benchmark module listed below, one after the other (`npm run bench -- seal` runs
// only the modules whose name contains "seal"). Each module exports `run(): Promise<void>` and prints its own
// ratios against a raw baseline measured in the same run; nothing here asserts timing.

/** The benchmark modules. Add yours: a name and a loader. */
const benches: { name: string; load: () => Promise<{ run(): Promise<void> }> }[] = [
  { name: 'seal', load: () => import('./seal.bench.ts') },
  { name: 'latency', load: () => import('./latency.bench.ts') },
  { name: 'hostRelay', load: () => import('./hostRelay.bench.ts') },
  { name: 'relayWrites', load: () => import('./relayWrites.bench.ts') },
  { name: 'resync', load: () => import('./resync.bench.ts') },
  { name: 'checksumChunks', load: () => import('./checksumChunks.bench.ts') },
];

// Bench names are plain words; options (`--profile`, `--base <dir>`, `--pairs <n>` …) are left to the benches.
const filters = process.argv.slice(2).filter((arg, i, args) => /^\w+$/.test(arg) && !/^--(base|pairs|top)$/.test(args[i - 1] ?? ''));
const chosen = benches.filter((b) => filters.length === 0 || filters.some((f) => b.name.includes(f)));
if (chosen.length === 0) {
  console.error(`no bench matches ${filters.join(' ')}; known: ${benches.map((b) => b.name).join(', ')}`);
  process.exitCode = 2;
}
for (const bench of chosen) {
  console.log(`\n== ${bench.name} ==`);
  const started = performance.now();
  await (await bench.load()).run();
  console.log(`(${bench.name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
