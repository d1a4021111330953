// Real launcher processes for the end-to-end tests: `node bin/feverlink3.js <command> …` with piped stdio,
// its output kept as lines, waits for a line by pattern, and its exit. Every process started is tracked so a
// test's afterEach can kill what is left.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const entry = resolve(root, 'bin/feverlink3.js');

export interface Launcher {
  child: ChildProcessWithoutNullStreams;
  /** Complete stdout lines so far. */
  lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (already printed or to come). */
  line(pattern: RegExp, ms?: number): Promise<string>;
  /** Writes a line to stdin. */
  type(text: string): void;
  /** Resolves with the exit code (the signal's name if killed by one). */
  exited: Promise<number | string>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

export function launch(args: readonly string[]): Launcher {
  const child = spawn(process.execPath, [entry, ...args], { cwd: root, stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } });
  running.add(child);
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (err += chunk));
  child.stdin.on('error', () => {}); // the process may be gone when a test types
  const exited = new Promise<number | string>((done) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      done(code ?? signal ?? 'unknown');
    }),
  );
  return {
    child,
    lines,
    stderr: () => err,
    exited,
    type: (text) => void child.stdin.write(`${text}\n`),
    line(pattern, ms = 10_000) {
      const found = lines.find((l) => pattern.test(l));
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => {
          const at = waiters.findIndex((w) => w.resolve === done);
          if (at >= 0) waiters.splice(at, 1);
          reject(new Error(`no line matching ${pattern} within ${ms} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`));
        }, ms);
        const done = (line: string) => {
          clearTimeout(timer);
          resolveLine(line);
        };
        waiters.push({ pattern, resolve: done });
      });
    },
  };
}

/** Kills every launcher still running (SIGKILL) and waits for them to go. */
export async function killAll(): Promise<void> {
  const left = [...running];
  await Promise.all(
    left.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGKILL');
        }),
    ),
  );
  running.clear();
}
