// The launcher end to end as real processes (issue 3; spec "Handshake", "Ping and round-trip time"):
// `feverlink3 host` prints a join code, `feverlink3 join` uses it; chat both ways through stdin/stdout, RTT
// lines on both sides, a wrong password refused with bad-proof, SIGTERM ends both cleanly, and each session
// folder's launcher.log holds JSON lines.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, launch, removeLauncherDir } from '../support/cli.ts';

let dirs: string[] = [];
// A launcher's simulated game may still write its last log line while the folder goes (removeLauncherDir retries).
afterEach(async () => {
  await killAll();
  for (const d of dirs) removeLauncherDir(d);
  dirs = [];
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'fl3-e2e-'));
  dirs.push(d);
  return d;
}

function jsonLines(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8').trim();
  return text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function hostAndCode(args: string[] = []): Promise<{ host: ReturnType<typeof launch>; code: string; dir: string }> {
  const dir = tempDir();
  const host = launch(['host', '--listen', '127.0.0.1:0', '--session-dir', dir, ...args]);
  const line = await host.line(/^join code: /, 15_000);
  const code = line.slice('join code: '.length).trim();
  expect(code).toMatch(/^[A-Z2-7]{53}$/);
  return { host, code, dir };
}

describe('feverlink3 host / join as processes', () => {
  it('joins, chats both ways, shows RTTs, and ends both with status 0 on SIGTERM', { timeout: 40_000 }, async () => {
    const { host, code, dir: hostDir } = await hostAndCode();
    const playerDir = tempDir();
    const bob = launch(['join', code, '--name', 'bob', '--session-dir', playerDir]);
    expect(await bob.line(/^joined as bob/, 15_000)).toMatch(/^joined as bob \(id 1\)/);
    await host.line(/^bob joined \(id 1\)/);

    bob.type('hello from bob');
    await host.line(/^\[chat\] bob: hello from bob$/);
    host.type('hello from the host');
    await bob.line(/^\[chat\] host: hello from the host$/);

    // The host pings every 2 s; the printers show an RTT line as soon as there is one (then at most every 10 s).
    expect(await host.line(/^rtt: /, 12_000)).toMatch(/^rtt: bob \d+\.\d ms$/);
    expect(await bob.line(/^rtt: /, 12_000)).toMatch(/^rtt: .*\d+\.\d ms/);

    host.child.kill('SIGTERM');
    expect(await bob.line(/^session ended: shutdown/)).toMatch(/^session ended: shutdown/);
    expect(await host.exited).toBe(0);
    expect(await bob.exited).toBe(0);

    const hostLog = jsonLines(join(hostDir, 'launcher.log'));
    const playerLog = jsonLines(join(playerDir, 'launcher.log'));
    expect(hostLog.map((l) => l.msg)).toEqual(expect.arrayContaining(['hosting', 'player joined', 'stopping']));
    expect(hostLog.find((l) => l.msg === 'player joined')).toMatchObject({ role: 'host', name: 'bob', id: 1 });
    expect(playerLog.find((l) => l.msg === 'joined')).toMatchObject({ role: 'player', you: 1 });
    expect(playerLog.find((l) => l.msg === 'session ended')).toMatchObject({ reason: 'shutdown' });
    for (const entry of [...hostLog, ...playerLog]) expect(typeof entry.time).toBe('number');
  });

  it('a wrong password is refused with bad-proof and the player exits 1', { timeout: 40_000 }, async () => {
    const { host } = await hostAndCode(['--password', 'right']);
    const code = (await host.line(/^join code: /)).slice('join code: '.length).trim();
    // Both derive their key (PBKDF2, 600 000 iterations) at the same time.
    const mallory = launch(['join', code, '--name', 'mallory', '--password', 'wrong', '--session-dir', tempDir()]);
    const carol = launch(['join', code, '--name', 'carol', '--password', 'right', '--session-dir', tempDir()]);
    expect(await mallory.line(/^rejected: /, 20_000)).toBe('rejected: bad-proof');
    expect(await mallory.exited).toBe(1);
    expect(await carol.line(/^joined as carol/, 20_000)).toMatch(/^joined as carol \(id \d+\)/);
    expect(host.lines.some((l) => l.startsWith('mallory'))).toBe(false);
  });
});
