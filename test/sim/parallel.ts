// A long simulator run spread over the machine's cores (`npm run sim -- --sessions K --jobs N`): N child processes of
// the same command line, child j running seeds from+j, from+j+N, … (interleaved, so long and short seeds spread
// evenly), each printing its summary as one JSON line; the parent adds them up. Every seed is still a whole session on
// its own clock: which process runs it changes nothing in it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mergeSummaries, type Summary } from './runSeed.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Runs `argv` (the parent's arguments without --jobs) in `jobs` children, child j with `--offset j --stride jobs`. */
export async function runInChildren(argv: readonly string[], jobs: number): Promise<Summary> {
  const children = Array.from({ length: jobs }, (_, j) => runChild([...argv, '--json', '--offset', String(j), '--stride', String(jobs)]));
  return mergeSummaries(await Promise.all(children));
}

function runChild(argv: readonly string[]): Promise<Summary> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...argv], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => (out += text));
    child.on('error', reject);
    child.on('close', (code) => {
      // exit 1 is "a session failed": its summary says which; anything else is the child's own failure
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 && code !== 1) return reject(new Error(`a simulator process (${argv.join(' ')}) ended with ${String(code)}`));
      try {
        resolve(JSON.parse(line) as Summary);
      } catch {
        reject(new Error(`a simulator process (${argv.join(' ')}) printed no summary: ${line.slice(0, 200)}`));
      }
    });
  });
}
