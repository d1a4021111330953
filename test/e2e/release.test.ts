// Issue 15: the single binary. Builds the linux binary and the Windows one (no zips: fast), copies the linux
// binary alone into an empty folder and runs it there (the demo, and the inspector's page from its assets); checks the Windows binary's PE header and that the blob
// was injected (postject flips the sentinel fuse's trailing ":0" to ":1"). `npm run release` makes the zips.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeLauncherDir } from '../support/cli.ts';

const root = resolve(import.meta.dirname, '../..');
const GOLDEN = 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ';
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
let dir: string;
let bin: string;

describe('the single binary (npm run release)', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [join(root, 'scripts/release.mjs'), '--no-zip'], { cwd: root, stdio: 'pipe' });
    dir = mkdtempSync(join(tmpdir(), 'fl3-release-'));
    bin = join(dir, 'feverlink3');
    copyFileSync(join(root, 'dist/feverlink3'), bin);
    execFileSync('chmod', ['755', bin]);
  }, 120_000);
  afterAll(() => removeLauncherDir(dir));

  it('prints its version and decodes a join code, alone in an empty folder', () => {
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;
    expect(execFileSync(bin, ['--version'], { cwd: dir, encoding: 'utf8' })).toBe(`feverlink3 ${version}\n`);
    expect(JSON.parse(execFileSync(bin, ['code', GOLDEN, '--json'], { cwd: dir, encoding: 'utf8' }))).toEqual({
      version: 1, created: 1700000000, endpoints: [{ host: '127.0.0.1', port: 27015 }],
    });
    expect(execFileSync(bin, ['--help'], { cwd: dir, encoding: 'utf8' })).toMatch(/feverlink3 simgame/);
  });

  it('runs the demo by starting itself: worlds equal', () => {
    const demo = spawnSync(bin, ['demo', '--json', '--seconds', '8', '--dir', join(dir, 'sessions')], { cwd: dir, encoding: 'utf8', timeout: 90_000 });
    const last = demo.stdout.trim().split('\n').at(-1)!;
    expect(JSON.parse(last), demo.stderr).toMatchObject({ worldsEqual: true, late: 0 });
    expect(demo.status).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['feverlink3', 'sessions']); // nothing else written beside it
  }, 120_000);

  it('serves the inspector page from its own assets (no esbuild, no page folder beside it)', async () => {
    const fixture = join(root, 'test/inspect/fixtures/stalled-round.trace.jsonl');
    const child = spawn(bin, ['inspect', fixture, '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((found, failed) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const m = /^inspector: (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(line);
          if (m) found(m[1]!);
        });
        child.once('exit', (code) => failed(new Error(`inspect ended (${code}) before printing its address`)));
      });
      const page = await fetch(url);
      expect(await page.text()).toContain('<script type="module" src="/app.js">');
      const script = await fetch(new URL('app.js', url));
      expect(script.status).toBe(200);
      expect((await script.text()).length).toBeGreaterThan(10_000);
      expect((await fetch(new URL('style.css', url))).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);

  it('built a Windows PE with the blob injected', () => {
    const exe = readFileSync(join(root, 'dist/feverlink3.exe'));
    expect(exe.subarray(0, 2).toString('latin1')).toBe('MZ');
    const pe = exe.readUInt32LE(0x3c);
    expect(exe.subarray(pe, pe + 4).toString('latin1')).toBe('PE\0\0');
    expect(exe.includes(Buffer.from(`${FUSE}:1`))).toBe(true);
    expect(exe.includes(Buffer.from('NODE_SEA_BLOB'))).toBe(true);
    expect(exe.includes(Buffer.from('feverlink3_lockstep'))).toBe(true); // the mod asset, inside the blob
  });
});
