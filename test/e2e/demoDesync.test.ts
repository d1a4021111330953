// `feverlink3 demo --desync --json` end to end (issue 10 item 6): real launcher processes, one divergence injected
// into one game's world (adapters/simgame/desync.ts); the host's checksum rounds name the differing part and the
// games on each side, the policy asks for a repair with its reason, and the resync round it starts repairs the worlds
// (issue 11 "Done when": worldsEqual after an automatic repair, resyncs measured from the host's status).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
const root = mkdtempSync(join(tmpdir(), 'fl3-desync-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('feverlink3 demo --desync', () => {
  it('lists the injected difference by part, asks for a repair and repairs it with a verified resync round', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'demo', '--json', '--desync', '--players', '3', '--seconds', '8', '--dir', root], {
      timeout: 150_000,
    });
    const result = JSON.parse(stdout.trim());
    expect(result.differences.length).toBeGreaterThanOrEqual(2);
    for (const d of result.differences) {
      // The divergence was injected into the last player's game (player2), whatever id it got.
      expect(d).toMatchObject({ part: 'edges', games: [['host', 'player1'], ['player2']] });
    }
    expect(result.repairRequests[0]).toEqual({ reason: 'parts edges differ in 2 rounds in a row' });
    expect(result.resyncs).toBeGreaterThanOrEqual(1);
    expect(result.resyncsFailed).toBe(0);
    expect(result.worldsEqual).toBe(true);
  }, 160_000);

  it('with FEVERLINK3_AUTO_RESYNC=0 the request is only logged and shown: no round, the worlds stay apart', async () => {
    const failed = await run(process.execPath, [BIN, 'demo', '--json', '--desync', '--players', '2', '--seconds', '8', '--dir', join(root, 'off')], {
      timeout: 150_000,
      env: { ...process.env, FEVERLINK3_AUTO_RESYNC: '0' },
    }).then(
      () => undefined,
      (error: { code?: number; stdout?: string }) => error,
    );
    // Worlds that differ at the end make the demo exit 1; its line still says why.
    expect(failed?.code).toBe(1);
    const result = JSON.parse(failed!.stdout!.trim().split('\n').at(-1)!);
    expect(result.repairRequests[0]).toEqual({ reason: 'parts edges differ in 2 rounds in a row' });
    expect(result.resyncs).toBe(0);
    expect(result.worldsEqual).toBe(false);
  }, 160_000);
});
