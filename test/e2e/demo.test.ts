// `feverlink3 demo` end to end: real launcher processes over 127.0.0.1 TCP, simulated games on real session
// folders. Three games, more than 1 000 seeded bot actions, speed 1 → 4 → 2, one game throttled to half the
// wall time (it holds the others at its promise), and one final pause: every action applied at its stamp on
// every game (late 0) and identical worlds at pauseAt.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { actorsIn, readTraceDir } from '../../adapters/trace/readTrace.ts';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
const root = mkdtempSync(join(tmpdir(), 'fl3-demo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('feverlink3 demo', () => {
  it('runs 3 games in lockstep through speed changes and a throttled game; worlds equal, nothing late', async () => {
    const { stdout } = await run(
      process.execPath,
      [BIN, 'demo', '--json', '--players', '3', '--seconds', '18', '--bot-rate', '1400', '--speeds', '1,4,2', '--throttle', '2:0.5', '--dir', root],
      { timeout: 150_000 },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!);
    expect(result).toMatchObject({ players: 3, late: 0, worldsEqual: true });
    // The checksum rounds measured no difference and asked for no repair, so no resync round ran (measured from the
    // host's status, never a literal).
    expect(result.resyncs).toBe(0);
    expect(result.resyncsFailed).toBe(0);
    expect(result.differences).toEqual([]);
    expect(result.repairRequests).toEqual([]);
    expect(result.actions).toBeGreaterThanOrEqual(1000);
    expect(result.worldHash).toMatch(/^[0-9a-f]{32}$/);
    // the pause stopped every game at pauseAt (pause-order flushes in the pause land at the same stamp)
    expect(result.times).toEqual([result.pauseAt, result.pauseAt, result.pauseAt]);
    // the bots acted in the pause before they stopped: those actions were flushed as pause items, read alike by all
    expect(result.pauseItems).toBeGreaterThan(0);
    // Every launcher recorded its actors (trace.jsonl in its session folder), read back by their stable names.
    const hostActors = actorsIn(await readTraceDir(join(root, 'host')));
    expect(hostActors).toEqual(expect.arrayContaining(['lockstep', 'pauseOrder', 'slot:1', 'slot:2', 'pacing:0', 'pacing:1', 'checksumRounds']));
    expect(hostActors.some((a) => /^handshake:\d+$/.test(a))).toBe(true);
    // The session's root and its adapter actors: one per connection, and the host's own game's file link.
    expect(hostActors).toEqual(expect.arrayContaining(['host', 'link']));
    expect(hostActors.filter((a) => /^conn:\d+$/.test(a))).toHaveLength(2);
    const playerActors = actorsIn(await readTraceDir(join(root, 'player1')));
    expect(playerActors).toEqual(expect.arrayContaining(['player', 'playerHandshake', 'link']));
    expect(playerActors.some((a) => /^conn:\d+$/.test(a))).toBe(true);
  }, 160_000);
});
