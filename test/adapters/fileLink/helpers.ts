// Shared helpers for the file link tests: temp folders under os.tmpdir(), a bounded wait, child processes, and
// the seeded random source the writers' splits replay from (test/support/random.ts, shared with the fault proxy).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A small seeded generator (mulberry32) so a failing run can be replayed from its seed. */
export { seededRandom } from '../../support/random.ts';

/** A fresh folder under os.tmpdir(); remove it with `removeTempDir`. */
export function makeTempDir(prefix = 'fl3-filelink-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function removeTempDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/**
 * Polls `condition` every few ms until it holds; throws after `capMs` (generous: this asserts no timing, it only
 * keeps a broken test from hanging).
 */
export async function waitFor(condition: () => boolean, what: string, capMs = 15_000): Promise<void> {
  const deadline = Date.now() + capMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts `node script args…` and resolves once it printed `ready` on stdout. */
export async function spawnReady(script: string, args: string[], env?: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`child exited before ready (${code ?? signal})`)));
    child.once('error', reject);
  });
  return child;
}

/** SIGKILLs `child` and waits until it is gone. */
export async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
