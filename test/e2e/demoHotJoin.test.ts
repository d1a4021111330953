// `feverlink3 demo --hot-join --json` end to end (issue 11 "Done when"): real launcher processes; the last player joins
// the running session, the host's hot-join round (reason new player) loads the session's world into its game, and at
// the end every game holds the same world; the round is counted from the host's status.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
const root = mkdtempSync(join(tmpdir(), 'fl3-hotjoin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('feverlink3 demo --hot-join', () => {
  it('loads the running session’s world into a player that joins late, verified; the worlds end equal', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'demo', '--json', '--hot-join', '--players', '3', '--seconds', '9', '--dir', root], {
      timeout: 150_000,
    });
    const result = JSON.parse(stdout.trim());
    expect(result.resyncs).toBeGreaterThanOrEqual(1);
    expect(result.resyncsFailed).toBe(0);
    expect(result.repairRequests).toEqual([]); // the round was the join's, not a repair's
    expect(result.worldsEqual).toBe(true);
    expect(result.late).toBe(0);
  }, 160_000);
});
