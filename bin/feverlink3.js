#!/usr/bin/env node
// The launcher's entry. tsx compiles the TypeScript sources on load, so a fresh clone runs after
// `npm ci` with no build step; the single binary (a later issue) bundles the same entry with esbuild.
// runCli supervises the process (adapters/cli/supervise.ts) and sets the exit code; a failure it did not
// expect ends in its last-resort handler, never in a bare stack trace.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../adapters/cli/main.ts');
await runCli(process.argv.slice(2));
