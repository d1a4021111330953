// `feverlink3 inspect FILE|DIR [--port PORT]`: serves a recorded trace in the inspector page (inspect/server.ts) on
// 127.0.0.1 and prints its address: FILE a trace.jsonl, DIR a session folder (its rotated trace files oldest first).
// FILE may be a bug report's zip (feverlink3-report-<n>.zip): its games are listed and the chosen one's trace served
// (--game N, default the host's game 0; adapters/report/readReportZip.ts). Runs until SIGINT/SIGTERM.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { traceFiles } from '../../trace/readTrace.ts';
import { readFile } from 'node:fs/promises';
import { traceSource } from '../../../inspect/liveFeed.ts';
import { readReportIndex, readReportTrace, reportGamesText } from '../../report/readReportZip.ts';
import { startInspectorServer } from '../../../inspect/server.ts';
import { parseCommandLine, usageText, wholeNumber, type CommandSpec } from '../args.ts';
import { startupError, StartupError } from '../failure.ts';
import { writeOut } from '../stdio.ts';
import { say, untilSignal } from '../terminal.ts';

export const spec = {
  name: 'inspect',
  synopsis: ['inspect FILE|DIR|REPORT.zip [--port PORT] [--game N]'],
  about: 'serves a recorded trace (a trace.jsonl, or a session folder) in the inspector page on 127.0.0.1; ends on Ctrl-C',
  operands: { name: 'the trace file or session folder (FILE|DIR)', min: 1, max: 1 },
  options: {
    port: { type: 'string', arg: 'PORT', help: 'the port on 127.0.0.1 (0: any free port)', default: '0' },
    game: { type: 'string', arg: 'N', help: "a bug report's zip: the game whose trace is served (default 0, the host's)" },
  },
} as const satisfies CommandSpec;

export const usage = usageText(spec);

/** The trace's lines as text: one file, or a session folder's files oldest first. */
export async function readTraceText(path: string): Promise<string[]> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch (error) {
    throw startupError(`read ${path}`, error);
  }
  const files = isDir ? await traceFiles(path) : [path];
  if (files.length === 0) throw new StartupError(`no trace.jsonl in ${path}`);
  const lines: string[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch((error: unknown) => {
      throw startupError(`read ${file}`, error);
    });
    for (const line of text.split('\n')) if (line.length > 0) lines.push(line);
  }
  return lines;
}

/** A bug report's zip: its games listed, the chosen game's trace lines (the host's game 0 unless `--game`). */
async function reportTrace(path: string, game: string | undefined): Promise<string[]> {
  const index = await readReportIndex(path).catch((error: unknown) => {
    throw startupError(`read the bug report ${path}`, error);
  });
  say(`bug report ${index.report} of ${index.session}, asked by ${index.askedBy.name}${index.note ? `: ${index.note}` : ''}`);
  for (const line of reportGamesText(index)) say(line);
  const id = game === undefined ? 0 : wholeNumber('--game', game, 0, 255);
  if (!index.players.some((p) => p.id === id && p.folder !== undefined)) throw new StartupError(`game ${id} has no part in ${path}`);
  say(`serving the trace of game ${id}`);
  return readReportTrace(path, id).catch((error: unknown) => {
    throw startupError(`read the trace of game ${id} in ${path}`, error);
  });
}

export async function run(args: readonly string[]): Promise<number> {
  const parsed = parseCommandLine(spec, args);
  if (parsed.help) {
    writeOut(`${usage}\n`);
    return 0;
  }
  const port = wholeNumber('--port', parsed.values.port, 0, 65535);
  const path = parsed.operands[0]!;
  const lines = path.toLowerCase().endsWith('.zip') ? await reportTrace(path, parsed.values.game) : await readTraceText(path);
  const server = await startInspectorServer(traceSource(lines, basename(path)), port).catch((error: unknown) => {
    throw startupError(`serve the inspector on 127.0.0.1:${port}`, error);
  });
  const stopped = untilSignal();
  say(`${lines.length} trace lines from ${path}`);
  say(`inspector: ${server.url}`);
  await stopped;
  await server.close();
  return 0;
}
