// `feverlink3 demo`: a host and N−1 players as separate launcher processes on 127.0.0.1, each with a
// simulated game and bots, all from one save; a live status while they play; at the end every game pauses
// at one pauseAt and the worlds are compared (issue 4 item 6).
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSimSave } from '../launcher/gameProcess.ts';
import { Launcher, pause, until as untilDefined } from './processes.ts';
import { formatTable, gameStatus, hostStatus, type GameRow } from './status.ts';

export interface DemoOptions {
  players: number;
  seconds: number;
  /** Commands per minute of each game's bot. */
  botRate: number;
  /** Speeds in turn over the run (the host's /speed), e.g. [1, 4, 2]. */
  speeds: number[];
  /** One player's game gets only this share of the wall time (index 1.., factor). */
  throttle?: { player: number; factor: number };
  worldSeed: number;
  /** Print the live status (false with --json). */
  live: boolean;
  keep: boolean;
  root?: string;
  /**
   * `--inspect PORT`: the host's launcher serves the inspector page on PORT, each player's on a free port; their
   * addresses are printed (`inspector: URL (name)`), the host's first: it shows every actor of the host's session.
   */
  inspect?: number;
  /** Stops the demo early: every wait rejects with its reason, the launchers are stopped, the folders removed. */
  signal?: AbortSignal;
}

export interface DemoResult {
  players: number;
  actions: number;
  late: number;
  // No `resyncs` or `differences` yet: there is no resync round and no checksum round to count them. They come
  // back measured with the checksum rounds, never as literals.
  worldsEqual: boolean;
  worldHash: string;
  pauseAt?: number;
  games?: { name: string; t: number; worldHash: string; applied: number; refused: number; late: number; actions: number }[];
}

/**
 * Runs the demo. `print` shows a line; `show` shows the live table (a terminal redraws it in place; otherwise it
 * is printed like any line).
 */
export async function runDemo(o: DemoOptions, print: (line: string) => void, show: (table: string) => void = print): Promise<DemoResult> {
  const root = o.root ?? join(tmpdir(), `feverlink3-demo-${Date.now()}-${process.pid}`);
  mkdirSync(root, { recursive: true });
  const save = join(root, 'world.sav');
  makeSimSave(save, o.worldSeed);
  const dirs = Array.from({ length: o.players }, (_, i) => join(root, i === 0 ? 'host' : `player${i}`));
  const names = dirs.map((_, i) => (i === 0 ? 'host' : `player${i}`));
  const simArgs = (i: number) => [
    '--save', save, '--bot-rate', String(o.botRate),
    ...(o.throttle && o.throttle.player === i ? ['--throttle', String(o.throttle.factor)] : []),
    ...(o.inspect === undefined ? [] : ['--inspect', String(i === 0 ? o.inspect : 0)]),
  ];
  const launchers: Launcher[] = [];
  const until = <T>(probe: () => T | undefined, ms: number, what: string, everyMs = 100) => untilDefined(probe, ms, what, everyMs, o.signal);
  const aborted = new Promise<never>((_, fail) => {
    if (o.signal?.aborted) fail(o.signal.reason);
    o.signal?.addEventListener('abort', () => fail(o.signal!.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    const host = new Launcher('host', ['host', '--listen', '127.0.0.1:0', '--name', 'host', '--session-dir', dirs[0]!, ...simArgs(0)]);
    launchers.push(host);
    const codeLine = await Promise.race([
      aborted,
      host.waitForLine((l) => l.startsWith('join code: ')),
      host.exited.then((code) => {
        const said = host.lines.find((l) => l.startsWith('! feverlink3'))?.slice(2);
        return Promise.reject(new Error(`the host exited (${code}) before it gave a join code${said ? `: ${said}` : ''}`));
      }),
    ]);
    const code = codeLine.slice('join code: '.length).trim();
    for (let i = 1; i < o.players; i++) {
      launchers.push(new Launcher(names[i]!, ['join', code, '--name', names[i]!, '--session-dir', dirs[i]!, ...simArgs(i)]));
    }
    if (o.live) print(`demo: ${o.players} games in ${root}`);
    if (o.inspect !== undefined) await printInspectors(launchers, print, aborted);
    // Every game joined and said Hello: start.
    await until(() => {
      const h = hostStatus(dirs[0]!);
      return h && h.players.length === o.players && h.players.every((p) => p.ready) ? true : undefined;
    }, 60_000, 'every game to join and say hello');
    host.type('/start');
    await until(() => (hostStatus(dirs[0]!)?.session.started ? true : undefined), 30_000, 'the session to start');

    const rows = (): GameRow[] => {
      const h = hostStatus(dirs[0]!);
      return dirs.map((dir, i) => ({ name: names[i]!, id: i, status: gameStatus(dir), rtt: h?.players.find((p) => p.name === names[i])?.rtt }));
    };
    const started = Date.now();
    const speeds = o.speeds.length ? o.speeds : [1];
    let speedIndex = -1;
    while (Date.now() - started < o.seconds * 1000) {
      const phase = Math.min(speeds.length - 1, Math.floor(((Date.now() - started) / (o.seconds * 1000)) * speeds.length));
      if (phase !== speedIndex) {
        speedIndex = phase;
        if (phase > 0 || speeds[0] !== 1) host.type(`/speed ${speeds[phase]}`);
      }
      if (o.live) show(formatTable(rows(), hostStatus(dirs[0]!)?.session));
      await pause(1000, o.signal);
    }

    // The end: one pause for all, then every game must stand at pauseAt.
    host.type('/pause');
    const pauseAt = await until(() => hostStatus(dirs[0]!)?.session.pauseAt, 20_000, 'the pause to be set');
    await until(() => (dirs.map(gameStatus).every((s) => s && s.speed === 0 && s.t >= pauseAt) ? true : undefined), 60_000,
      `every game to stand at pauseAt ${pauseAt}`);
    // The bots go on acting in the pause (the pause order flushes their actions to every game at one stamp), so
    // the worlds are compared at a moment when every game has read the same pause items and decided as many
    // commands. Actions stamped past pauseAt stay queued (alike on every game) until the session runs again.
    const final = await until(() => {
      const all = dirs.map(gameStatus);
      if (!all.every((s) => s && s.speed === 0)) return undefined;
      const [first] = all;
      const same = all.every(
        (s) => s!.t === first!.t && s!.pause === first!.pause && s!.queued === first!.queued && s!.applied + s!.refused === first!.applied + first!.refused,
      );
      return same ? all : undefined;
    }, 60_000, 'every game to hold the same pause items', 50);
    if (o.live) show(formatTable(rows(), hostStatus(dirs[0]!)?.session));

    const hashes = final.map((s) => s!.worldHash);
    return {
      players: o.players,
      actions: final.reduce((n, s) => n + s!.actions, 0),
      late: final.reduce((n, s) => n + s!.late, 0),
      worldsEqual: hashes.every((h) => h === hashes[0]),
      worldHash: hashes[0]!,
      pauseAt,
      games: final.map((s, i) => ({ name: names[i]!, t: s!.t, worldHash: s!.worldHash, applied: s!.applied, refused: s!.refused, late: s!.late, actions: s!.actions })),
    };
  } finally {
    await Promise.all(launchers.slice(1).map((l) => l.stop()));
    await launchers[0]?.stop();
    if (!o.keep && !o.root) rmSync(root, { recursive: true, force: true });
  }
}

/** Each launcher's `inspector: URL` line, printed as `inspector: URL (name)`, the host's first. */
async function printInspectors(launchers: readonly Launcher[], print: (line: string) => void, aborted: Promise<never>): Promise<void> {
  for (const launcher of launchers) {
    const line = await Promise.race([aborted, launcher.waitForLine((l) => l.startsWith('inspector: '))]);
    print(`${line} (${launcher.name})`);
  }
}
