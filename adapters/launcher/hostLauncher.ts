// The host's launcher: HostSession + the TCP listener + (unless --game none) the host's own game as player 0
// on the file link + the lockstep actor + the checksum rounds (actors/host/checksums.ts) + the resync rounds
// (actors/host/resync.ts, the save in <session dir>/saves for the simulated game), and a status file for the
// window and the demo. The CLI command (adapters/cli/commands/host.ts) parses the arguments and drives this from
// the terminal.
// What it cannot start (the game, the port, the game link) is a StartupError naming what and why, after
// everything already opened is closed again; the cheap refusals come first and the slow key derivation last.
import { join } from 'node:path';
import { attachLockstep, type HostLockstep } from '../../actors/host/hostLockstep.ts';
import { attachChecksums, type HostChecksums } from '../../actors/host/checksums.ts';
import { attachResync, type HostResync } from '../../actors/host/resync.ts';
import { attachReport, type HostReport } from '../../actors/host/report.ts';
import { FRAME_VERSION } from '../../protocol/frame.ts';
import { hostReportIo } from '../report/reportIo.ts';
import { autoResyncFromEnv, reloadModesFromEnv } from '../../machines/rules/resyncRound.ts';
import { hostResyncFiles } from '../saves/hostResyncFiles.ts';
import { gameSavesDir } from './gameSaves.ts';
import { budgetedLog } from '../../actors/logBudget.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import type { Listener, LogFn, TransportLimits } from '../../actors/ports.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { realClock } from '../clock.ts';
import { nodeBase64 } from '../base64/nodeBase64.ts';
import { nodeCrypto } from '../crypto/nodeCrypto.ts';
import { openGameLink, type GameLink } from '../fileLink/gameLink.ts';
import { startupError, StartupError } from '../cli/failure.ts';
import { listenTcp } from '../transport/tcp.ts';
import { bridgeHostGame } from './gameBridge.ts';
import { gameForwarder } from './resyncCursor.ts';
import { StatusFile } from './statusFile.ts';
import { openLauncherTrace, startLiveInspector } from './trace.ts';
import { gameProblem, startGame, type GameChoice, type RunningGame } from './gameProcess.ts';

export interface HostLaunchOptions {
  listen: { host: string; port: number };
  name: string;
  password?: string;
  maxPlayers: number;
  dir: string;
  game: GameChoice;
  log: LogFn;
  /** `--inspect PORT`: serve the inspector's live page on 127.0.0.1:PORT (0: any free port). */
  inspect?: number;
  /** The transport's limits changed from the spec's (FEVERLINK3_RATE_LIMIT_SCALE: the relay bench's capacity run). */
  transportLimits?: Partial<TransportLimits>;
  /** The session key's budget in payload bytes (protocol/keyBudget.ts); unset, the spec's 2^38. Tests shrink it. */
  keyBudgetBytes?: number;
}

export interface RunningHost {
  host: HostSession;
  listener: Listener;
  secret: Uint8Array;
  lockstep: HostLockstep;
  /** The checksum rounds, verdicts and repair policy (status() for the window and the demo). */
  checksums: HostChecksums;
  /** The resync rounds (status() for the window and the demo). */
  resync: HostResync;
  /** Bug reports (issue 14): `request(note)` is the terminal's /report. */
  report: HostReport;
  /** Resolves with the reason when the session cannot go on (its lockstep failed, its game link failed). */
  failed: Promise<string>;
  /** The inspector's page, with `inspect`. */
  inspectorUrl?: string;
  stop(reason: string): Promise<void>;
}

/** Status the window and `feverlink3 demo` read: players with RTTs, the Session, why the start waits. */
export const HOST_STATUS_FILE = 'host.json';

/** "127.0.0.1:27015", "[::1]:27015". */
export function addressText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export async function launchHost(o: HostLaunchOptions): Promise<RunningHost> {
  // What peers can cause to be logged passes a budget of lines per second (docs/SECURITY.md); the launcher's own
  // lines (startup, the game) do not.
  const log = budgetedLog(o.log, realClock);
  let fail: (reason: string) => void = () => {};
  const failed = new Promise<string>((resolve) => {
    fail = resolve;
  });
  const problem = gameProblem(o.game);
  if (problem !== undefined) throw new StartupError(`cannot start the game: ${problem}`);
  const live = o.inspect === undefined ? undefined : await startLiveInspector(o.inspect, realClock, `host ${o.name}`);
  let listener: Listener;
  try {
    listener = await listenTcp({ host: o.listen.host, port: o.listen.port, clock: realClock, log, limits: o.transportLimits ?? {} });
  } catch (error) {
    await live?.close();
    throw startupError(`listen on ${addressText(o.listen.host, o.listen.port)}`, error);
  }
  const link: GameLink | undefined =
    o.game.kind === 'none'
      ? undefined
      : await openGameLink(o.dir, { name: o.name, id: 0, role: 'host' }).catch(async (error: unknown) => {
          await listener.close('shutdown');
          await live?.close();
          throw startupError(`open the game link in ${o.dir}`, error);
        });
  const trace = openLauncherTrace(o.dir, realClock, o.log, process.env, live?.inspect);
  const secret = nodeCrypto.randomBytes(16);
  const key = await deriveSessionKey(nodeCrypto, secret, o.password);
  const host = new HostSession(
    { hostName: o.name, key, maxPlayers: o.maxPlayers, ...(o.keyBudgetBytes === undefined ? {} : { keyBudgetBytes: o.keyBudgetBytes }) },
    {
      crypto: nodeCrypto,
      base64: nodeBase64,
      clock: realClock,
      wallClock: Date.now,
      log,
      ...(trace.inspect ? { inspect: trace.inspect } : {}),
      ...(link ? { localGame: gameForwarder(link, o.log) } : {}),
    },
  );
  // The host ended the session itself (its key's budget spent, its chart failed): the launcher ends too.
  host.on((notice) => {
    if (notice.type === 'ended') fail(notice.detail);
  });
  const unbridge = link ? bridgeHostGame(host, link, o.log, { end: fail }) : undefined;
  // A relay-only host (--game none) runs the lockstep without a game of its own: the start waits for the players.
  const lockstep = attachLockstep(
    host,
    { clock: realClock, wallClock: Date.now, log, ...(trace.inspect ? { inspect: trace.inspect } : {}) },
    { hostGame: link !== undefined, onFailure: (err) => fail(`the lockstep failed (${String(err)})`) },
  );
  const checksums = attachChecksums(
    host,
    lockstep,
    { clock: realClock, log, ...(trace.inspect ? { inspect: trace.inspect } : {}) },
    { autoResync: autoResyncFromEnv(process.env), onFailure: (err) => fail(`the checksum rounds failed (${String(err)})`) },
  );
  const savesDir = link ? gameSavesDir(o.game, o.dir) : undefined;
  const resync = attachResync(
    host,
    lockstep,
    checksums,
    {
      clock: realClock,
      log,
      ...(trace.inspect ? { inspect: trace.inspect } : {}),
      ...(savesDir ? { files: hostResyncFiles({ savesDir, sealChunk: (p) => host.sealChunk(p), clock: realClock, log }) } : {}),
    },
    { ...reloadModesFromEnv(process.env), onFailure: (err) => fail(`the resync round failed (${String(err)})`) },
  );
  const report = attachReport(
    host,
    {
      clock: realClock,
      log,
      wallClock: Date.now,
      randomSalt: () => Buffer.from(nodeCrypto.randomBytes(16)).toString('base64url'),
      io: hostReportIo({ dir: o.dir, clock: realClock, log }),
      ...(trace.inspect ? { inspect: trace.inspect } : {}),
    },
    { session: o.name, hostVersion: host.options.version, protocol: FRAME_VERSION },
  );
  host.attach(listener);

  // A status file that cannot be written (a full disk) is logged once per streak; the session goes on.
  const statusFile = new StatusFile(join(o.dir, HOST_STATUS_FILE), (error) => {
    o.log({ msg: 'status not written', level: 'warn', error: String(error) });
  });
  const writeStatus = () => {
    statusFile.offer(
      JSON.stringify({
        players: host.players(),
        session: host.sessionPayload(),
        waiting: lockstep.waiting() ?? null,
        checksums: checksums.status(),
        resync: resync.status(),
        ...(unbridge ? { link: unbridge.status().link } : {}),
      }),
    );
  };
  let statusTimer: NodeJS.Timeout | undefined;
  let game: RunningGame | undefined;
  const stop = async (reason: string) => {
    clearInterval(statusTimer);
    writeStatus();
    host.stop(reason);
    resync.stop();
    await report.stop();
    checksums.stop();
    lockstep.stop();
    await listener.close(reason);
    await game?.stop();
    unbridge?.();
    await link?.close();
    await statusFile.settled(); // the last status, written at the top of stop, is on disk when stop resolves
    await trace.close();
    await live?.close();
  };
  try {
    game = startGame(o.game, o.dir, o.log);
  } catch (error) {
    o.log({ msg: 'the game did not start', level: 'error', error: String(error) });
    await stop('shutdown');
    throw startupError('start the game', error);
  }
  statusTimer = setInterval(writeStatus, 500);

  return { host, listener, secret, lockstep, checksums, resync, report, failed, stop, ...(live ? { inspectorUrl: live.url } : {}) };
}
