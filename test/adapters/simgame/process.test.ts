// The simulated game as a real process: `node bin/feverlink3.js simgame …` in a temp session folder.
// Solo (no identity): the bots' commands apply natively and time runs; SIGTERM ends it with a final
// status.json. With an identity and no launcher: the real mod is active, sends, and stands still. A bots.stop file
// (the demo's end) stops the bots.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOTS_STOP_FILE } from '../../../adapters/simgame/botsStop.ts';
import { deserializeWorld } from '../../../adapters/simgame/world/save.ts';
import { tempDir } from './support.ts';

const BIN = resolve(import.meta.dirname, '../../../bin/feverlink3.js');

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  tmp.cleanup();
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the game until its first status.json, then `ms` more (or until `during`, given the game's stderr so far,
 * settles); SIGTERM; returns the exit code and stderr.
 */
async function runGame(args: string[], during: number | ((stderr: () => string) => Promise<void>)): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'simgame', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    await until(() => existsSync(join(tmp.dir, 'status.json')) || child.exitCode !== null, 15_000);
    await (typeof during === 'number' ? sleep(during) : during(() => stderr));
  } finally {
    child.kill('SIGTERM');
  }
  return { code: await exited, stderr };
}

const status = (): Record<string, unknown> =>
  JSON.parse(readFileSync(join(tmp.dir, 'status.json'), 'utf8')) as Record<string, unknown>;

describe('simgame process', () => {
  it('makes the same save from the same seed', () => {
    for (const name of ['a.json', 'b.json']) {
      const r = spawnSync(process.execPath, [BIN, 'simgame', '--make-save', join(tmp.dir, name), '--seed', '12']);
      expect(r.status).toBe(0);
    }
    const a = readFileSync(join(tmp.dir, 'a.json'), 'utf8');
    expect(readFileSync(join(tmp.dir, 'b.json'), 'utf8')).toBe(a);
    expect(deserializeWorld(a).ok).toBe(true);
  });

  it('runs solo with bots applying natively, and ends on SIGTERM with a final status.json', async () => {
    const save = join(tmp.dir, 'world.json');
    const args = ['--session-dir', tmp.dir, '--new-save', save, '--seed', '3', '--bots', '2', '--bot-rate', '3000'];
    const r = await runGame(args, 1_000);
    expect(r.code, r.stderr).toBe(0);
    const s = status();
    expect(s.final).toBe(true);
    expect(s.t as number).toBeGreaterThan(0);
    expect(s.active).toBe(false);
    expect(s.actions).toBe(0);
    expect((s.applied as number) + (s.refused as number)).toBeGreaterThan(0);
    expect(s.worldHash).toMatch(/^[0-9a-f]{32}$/);
    expect(existsSync(join(tmp.dir, 'from_game.log'))).toBe(false);
    expect(readFileSync(join(tmp.dir, 'mod.log'), 'utf8')).toMatch(/inactive: no identity/);
  });

  it('with an identity, the real mod says Hello and the game waits for the session to start', async () => {
    const save = join(tmp.dir, 'world.json');
    expect(spawnSync(process.execPath, [BIN, 'simgame', '--make-save', save, '--seed', '4']).status).toBe(0);
    writeFileSync(join(tmp.dir, 'identity.txt'), 'name=Bea\nid=2\nrole=player\nstart=1:0\n');
    writeFileSync(join(tmp.dir, 'to_game.log'), '');
    const r = await runGame(['--session-dir', tmp.dir, '--save', save, '--bots', '1', '--bot-rate', '3000'], 800);
    expect(r.code, r.stderr).toBe(0);
    const s = status();
    // Not started: the world stands at 0 and the bots wait, as players do in the lobby.
    expect(s).toMatchObject({ final: true, active: true, t: 0, speed: 0, applied: 0, refused: 0, actions: 0 });
    const lines = readFileSync(join(tmp.dir, 'from_game.log'), 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^Hello\t\{"time":0\}$/);
    expect(lines.slice(1).every((l) => l.startsWith('Clock\t'))).toBe(true);
  });

  it('stops its bots for good when bots.stop appears in the session folder; time runs on', async () => {
    const save = join(tmp.dir, 'world.json');
    const args = ['--session-dir', tmp.dir, '--new-save', save, '--seed', '5', '--bots', '2', '--bot-rate', '6000'];
    const decided = (s: Record<string, unknown>) => (s.applied as number) + (s.refused as number);
    let atStop: Record<string, unknown> = {};
    const r = await runGame(args, async (stderr) => {
      await until(() => decided(status()) > 0, 15_000);
      writeFileSync(join(tmp.dir, BOTS_STOP_FILE), '');
      await until(() => stderr().includes(`the bots stopped (${BOTS_STOP_FILE})`), 15_000);
      // the first status written after the bots stopped holds every command they gave
      const before = status().t as number;
      await until(() => (status().t as number) > before, 15_000);
      atStop = status();
      await sleep(600);
    });
    expect(r.code, r.stderr).toBe(0);
    const s = status();
    expect(s.final).toBe(true);
    expect(decided(s)).toBe(decided(atStop));
    expect(s.t as number).toBeGreaterThan(atStop.t as number);
  });

  it('refuses bad arguments with status 2 and a missing save with 1', () => {
    expect(spawnSync(process.execPath, [BIN, 'simgame', '--bots', 'many']).status).toBe(2);
    expect(spawnSync(process.execPath, [BIN, 'simgame', '--session-dir', tmp.dir]).status).toBe(2);
    const missing = ['--session-dir', tmp.dir, '--save', join(tmp.dir, 'no.json')];
    expect(spawnSync(process.execPath, [BIN, 'simgame', ...missing]).status).toBe(1);
  });
});
