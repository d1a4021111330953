// Reading a recorded trace back (adapters/trace/traceRecorder.ts writes it; inspect/traceFormat.ts is the
// format): one file, or a session folder's rotated set oldest first. A torn last line (the process ended in the
// middle of a write) is skipped.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTrace, type TraceLine } from '../../inspect/traceFormat.ts';

export { actorsIn, parseTrace, type TraceLine } from '../../inspect/traceFormat.ts';

/** The lines of one trace file. A missing file reads as no lines. */
export async function readTrace(path: string): Promise<TraceLine[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseTrace(text);
}

/** The trace files of a session folder, oldest first: trace.<n>.jsonl … trace.1.jsonl, trace.jsonl. */
export async function traceFiles(dir: string, fileName = 'trace.jsonl'): Promise<string[]> {
  const dot = fileName.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
  const rotated = new RegExp(`^${escape(stem)}\\.(\\d+)${escape(ext)}$`);
  const found: { n: number; name: string }[] = [];
  for (const name of await readdir(dir)) {
    if (name === fileName) found.push({ n: 0, name });
    else {
      const m = rotated.exec(name);
      if (m) found.push({ n: Number(m[1]), name });
    }
  }
  return found.sort((a, b) => b.n - a.n).map((f) => join(dir, f.name));
}

/** Every line of a session folder's trace, oldest file first. */
export async function readTraceDir(dir: string, fileName = 'trace.jsonl'): Promise<TraceLine[]> {
  const out: TraceLine[] = [];
  for (const file of await traceFiles(dir, fileName)) out.push(...(await readTrace(file)));
  return out;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
