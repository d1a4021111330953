// The whole-host fuzz's host: a real `feverlink3 host` process with its session key, terminal and log (test/hostile/hostFuzz.test.ts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { decodeJoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { launch, type Launcher } from './cli.ts';
import { removeLauncherDir } from './cli.ts';

export interface FuzzHost {
  launcher: Launcher;
  port: number;
  key: Uint8Array;
  dir: string;
  pid: number;
  /** Resident set size of the host process in KiB (from /proc), undefined once it is gone. */
  rssKb(): number | undefined;
  alive(): boolean;
  /** A line on the host's terminal (chat, or a /command). */
  type(line: string): void;
  /** launcher.log as parsed JSON lines (what was flushed so far). */
  logLines(): Record<string, unknown>[];
  /** SIGTERM, then the exit code (or signal). */
  stop(): Promise<number | string>;
  /** Removes the session folder. */
  cleanup(): void;
}

/** Starts `feverlink3 host --listen 127.0.0.1:0 --game none` (plus `args`) and derives its key from the join code. */
export async function spawnFuzzHost(args: readonly string[] = []): Promise<FuzzHost> {
  const dir = mkdtempSync(join(tmpdir(), 'fl3-fuzz-'));
  const launcher = launch([
    'host', '--listen', '127.0.0.1:0', '--game', 'none', '--max-players', '64', '--session-dir', dir, ...args,
  ]);
  const listening = await launcher.line(/^listening on /, 20_000);
  const port = Number(/:(\d+)$/.exec(listening)![1]);
  const code = (await launcher.line(/^join code: /)).slice('join code: '.length).trim();
  const decoded = decodeJoinCode(code);
  if (!decoded) throw new Error(`the host printed a join code that does not decode: ${code}`);
  const key = await deriveSessionKey(nodeCrypto, decoded.secret);
  const pid = launcher.child.pid!;
  let exited = false;
  void launcher.exited.then(() => (exited = true));
  return {
    launcher,
    port,
    key,
    dir,
    pid,
    alive: () => !exited && launcher.child.exitCode === null && launcher.child.signalCode === null,
    rssKb() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return m ? Number(m[1]) : undefined;
      } catch {
        return undefined;
      }
    },
    type: (line) => launcher.type(line),
    logLines() {
      try {
        return readFileSync(join(dir, 'launcher.log'), 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as Record<string, unknown>];
            } catch {
              return [];
            }
          });
      } catch {
        return [];
      }
    },
    async stop() {
      if (!exited) launcher.child.kill('SIGTERM');
      return launcher.exited;
    },
    cleanup: () => removeLauncherDir(dir),
  };
}
