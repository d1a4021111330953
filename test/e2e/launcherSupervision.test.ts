// The launcher as a supervised process (adapters/cli/supervise.ts, stdio.ts; adapters/launcher/gameProcess.ts):
// a reader of stdout that went away or a hang-up never ends it: it runs on and writes what it would have
// printed to launcher.log; its simulated game ends with it however it ends (SIGTERM, the lifeline of a demo's
// launcher, even SIGKILL); and what it cannot start (a port in use, a session folder it cannot write, a game
// link that does not open, a fault nobody expected) ends it with ONE line on stderr and status 1.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, launch, removeLauncherDir } from '../support/cli.ts';

const root = resolve(import.meta.dirname, '../..');
let dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await killAll();
  for (const s of servers.splice(0)) s.close();
  for (const d of dirs) removeLauncherDir(d);
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'fl3-sup-'));
  dirs.push(d);
  return d;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for a process that is not our child to be gone (nothing to listen to but the pid itself). */
async function gone(pid: number, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > end) throw new Error(`process ${pid} still running after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function logEntries(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'launcher.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A host with the simulated game; resolves once it printed its folder and its game is running. */
async function simHost(dir: string, env?: Record<string, string>) {
  const host = launch(['host', '--listen', '127.0.0.1:0', '--session-dir', dir, '--bots', '0', '--verbose'], env ? { env } : {});
  await host.line(/^session folder: /, 15_000);
  const started = await host.errLine(/game started .*"gamePid":\d+/, 15_000);
  return { host, gamePid: Number(/"gamePid":(\d+)/.exec(started)![1]) };
}

/** Exactly one line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

describe('a launcher whose terminal went away', () => {
  it('runs on after its stdout reader left and a hang-up, logs what it would print, and its game dies with it even on SIGKILL', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const { host, gamePid } = await simHost(dir);
    host.child.stdout.destroy();
    host.type('/players');
    await host.errLine(/terminal output lost .*"code":"EPIPE"/);
    await host.errLine(/terminal line .*players: host \(0\)/);

    host.child.kill('SIGHUP');
    await host.errLine(/hang-up \(SIGHUP\)/);
    host.type('/speed 3'); // an answer printed only after the hang-up: the launcher still reads and writes
    await host.errLine(/terminal line .*speed: 1, 2 or 4/);
    expect(host.child.exitCode).toBe(null);
    expect(alive(gamePid)).toBe(true);

    const entries = logEntries(dir);
    expect(entries.find((e) => e.msg === 'terminal output lost')).toMatchObject({ stream: 'stdout', code: 'EPIPE' });
    expect(entries.filter((e) => e.msg === 'terminal line').map((e) => e.line)).toEqual(['players: host (0)', 'speed: 1, 2 or 4']);

    host.child.kill('SIGKILL');
    expect(await host.exited).toBe('SIGKILL');
    await gone(gamePid); // the lifeline: the game's stdin closed with the launcher
  });

  it('SIGTERM ends the launcher with status 0 and its game before it', { timeout: 30_000 }, async () => {
    const { host, gamePid } = await simHost(tempDir());
    host.child.kill('SIGTERM');
    expect(await host.exited, host.stderr() + host.lines.join('\n')).toBe(0);
    expect(alive(gamePid)).toBe(false);
  });

  it('with the lifeline (as the demo starts its launchers) it ends when its stdin closes', { timeout: 30_000 }, async () => {
    const { host, gamePid } = await simHost(tempDir(), { FEVERLINK3_LIFELINE: 'stdin' });
    host.child.stdin.end();
    expect(await host.exited).toBe(0);
    expect(alive(gamePid)).toBe(false);
  });
});

describe('what a launcher cannot start: one line, status 1', () => {
  it('a port in use', async () => {
    const server = createServer();
    servers.push(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const host = launch(['host', '--listen', `127.0.0.1:${port}`, '--game', 'none', '--session-dir', tempDir()]);
    expect(await host.exited).toBe(1);
    expect(oneLine(host.stderr())).toBe(`feverlink3: cannot listen on 127.0.0.1:${port}: port in use`);
    expect(host.lines.filter((l) => l !== '')).toEqual([]);
  });

  it('a session folder that cannot be made or written (host and join)', async () => {
    const base = tempDir();
    writeFileSync(join(base, 'file'), '');
    const host = launch(['host', '--game', 'none', '--session-dir', join(base, 'file', 'session')]);
    const player = launch(['join', 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ', '--name', 'bob', '--session-dir', join(base, 'file')]);
    expect(await host.exited).toBe(1);
    expect(oneLine(host.stderr())).toBe(`feverlink3: cannot use the session folder ${join(base, 'file', 'session')}: a part of the path is not a folder`);
    expect(await player.exited).toBe(1);
    expect(oneLine(player.stderr())).toMatch(/^feverlink3: cannot (use|write in) the session folder .*file: /);
  });

  // Root writes anywhere, so a read-only folder refuses only an ordinary user: run as root (CI), the launcher
  // runs as `nobody` (uid 65534), with its HOME and tsx's cache in a folder of its own. `nobody` must reach the
  // checkout: a clone inside a private folder (mktemp -d makes it 0700) gets o+x on that path for the test, then back.
  it('a read-only session folder', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o555);
    const asRoot = process.getuid?.() === 0;
    const home = tempDir();
    if (asRoot) chownSync(home, 65534, 65534);
    const opened = asRoot ? openPathForOthers(root) : [];
    try {
      const host = launch(['host', '--game', 'none', '--session-dir', dir], {
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
        env: { HOME: home, TMPDIR: home },
      });
      expect(await host.exited).toBe(1);
      expect(oneLine(host.stderr())).toBe(`feverlink3: cannot write in the session folder ${dir}: permission denied`);
    } finally {
      for (const [path, mode] of opened) chmodSync(path, mode);
    }
  });

  it('a game link that does not open, a game or a save that is not there', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'to_game.log')); // the launcher's link file cannot be written: a folder stands in its place
    const host = launch(['host', '--session-dir', dir]);
    const noGame = launch(['host', '--session-dir', tempDir(), '--game-dir', tempDir()]);
    const missingSave = join(tempDir(), 'none.sav');
    const noSave = launch(['join', 'AFSVH4IAAAAQEAYEAUDAOCAJBIFQYDIOB4AQI7YAAAAWTB32UZUFQ', '--name', 'bob', '--session-dir', tempDir(), '--save', missingSave]);
    expect(await host.exited).toBe(1);
    expect(oneLine(host.stderr())).toMatch(new RegExp(`^feverlink3: cannot open the game link in ${dir}: `));
    expect(await noGame.exited).toBe(1);
    expect(oneLine(noGame.stderr())).toMatch(/^feverlink3: cannot start the game: no Transport Fever 3 executable in /);
    expect(await noSave.exited).toBe(1);
    expect(oneLine(noSave.stderr())).toBe(`feverlink3: cannot start the game: no save at ${missingSave}`);
  });

  it('a fault nobody expected: logged with its stack, the game ended, one line, status 1', { timeout: 20_000 }, async () => {
    const dir = tempDir();
    const gameDir = tempDir();
    // A TEST DOUBLE for the game: it notes the SIGTERM it gets in the session folder, then ends.
    const double = [
      '#!/bin/sh',
      `trap 'echo term > "$FEVERLINK3_SESSION_DIR/game-got-term"; exit 0' TERM`,
      'echo up > "$FEVERLINK3_SESSION_DIR/game-up"',
      'while :; do sleep 0.05; done',
    ];
    writeFileSync(join(gameDir, 'TransportFever3.sh'), `${double.join('\n')}\n`, { mode: 0o755 });
    const script = `
      import { superviseProcess, attachLog } from './adapters/cli/supervise.ts';
      import { createLog } from './adapters/log.ts';
      import { startGame } from './adapters/launcher/gameProcess.ts';
      import { existsSync } from 'node:fs';
      superviseProcess();
      const { log, flush } = createLog({ file: ${JSON.stringify(join(dir, 'launcher.log'))}, pretty: false });
      attachLog({ log, flush, file: ${JSON.stringify(join(dir, 'launcher.log'))} });
      startGame({ kind: 'dir', dir: ${JSON.stringify(gameDir)} }, ${JSON.stringify(dir)}, log);
      const wait = setInterval(() => {
        if (!existsSync(${JSON.stringify(join(dir, 'game-up'))})) return;
        clearInterval(wait);
        Promise.reject(new Error('boom'));
      }, 20);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(oneLine(stderr)).toBe(`feverlink3: internal error (unhandled rejection): boom (the stack is in ${join(dir, 'launcher.log')})`);
    const failed = logEntries(dir).find((e) => e.msg === 'launcher failed');
    expect(failed).toMatchObject({ level: 50, kind: 'unhandled rejection', error: 'boom' });
    expect(String(failed!.stack)).toMatch(/Error: boom\n\s+at /);
    const pid = Number(logEntries(dir).find((e) => e.msg === 'game started')!.gamePid);
    await gone(pid);
    expect(readFileSync(join(dir, 'game-got-term'), 'utf8').trim()).toBe('term');
  });
});

/** Adds o+x to every folder on the way to `path` that lacks it; returns [folder, old mode] to restore. */
function openPathForOthers(path: string): [string, number][] {
  const changed: [string, number][] = [];
  for (let at = path; ; at = dirname(at)) {
    const mode = statSync(at).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(at, mode | 0o001);
      changed.push([at, mode]);
    }
    if (dirname(at) === at) return changed;
  }
}
