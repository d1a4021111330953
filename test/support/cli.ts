import { rmSync } from 'node:fs';
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
  /** The same for stderr (with --verbose the launcher's log is there as readable lines). */
  errLine(pattern: RegExp, ms?: number): Promise<string>;
  /** Writes a line to stdin. */
  type(text: string): void;
  /** Resolves with the exit code (the signal's name if killed by one). */
  exited: Promise<number | string>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

type Waiter = { pattern: RegExp; resolve: (line: string) => void };

/** Splits a stream into lines, keeps them, and resolves the waiters whose pattern a new line matches. */
function collectLines(stream: NodeJS.ReadableStream, lines: string[], waiters: Waiter[], also: (chunk: string) => void = () => {}): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    also(chunk);
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
}

export function launch(args: readonly string[], options: { env?: Record<string, string>; uid?: number; gid?: number } = {}): Launcher {
  const ids = options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid };
  const child = spawn(process.execPath, [entry, ...args], { cwd: root, stdio: 'pipe', env: { ...process.env, NO_COLOR: '1', ...options.env }, ...ids });
  running.add(child);
  const lines: string[] = [];
  const errLines: string[] = [];
  let err = '';
  const waiters: Waiter[] = [];
  const errWaiters: Waiter[] = [];
  collectLines(child.stdout, lines, waiters);
  collectLines(child.stderr, errLines, errWaiters, (chunk) => (err += chunk));
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
    line: (pattern, ms = 10_000) => waitLine('stdout', lines, waiters, pattern, ms),
    errLine: (pattern, ms = 10_000) => waitLine('stderr', errLines, errWaiters, pattern, ms),
  };

  function waitLine(what: string, seen: string[], list: Waiter[], pattern: RegExp, ms: number): Promise<string> {
    const found = seen.find((l) => pattern.test(l));
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolveLine, reject) => {
      const timer = setTimeout(() => {
        const at = list.findIndex((w) => w.resolve === done);
        if (at >= 0) list.splice(at, 1);
        reject(new Error(`no ${what} line matching ${pattern} within ${ms} ms; stdout:\n${lines.join('\n')}\nstderr:\n${err}`));
      }, ms);
      const done = (line: string) => {
        clearTimeout(timer);
        resolveLine(line);
      };
      list.push({ pattern, resolve: done });
    });
  }
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

/**
 * Removes a folder launchers or their games wrote to. A launcher's simulated game ends when its lifeline pipe closes,
 * a moment after the launcher, and may still write its last status.json or log line while the folder goes. rmSync's
 * own retries only try the folder again, not what was written into it after its sweep (a CI run failed so, the folder
 * left holding the game's final status.json): so the whole removal is tried again, sweep included, for up to 10 s.
 */
export function removeLauncherDir(dir: string): void {
  const end = Date.now() + 10_000;
  for (;;) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || Date.now() > end) throw error;
    }
  }
}
