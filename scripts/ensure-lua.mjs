#!/usr/bin/env node
// `npm test`'s pretest step: the mod's checks need Debian's Lua 5.2 (`lua5.2`, `luac5.2`, the game's Lua).
// Present: nothing to do. Missing and running as root with apt-get: install it (apt-get update -qq &&
// apt-get install -y -qq lua5.2). Otherwise stop at once, before any test starts, with one line naming the
// command to run. Plain Node, no dependencies: it runs before anything else is known to work.
import { spawnSync } from 'node:child_process';

const TOOLS = ['lua5.2', 'luac5.2'];
const INSTALL = 'apt-get update -qq && apt-get install -y -qq lua5.2';

/** The tools that do not run (`-v` prints the version and exits 0 for both). */
function missing() {
  return TOOLS.filter((tool) => spawnSync(tool, ['-v'], { stdio: 'ignore' }).status !== 0);
}

function hasAptGet() {
  return spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

function stop(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

let absent = missing();
if (absent.length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (!isRoot || !hasAptGet()) {
  const how = hasAptGet() ? `sudo sh -c '${INSTALL}'` : 'install Lua 5.2 so that lua5.2 and luac5.2 are on the PATH';
  stop(`npm test: ${absent.join(' and ')} missing (the mod is checked with Lua 5.2); run: ${how}`);
}

process.stderr.write(`npm test: ${absent.join(' and ')} missing; installing lua5.2 with apt-get\n`);
for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'lua5.2']]) {
  const run = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (run.status !== 0) stop(`npm test: "apt-get ${args.join(' ')}" failed (status ${run.status ?? run.signal}); run: ${INSTALL}`);
}
absent = missing();
if (absent.length > 0) stop(`npm test: ${absent.join(' and ')} still missing after installing lua5.2; run: ${INSTALL}`);
