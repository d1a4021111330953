// The player's launcher: PlayerSession over the first reachable endpoint of the join code, and (unless
// --game none) the player's game on the file link, opened once the Welcome has named our id. Messages for
// the game that arrive before the link is open are kept and written first, in order. A game that cannot
// start is refused before connecting; a game link or game that fails after the Welcome resolves `failed`
// (the command then leaves the session and ends with one line). A resync save is received into the game's savegame
// folder (adapters/saves/saveReceiver.ts; the simulated game's: <session dir>/saves).
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import { attachReportPart, type PlayerReport } from '../../actors/player/reportPart.ts';
import { playerReportIo } from '../report/reportIo.ts';
import type { JoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { realClock } from '../clock.ts';
import { nodeCrypto } from '../crypto/nodeCrypto.ts';
import { openGameLink, type GameLink } from '../fileLink/gameLink.ts';
import { startupError, StartupError } from '../cli/failure.ts';
import { connectTcp } from '../transport/tcp.ts';
import { bridgePlayerGame } from './gameBridge.ts';
import { gameSavesDir } from './gameSaves.ts';
import { RESYNC_SOURCE_CAPABILITY, serveAsRepairSource } from './repairSource.ts';
import { SaveReceiver } from '../saves/saveReceiver.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { GameOutlet } from './gameOutlet.ts';
import { openLauncherTrace, startLiveInspector } from './trace.ts';
import { gameProblem, startGame, type GameChoice, type RunningGame } from './gameProcess.ts';

export interface PlayerLaunchOptions {
  code: JoinCode;
  name: string;
  password?: string;
  dir: string;
  game: GameChoice;
  log: LogFn;
  /** `--inspect PORT`: serve the inspector's live page on 127.0.0.1:PORT (0: any free port). */
  inspect?: number;
}

export interface RunningPlayer {
  player: PlayerSession;
  /** Bug reports (issue 14): this launcher's part, and `request(note)` for the terminal's /report. */
  report: PlayerReport;
  /** Resolves when the game link or the game could not start after the Welcome; otherwise never. */
  failed: Promise<StartupError>;
  /** The inspector's page, with `inspect`. */
  inspectorUrl?: string;
  stop(): Promise<void>;
}

/** Tries each endpoint of the code in turn; the first that accepts the TCP connection wins. */
async function connectAny(code: JoinCode, log: LogFn) {
  for (const ep of code.endpoints) {
    try {
      return await connectTcp({ host: ep.host, port: ep.port, clock: realClock, log });
    } catch (error) {
      log({ msg: 'connect failed', host: ep.host, port: ep.port, error: String(error) });
    }
  }
  return undefined;
}

/** Connects and starts the session; undefined when no endpoint could be reached. */
export async function launchPlayer(o: PlayerLaunchOptions): Promise<RunningPlayer | undefined> {
  const { log } = o;
  const problem = gameProblem(o.game);
  if (problem !== undefined) throw new StartupError(`cannot start the game: ${problem}`);
  const key = await deriveSessionKey(nodeCrypto, o.code.secret, o.password);
  const conn = await connectAny(o.code, log);
  if (!conn) return undefined;
  const live = o.inspect === undefined ? undefined : await startLiveInspector(o.inspect, realClock, `player ${o.name}`).catch((error: unknown) => {
    conn.close('shutdown');
    throw error;
  });
  const trace = openLauncherTrace(o.dir, realClock, log, process.env, live?.inspect);
  // The resync saves arrive in the game's savegame folder under the name the game loads (spec "Receiving side").
  const savesDir = gameSavesDir(o.game, o.dir);
  const receiver = savesDir ? new SaveReceiver({ dir: savesDir, clock: realClock, log, fileName: resyncSaveName }) : undefined;
  const player = new PlayerSession(
    { name: o.name, key, ...(savesDir ? { caps: [RESYNC_SOURCE_CAPABILITY] } : {}) },
    {
      crypto: nodeCrypto,
      clock: realClock,
      wallClock: Date.now,
      log,
      ...(trace.inspect ? { inspect: trace.inspect } : {}),
      ...(receiver ? { saves: { accept: (chunk) => receiver.accept(chunk), received: async (id, sha256) => (await receiver.idle(), receiver.loadable(id, sha256)) } } : {}),
    },
  );
  let link: GameLink | undefined;
  let unbridge: (() => void) | undefined;
  let unsource: (() => void) | undefined;
  let game: RunningGame | undefined;
  let fail: (error: StartupError) => void = () => {};
  const failed = new Promise<StartupError>((resolve) => {
    fail = resolve;
  });
  // What the host sends for the game before its link opens is kept, bounded; an overflow ends the session.
  const end = (reason: string) => fail(new StartupError(`the session ended: ${reason}`));
  const outlet = new GameOutlet({ log, end, view: () => player.clockView() });
  const offEarly = player.on((n) => {
    if (n.type === 'game' && !link) outlet.push(n.message);
    if (n.type === 'welcomed' && o.game.kind !== 'none') {
      openLink(n.you, n.hostName).catch((error: unknown) => {
        log({ msg: 'the game did not start', level: 'error', error: String(error) });
        fail(startupError(link ? 'start the game' : `open the game link in ${o.dir}`, error));
      });
    }
  });
  let stopped = false;
  const openLink = async (you: number, hostName: string) => {
    const opened = await openGameLink(o.dir, { name: o.name, id: you, role: 'player' });
    if (stopped) {
      await opened.close(); // the player left while the link opened: no game
      return;
    }
    link = opened;
    outlet.attach(opened);
    offEarly();
    unbridge = bridgePlayerGame(player, opened, log, { end });
    if (savesDir) unsource = serveAsRepairSource(player, opened, savesDir, realClock, log);
    log({ msg: 'game link open', you, hostName });
    game = startGame(o.game, o.dir, log);
  };
  const report = attachReportPart(player, {
    clock: realClock,
    log,
    io: playerReportIo({ dir: o.dir, clock: realClock, log }),
    ...(trace.inspect ? { inspect: trace.inspect } : {}),
  });
  player.connect(conn);
  return {
    player,
    report,
    failed,
    ...(live ? { inspectorUrl: live.url } : {}),
    stop: async () => {
      stopped = true;
      await game?.stop();
      unbridge?.();
      unsource?.();
      await link?.close();
      await receiver?.close();
      await report.stop();
      await trace.close();
      await live?.close();
    },
  };
}
