// The host of the host-relay bench as it runs for real: `node bin/feverlink3.js host --game none …` in a process of
// its own, its stdout read line by line (the join code, the answer to /start), its stdin the host's terminal, its
// CPU time read from /proc/<pid>/stat. It holds the lifeline (FEVERLINK3_LIFELINE=stdin): if the bench dies, the
// host sees its stdin close and ends.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { decodeJoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';

const BIN = resolve(import.meta.dirname, '../../bin/feverlink3.js');
/** Clock ticks a second of /proc/<pid>/stat's utime and stime (USER_HZ; 100 on every Linux we run on). */
export const CLOCK_TICKS = 100;

export interface HostProcessOptions {
  /** Session folder (launcher.log, trace.jsonl, host.json). */
  dir: string;
  maxPlayers: number;
  /** Extra environment (FEVERLINK3_TRACE=off …); undefined values are removed from the bench's. */
  env?: Record<string, string | undefined>;
  /** Node flags before the script (--cpu-prof …). */
  nodeArgs?: string[];
  /** The launcher to run (another tree's bin/feverlink3.js for an A/B against it); this tree's by default. */
  bin?: string;
}

export class HostProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly waiters: { test: (line: string) => boolean; done: (line: string) => void }[] = [];

  constructor(o: HostProcessOptions) {
    const env: Record<string, string | undefined> = { ...process.env, FEVERLINK3_LIFELINE: 'stdin', ...o.env };
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    const args = ['host', '--listen', '127.0.0.1:0', '--game', 'none', '--max-players', String(o.maxPlayers)];
    this.child = spawn(process.execPath, [...(o.nodeArgs ?? []), o.bin ?? BIN, ...args, '--session-dir', o.dir], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr }).on('line', (line) => this.onLine(`! ${line}`));
  }

  get pid(): number {
    return this.child.pid!;
  }

  private onLine(line: string): void {
    if (this.lines.length < 2000) this.lines.push(line);
    for (const w of [...this.waiters]) {
      if (w.test(line)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.done(line);
      }
    }
  }

  /** How many lines it printed so far (to wait for a line printed after this point). */
  get lineCount(): number {
    return this.lines.length;
  }

  /**
   * The first line matching `test` from line `from` on (past or future); rejects after `ms` or when the host exits.
   */
  waitForLine(test: (line: string) => boolean, ms: number, what: string, from = 0): Promise<string> {
    const seen = this.lines.slice(from).find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`host: no ${what} within ${ms} ms; it said: ${this.tail()}`)), ms);
      void this.exited.then((code) => fail(new Error(`host exited (${code}) before ${what}: ${this.tail()}`)));
      this.waiters.push({
        test,
        done: (line) => {
          clearTimeout(timer);
          done(line);
        },
      });
    });
  }

  /** Its port and the session key (from the join code it printed, as a player derives it). */
  async address(): Promise<{ port: number; key: Uint8Array }> {
    const codeLine = await this.waitForLine((l) => l.startsWith('join code: '), 30_000, 'join code');
    const code = decodeJoinCode(codeLine.slice('join code: '.length).trim(), nodeCrypto);
    if (!code) throw new Error(`host printed a join code that does not decode: ${codeLine}`);
    const endpoint = code.endpoints[0];
    if (!endpoint) throw new Error('the join code names no endpoint');
    return { port: endpoint.port, key: await deriveSessionKey(nodeCrypto, code.secret) };
  }

  /** A line typed at the host's terminal. */
  type(line: string): void {
    if (this.child.stdin.writable) this.child.stdin.write(`${line}\n`);
  }

  /** The host process's CPU time so far, µs (utime + stime of /proc/<pid>/stat: every thread, 10 ms ticks). */
  cpuMicros(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'latin1');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1e6) / CLOCK_TICKS;
  }

  /** The last lines it printed (for a failure message). */
  tail(n = 6): string {
    return this.lines.slice(-n).join(' | ');
  }

  /** SIGTERM (the host closes every connection and exits), SIGKILL after `graceMs`. */
  async stop(graceMs = 8000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
