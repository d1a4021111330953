// The demo's child processes: launchers started from this same binary, their stdout read line by line,
// their stdin written to (the host's terminal commands), and all of them ended together. Each launcher
// holds the lifeline (FEVERLINK3_LIFELINE=stdin): its stdin is our pipe, so if the demo dies in any way its
// launchers see stdin close and end, and their games with them.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { LIFELINE_ENV } from '../launcher/gameProcess.ts';
import { selfCommand } from '../runtime.ts';

export class Launcher {
  readonly name: string;
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters: { test: (line: string) => boolean; done: (line: string) => void }[] = [];

  /** `env`: added to this launcher's environment (its game inherits it, e.g. the demo's --desync). */
  constructor(name: string, args: string[], env: Readonly<Record<string, string>> = {}) {
    this.name = name;
    const self = selfCommand(args);
    this.child = spawn(self.command, self.args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env, [LIFELINE_ENV]: 'stdin' } });
    this.child.stdin.on('error', () => {}); // the launcher may be gone when the demo types
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    // stderr carries the simulated game's notices; kept for a failure report, never printed over the status
    createInterface({ input: this.child.stderr }).on('line', (line) => this.lines.push(`! ${line}`));
  }

  private onLine(line: string): void {
    this.lines.push(line);
    for (const w of [...this.waiters]) {
      if (w.test(line)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.done(line);
      }
    }
  }

  /** The first stdout line (past or future) matching `test`. */
  waitForLine(test: (line: string) => boolean): Promise<string> {
    const seen = this.lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((done) => this.waiters.push({ test, done }));
  }

  type(line: string): void {
    if (this.child.stdin.writable) this.child.stdin.write(`${line}\n`);
  }

  async stop(graceMs = 8000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Resolves `probe()` once it is defined, polling every `everyMs`; rejects after `ms` with `what`, or when `signal` aborts. */
export async function until<T>(probe: () => T | undefined, ms: number, what: string, everyMs = 100, signal?: AbortSignal): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`the demo timed out waiting for ${what}`);
    await pause(everyMs, signal);
  }
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const stop = () => {
      clearTimeout(timer);
      fail(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      done();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
