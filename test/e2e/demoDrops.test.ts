// `feverlink3 demo --drops --json` end to end (issue 12 "Done when"): real launcher processes; each player's connection
// runs through a fault proxy of the demo that cuts it at seeded random moments (some inside a frame); the launchers
// reconnect by themselves and are caught up without a reload: every drop resumed with the same id (measured from the
// launchers' output), each game told of it (its mod.log), no resync round, nothing late, and equal worlds at the final
// pause.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { countReconnects, planDrops } from '../../adapters/demo/drops.ts';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
const root = mkdtempSync(join(tmpdir(), 'fl3-drops-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('feverlink3 demo --drops', () => {
  it('plans the cuts from the seed: several per player, spread over the run, half of them inside a frame', () => {
    const plan = planDrops({ players: 3, seconds: 20, perPlayer: 3, seed: 1 });
    expect(plan).toEqual(planDrops({ players: 3, seconds: 20, perPlayer: 3, seed: 1 }));
    expect(plan).toHaveLength(6);
    expect(plan.filter((c) => c.player === 1)).toHaveLength(3);
    expect(plan.every((c) => c.atMs >= 3000 && c.atMs <= 16_000)).toBe(true);
    expect(plan.map((c) => c.atMs)).toEqual([...plan.map((c) => c.atMs)].sort((a, b) => a - b));
    const kinds = new Set(planDrops({ players: 8, seconds: 60, perPlayer: 5, seed: 2 }).map((c) => c.kind));
    expect(kinds).toEqual(new Set(['reset', 'midFrame']));
  });

  it('counts drops and resumes from the launcher lines', () => {
    expect(
      countReconnects([
        'joined as player1 (id 1), host host',
        'connection lost (connection reset): reconnecting for up to 300 s',
        'reconnecting: attempt 1, resuming, 5:00 left',
        'reconnected after 0.3 s and 1 attempt (resumed, caught up)',
        'connection lost (closed): reconnecting for up to 300 s',
        'reconnected after 1.2 s and 2 attempts (resumed, the world is reloaded)',
        'connection lost (closed): reconnecting for up to 300 s',
        'reconnected after 0.4 s and 1 attempt (a new player, id 4)',
      ]),
    ).toEqual({ drops: 3, resumes: 2, reloads: 1, rejoins: 1, gaveUp: 0 });
  });

  it('cuts the players at random moments; every drop resumes, no resync, nothing late, worlds equal', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'demo', '--json', '--drops', '--players', '3', '--seconds', '20', '--dir', root], {
      timeout: 90_000,
    });
    const result = JSON.parse(stdout.trim());
    // 2 players × 3 cuts planned; a cut that falls while its player still reconnects is skipped
    expect(result.cuts).toBeGreaterThanOrEqual(4);
    expect(result.drops).toBeGreaterThanOrEqual(4);
    expect(result.resumes).toBe(result.drops);
    expect(result.rejoins).toBe(0);
    expect(result.reloads).toBe(0);
    expect(result.resyncs).toBe(0);
    expect(result.late).toBe(0);
    expect(result.worldsEqual).toBe(true);
    // Each game was told (its launcher's system notice, logged by the mod): lost at every drop, back at every resume.
    const modLog = ['player1', 'player2'].map((p) => readFileSync(join(root, p, 'mod.log'), 'utf8')).join('\n');
    expect(modLog.match(/CHAT FeverLink3 \(\d+\) \[warn\]: connection to the host lost/g)?.length).toBe(result.drops);
    expect(modLog.match(/CHAT FeverLink3 \(\d+\) \[info\]: reconnected after/g)?.length).toBe(result.resumes);
  }, 100_000);
});
