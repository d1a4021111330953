// `feverlink3 demo --report --json` end to end (issue 14 "Done when"): real launcher processes over 127.0.0.1 TCP with
// simulated games; at the end a player asks for a bug report and the demo prints the zip's path. The zip, read back
// with fflate, holds a folder per game (the host's game-0 and each player's) with its launcher.log and trace.jsonl,
// and a report.json listing every game with nothing missing; then `feverlink3 inspect` lists the zip's games.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { actorsIn, parseTrace } from '../../adapters/trace/readTrace.ts';
import type { ReportIndex } from '../../machines/rules/reportIndex.ts';

const run = promisify(execFile);
const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
let demoRoot: string | undefined;
afterAll(() => {
  // --report keeps the demo's folders (the zip lives in the asker's): this test removes the one it made.
  if (demoRoot && dirname(demoRoot) === resolve(tmpdir()) && basename(demoRoot).startsWith('feverlink3-demo-')) rmSync(demoRoot, { recursive: true, force: true });
});

/** `feverlink3 inspect ZIP` until it serves: the lines it printed. */
async function inspectLines(zip: string): Promise<string[]> {
  const child = spawn(process.execPath, [BIN, 'inspect', zip, '--game', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  try {
    await new Promise<void>((done, fail) => {
      child.once('exit', (code) => fail(new Error(`inspect exited (${code}): ${lines.join(' | ')}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        lines.push(line);
        if (line.startsWith('inspector: ')) done();
      });
    });
  } finally {
    child.kill('SIGTERM');
  }
  return lines;
}

describe('feverlink3 demo --report', () => {
  it('prints the path of ONE zip with a folder per game (launcher.log, trace.jsonl) and report.json', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'demo', '--report', '--json', '--players', '3', '--seconds', '6'], { timeout: 180_000 });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as { report: string; worldsEqual: boolean };
    demoRoot = dirname(dirname(result.report));
    expect(result.worldsEqual).toBe(true);
    // The asker is the first player; its zip is in its own session folder.
    expect(basename(dirname(result.report))).toBe('player1');
    expect(existsSync(result.report)).toBe(true);
    const files = unzipSync(readFileSync(result.report));
    for (const game of ['game-0', 'game-1', 'game-2']) {
      expect(files[`${game}/launcher.log`]?.length, `${game}/launcher.log`).toBeGreaterThan(0);
      expect(files[`${game}/trace.jsonl`]?.length, `${game}/trace.jsonl`).toBeGreaterThan(0);
    }
    const index = JSON.parse(new TextDecoder().decode(files['report.json'])) as ReportIndex;
    // The players join at once, so which of them got id 1 is a race: ids are read from the report, not assumed.
    const idOf = (name: string): number => index.players.find((p) => p.name === name)!.id;
    expect(index).toMatchObject({ format: 'feverlink3-report', report: 1, askedBy: { id: idOf('player1'), name: 'player1' }, note: 'feverlink3 demo', missing: [] });
    expect(index.players.map((p) => [p.name, p.folder]).sort()).toEqual(
      ['host', 'player1', 'player2'].map((name) => [name, `game-${idOf(name)}`]),
    );
    expect(idOf('host')).toBe(0);
    // Each launcher's trace carries its report actor: the host's round, the players' parts.
    expect(actorsIn(parseTrace(new TextDecoder().decode(files['game-0/trace.jsonl'])))).toContain('report');
    expect(actorsIn(parseTrace(new TextDecoder().decode(files['game-1/trace.jsonl'])))).toContain('reportPart');
    // The inspector opens the zip: its games listed, the chosen game's trace served.
    const shown = await inspectLines(result.report);
    expect(shown).toEqual(expect.arrayContaining(['game 0 host: game-0/, ' + index.players[0]!.files!.length + ' files, ' + index.players[0]!.bytes + ' bytes', 'serving the trace of game 1']));
  }, 200_000);
});
