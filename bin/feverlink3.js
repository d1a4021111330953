#!/usr/bin/env node
// The launcher's entry. tsx compiles the TypeScript sources on load, so a fresh clone runs after
// `npm ci` with no build step; the single binary (a later issue) bundles the same entry with esbuild.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../adapters/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
