// `feverlink3 demo`: a host and N−1 players as separate launcher processes on 127.0.0.1, each with a
// simulated game and bots, all from one save; a live status while they play; at the end every game pauses
// at one pauseAt and the worlds are compared (issue 4 item 6).
// --drops (issue 12): each player connects through its own TCP fault proxy in this process, which cuts the player's
// connection at seeded random moments; the launchers reconnect by themselves (adapters/launcher/reconnect.ts).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSimSave } from '../launcher/gameProcess.ts';
import { Launcher, pause, until as untilDefined } from './processes.ts';
import { DESYNC_ENV } from '../simgame/desync.ts';
import { BOTS_STOP_FILE } from '../simgame/botsStop.ts';
import { askDemoReport } from './demoReport.ts';
import { formatTable, gameStatus, hostStatus, type GameRow } from './status.ts';
import { countReconnects, planDrops, startDropProxies, type DropProxies } from './drops.ts';

/** --desync: game-ms after its first step at which the chosen game's world is changed. */
const DESYNC_AFTER_MS = 6_000;
/** Wall ms the bots go on acting once every game stands at pauseAt (their actions become pause items). */
const PAUSE_ACTING_MS = 1_000;

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
  /**
   * `--desync`: one divergence injected into one game (the last player's, the host's when it plays alone) 6 game-s
   * into the session (adapters/simgame/desync.ts); the demo then runs until the host asked for a repair and the
   * resync round it started ended (the result's `resyncs`).
   */
  desync?: boolean;
  /**
   * `--hot-join`: the last player joins the running session a third into the run; the host's hot-join round (reason
   * new player) loads the session's world into its game. The demo then runs until that round ended.
   */
  hotJoin?: boolean;
  /**
   * `--report`: at the end a player (the host when it plays alone) asks for a bug report (adapters/demo/demoReport.ts);
   * the session folders are then kept, since the zip lives in the asker's.
   */
  report?: boolean;
  /**
   * `--drops`: each player's connection runs through a fault proxy of the demo that cuts it `drops` times per player at
   * seeded random moments of the run (some at once, some after a random byte count: inside a frame); the launchers
   * reconnect by themselves. The demo then waits until every drop was resumed before the final pause.
   */
  drops?: number;
  /** Seed of the drops' moments and kinds (default: the world seed). */
  dropSeed?: number;
}

export interface DemoResult {
  players: number;
  actions: number;
  late: number;
  /** Resync rounds the host verified (its host.json), measured. */
  resyncs: number;
  /** Resync rounds that failed, with the last failure's reason. */
  resyncsFailed: number;
  resyncFailure?: string;
  /** Every part that differed in a checksum round, with the games on each side (the host's host.json). */
  differences: { n: number; part: string; games: string[][] }[];
  /** Every repair the host's policy asked for, with its reason. */
  repairRequests: { reason: string }[];
  worldsEqual: boolean;
  worldHash: string;
  pauseAt?: number;
  /** Pause items every game had read at the comparison (status `pause`, alike on every game): the bots' actions in the pause. */
  pauseItems?: number;
  /** --report: the path of the bug report's zip, measured (the file exists). */
  report?: string;
  /** --drops: the cuts the demo made, and the drops and resumes the players' launchers printed (measured). */
  cuts?: number;
  drops?: number;
  resumes?: number;
  /** --drops: resumes the host could not catch up (a `player returned` round reloaded the game), and plain rejoins. */
  reloads?: number;
  rejoins?: number;
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
  let proxies: DropProxies | undefined;
  const until = <T>(probe: () => T | undefined, ms: number, what: string, everyMs = 100) => untilDefined(probe, ms, what, everyMs, o.signal);
  const aborted = new Promise<never>((_, fail) => {
    if (o.signal?.aborted) fail(o.signal.reason);
    o.signal?.addEventListener('abort', () => fail(o.signal!.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    const desyncAt = o.desync ? o.players - 1 : -1;
    const desyncEnv = (i: number): Record<string, string> => (i === desyncAt ? { [DESYNC_ENV]: String(DESYNC_AFTER_MS) } : {});
    const host = new Launcher('host', ['host', '--listen', '127.0.0.1:0', '--name', 'host', '--session-dir', dirs[0]!, ...simArgs(0)], desyncEnv(0));
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
    // --drops: every player gets a code naming its own proxy in front of the host.
    if (o.drops !== undefined && o.players > 1) proxies = await startDropProxies(code, o.players, o.dropSeed ?? o.worldSeed);
    const codeFor = (i: number) => proxies?.codeFor(i) ?? code;
    const joiner = (i: number) => new Launcher(names[i]!, ['join', codeFor(i), '--name', names[i]!, '--session-dir', dirs[i]!, ...simArgs(i)], desyncEnv(i));
    // --hot-join: the last player joins later, into the running session.
    const atStart = o.hotJoin && o.players > 1 ? o.players - 1 : o.players;
    for (let i = 1; i < atStart; i++) launchers.push(joiner(i));
    if (o.live) print(`demo: ${o.players} games in ${root}`);
    if (o.inspect !== undefined) await printInspectors(launchers, print, aborted);
    // Every game joined and said Hello: start.
    await until(() => {
      const h = hostStatus(dirs[0]!);
      return h && h.players.length === atStart && h.players.every((p) => p.ready) ? true : undefined;
    }, 60_000, 'every game to join and say hello');
    host.type('/start');
    await until(() => (hostStatus(dirs[0]!)?.session.started ? true : undefined), 30_000, 'the session to start');

    const rows = (): GameRow[] => {
      const h = hostStatus(dirs[0]!);
      return dirs.map((dir, i) => {
        const row = h?.players.find((p) => p.name === names[i]);
        return { name: names[i]!, id: i, status: gameStatus(dir), rtt: row?.rtt, ...(row?.away ? { away: true } : {}) };
      });
    };
    const started = Date.now();
    const speeds = o.speeds.length ? o.speeds : [1];
    let speedIndex = -1;
    let hotJoined = atStart === o.players;
    // --drops: the cuts, in time order (ms after the start, player index, kind).
    const cuts = proxies ? planDrops({ players: o.players, seconds: o.seconds, perPlayer: o.drops ?? 0, seed: o.dropSeed ?? o.worldSeed }) : [];
    let cutsMade = 0;
    const launcherOf = (i: number) => launchers.find((l) => l.name === names[i]);
    while (Date.now() - started < o.seconds * 1000) {
      if (!hotJoined && Date.now() - started >= (o.seconds * 1000) / 3) {
        hotJoined = true;
        launchers.push(joiner(atStart));
      }
      while (cuts.length > 0 && cuts[0]!.atMs <= Date.now() - started) {
        const cut = cuts.shift()!;
        // A player that is not running yet (the hot joiner) or is still reconnecting from its last cut is skipped.
        const l = launcherOf(cut.player);
        const r = l ? countReconnects(l.lines) : undefined;
        if (!l || !r || r.drops !== r.resumes + r.rejoins) continue;
        if (proxies!.cut(cut) > 0) cutsMade++;
      }
      const phase = Math.min(speeds.length - 1, Math.floor(((Date.now() - started) / (o.seconds * 1000)) * speeds.length));
      if (phase !== speedIndex) {
        speedIndex = phase;
        if (phase > 0 || speeds[0] !== 1) host.type(`/speed ${speeds[phase]}`);
      }
      if (o.live) show(formatTable(rows(), hostStatus(dirs[0]!)?.session, hostStatus(dirs[0]!)?.checksums, hostStatus(dirs[0]!)?.resync));
      const nextCut = cuts[0] ? cuts[0].atMs - (Date.now() - started) : 1000;
      await pause(Math.max(10, Math.min(1000, nextCut)), o.signal);
    }
    // --drops: every drop resumed and every player back (not away, ready) before the end.
    if (proxies) {
      await until(() => {
        const h = hostStatus(dirs[0]!);
        if (o.live) show(formatTable(rows(), h?.session, h?.checksums, h?.resync));
        const back = launchers.slice(1).every((l) => {
          const r = countReconnects(l.lines);
          return r.drops === r.resumes + r.rejoins;
        });
        return back && h && h.players.length === o.players && h.players.every((p) => p.ready && !p.away) ? true : undefined;
      }, 120_000, 'every dropped player to be back', 250);
    }
    // --desync: the run goes on until the checksum rounds found the divergence and the host asked for a repair.
    if (o.desync) {
      const request = await until(() => {
        const h = hostStatus(dirs[0]!);
        if (o.live) show(formatTable(rows(), h?.session, h?.checksums, h?.resync));
        return h?.checksums?.repairRequests[0];
      }, 90_000, 'the checksum rounds to ask for a repair', 1000);
      // The repair: the resync round the request started ends (verified, or failed with its reason). With
      // FEVERLINK3_AUTO_RESYNC=0 the host only logs and shows the request, and the demo ends with the worlds apart.
      if (request.autoResync) await until(() => {
        const h = hostStatus(dirs[0]!);
        if (o.live) show(formatTable(rows(), h?.session, h?.checksums, h?.resync));
        const r = h?.resync;
        return r && r.rounds.verified + r.rounds.failed > 0 && r.state === 'Idle' ? true : undefined;
      }, 120_000, 'the resync round to end', 500);
    }

    // --hot-join: the run goes on until the joiner is in and the round that loaded the session's world into it ended.
    if (atStart < o.players) {
      if (!hotJoined) launchers.push(joiner(atStart));
      await until(() => {
        const h = hostStatus(dirs[0]!);
        if (o.live) show(formatTable(rows(), h?.session, h?.checksums, h?.resync));
        const r = h?.resync;
        const everyone = h && h.players.length === o.players && h.players.every((p) => p.ready);
        return everyone && r && r.rounds.verified + r.rounds.failed > 0 && r.state === 'Idle' ? true : undefined;
      }, 120_000, 'the joiner to be loaded by a resync round', 500);
    }

    // The end: one pause for all, then every game must stand at pauseAt.
    host.type('/pause');
    const pauseAt = await until(() => hostStatus(dirs[0]!)?.session.pauseAt, 20_000, 'the pause to be set');
    await until(() => (dirs.map(gameStatus).every((s) => s && s.speed === 0 && s.t >= pauseAt) ? true : undefined), 60_000,
      `every game to stand at pauseAt ${pauseAt}`);
    // The bots go on acting in the pause for a while (the pause order flushes their actions to every game at one
    // stamp); then they stop, and once what they sent has reached every game, the worlds are compared: every game
    // has read the same pause items and decided as many commands. Actions stamped past pauseAt stay queued (alike
    // on every game) until the session runs again. Compared while the bots still acted, three status files written
    // at their own moments rarely agree on a loaded machine (DECISIONS.md "Demo: when the worlds are compared").
    await pause(PAUSE_ACTING_MS, o.signal);
    for (const dir of dirs) writeFileSync(join(dir, BOTS_STOP_FILE), '');
    const final = await until(() => {
      const all = dirs.map(gameStatus);
      if (!all.every((s) => s && s.speed === 0)) return undefined;
      const [first] = all;
      const same = all.every(
        (s) => s!.t === first!.t && s!.pause === first!.pause && s!.queued === first!.queued && s!.applied + s!.refused === first!.applied + first!.refused,
      );
      return same ? all : undefined;
    }, 60_000, 'every game to hold the same pause items', 50);
    if (o.live) show(formatTable(rows(), hostStatus(dirs[0]!)?.session, hostStatus(dirs[0]!)?.checksums, hostStatus(dirs[0]!)?.resync));
    const report = o.report ? await askDemoReport(launchers[1] ?? launchers[0]!, aborted) : undefined;
    if (report !== undefined && o.live) print(`bug report: ${report}`);

    const checksums = hostStatus(dirs[0]!)?.checksums;
    const resync = hostStatus(dirs[0]!)?.resync;
    // Ids follow the order the players joined, not their launch order: the host's roster names them.
    const roster = hostStatus(dirs[0]!)?.players ?? [];
    const nameOf = (id: number) => roster.find((p) => p.id === id)?.name ?? names[id] ?? `#${id}`;
    const hashes = final.map((s) => s!.worldHash);
    const reconnects = launchers.slice(1).map((l) => countReconnects(l.lines));
    const sum = (k: keyof ReturnType<typeof countReconnects>) => reconnects.reduce((n, r) => n + r[k], 0);
    return {
      ...(proxies ? { cuts: cutsMade, drops: sum('drops'), resumes: sum('resumes'), reloads: sum('reloads'), rejoins: sum('rejoins') } : {}),
      ...(report === undefined ? {} : { report }),
      players: o.players,
      actions: final.reduce((n, s) => n + s!.actions, 0),
      late: final.reduce((n, s) => n + s!.late, 0),
      differences: (checksums?.differences ?? []).flatMap((d) =>
        d.parts.map((p) => ({ n: d.n, part: p.part, games: p.groups.map((g) => g.games.map(nameOf)) })),
      ),
      repairRequests: (checksums?.repairRequests ?? []).map((r) => ({ reason: r.reason })),
      resyncs: resync?.rounds.verified ?? 0,
      resyncsFailed: resync?.rounds.failed ?? 0,
      ...(resync?.last?.failure ? { resyncFailure: resync.last.failure } : {}),
      worldsEqual: hashes.every((h) => h === hashes[0]),
      worldHash: hashes[0]!,
      pauseAt,
      pauseItems: final[0]!.pause,
      games: final.map((s, i) => ({ name: names[i]!, t: s!.t, worldHash: s!.worldHash, applied: s!.applied, refused: s!.refused, late: s!.late, actions: s!.actions })),
    };
  } finally {
    await Promise.all(launchers.slice(1).map((l) => l.stop()));
    await launchers[0]?.stop();
    await proxies?.close();
    if (!o.keep && !o.root && !o.report) rmSync(root, { recursive: true, force: true });
  }
}

/** Each launcher's `inspector: URL` line, printed as `inspector: URL (name)`, the host's first. */
async function printInspectors(launchers: readonly Launcher[], print: (line: string) => void, aborted: Promise<never>): Promise<void> {
  for (const launcher of launchers) {
    const line = await Promise.race([aborted, launcher.waitForLine((l) => l.startsWith('inspector: '))]);
    print(`${line} (${launcher.name})`);
  }
}
