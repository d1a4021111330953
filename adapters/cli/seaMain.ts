// The single binary's entry: esbuild bundles it (CommonJS) into the Node SEA (scripts/release.mjs).
import { runCli } from './main.ts';

void runCli(process.argv.slice(2));
