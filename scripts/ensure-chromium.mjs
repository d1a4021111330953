#!/usr/bin/env node
// `npm test`'s pretest step, beside ensure-lua.mjs: the inspector's browser tests (test/e2e/inspector*.test.ts)
// drive Debian's `chromium` through playwright-core. Present at /usr/bin/chromium (or $CHROMIUM_PATH): nothing to
// do. Missing and running as root with apt-get: install it (apt-get update -qq && apt-get install -y -qq
// chromium). Otherwise stop at once, before any test starts, with one line naming the command to run.
// Plain Node, no dependencies.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const BROWSER = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'apt-get update -qq && apt-get install -y -qq chromium';

function stop(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

if (existsSync(BROWSER)) process.exit(0);

const hasAptGet = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !hasAptGet) {
  const how = hasAptGet ? `sudo sh -c '${INSTALL}'` : `install Chromium at ${BROWSER} (or set CHROMIUM_PATH)`;
  stop(`npm test: ${BROWSER} missing (the inspector's browser tests use it); run: ${how}`);
}

process.stderr.write(`npm test: ${BROWSER} missing; installing chromium with apt-get\n`);
for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
  const run = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (run.status !== 0) stop(`npm test: "apt-get ${args.join(' ')}" failed (status ${run.status ?? run.signal}); run: ${INSTALL}`);
}
if (!existsSync(BROWSER)) stop(`npm test: ${BROWSER} still missing after installing chromium; run: ${INSTALL}`);
