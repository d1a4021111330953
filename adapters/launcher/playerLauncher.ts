// The player's launcher: PlayerSession over the first reachable endpoint of the join code, and (unless
// --game none) the player's game on the file link, opened once the Welcome has named our id. Messages for
// the game that arrive before the link is open are kept and written first, in order. A game that cannot
// start is refused before connecting; a game link or game that fails after the Welcome resolves `failed`
// (the command then leaves the session and ends with one line). A resync save is received into the game's savegame
// folder (adapters/saves/saveReceiver.ts; the simulated game's: <session dir>/saves).
// A dropped connection (the session's `away` notice) is reconnected by itself with backoff while the reconnect window
// lasts (reconnect.ts, issue 12 item 4), over the join code's endpoints again; the game is told with a system notice
// line (a Chat with a level, from the launcher) when the connection is lost, back, or given up: its barrier already
// keeps it from running past what its peers promised, so it stands still while no promise arrives.
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import { attachReportPart, type PlayerReport } from '../../actors/player/reportPart.ts';
import { playerReportIo } from '../report/reportIo.ts';
import type { JoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { realClock } from '../clock.ts';
import { nodeBase64 } from '../base64/nodeBase64.ts';
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
import { gameForwarder } from './resyncCursor.ts';
import { RECONNECT_WINDOW_MS, ReconnectLoop, type ReconnectEvent } from './reconnect.ts';
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
  /** How long a dropped connection is retried (lockstep.md reconnectSeconds; default 300 s). */
  reconnectWindowMs?: number;
}

export interface RunningPlayer {
  player: PlayerSession;
  /** Bug reports (issue 14): this launcher's part, and `request(note)` for the terminal's /report. */
  report: PlayerReport;
  /** Resolves when the game link or the game could not start after the Welcome; otherwise never. */
  failed: Promise<StartupError>;
  /** The inspector's page, with `inspect`. */
  inspectorUrl?: string;
  /** The reconnect loop: its events for the terminal, `statusLine()` while it reconnects. */
  reconnect: ReconnectLoop;
  /** The resync save on its way to this launcher, if one is (the terminal's progress bar). */
  saveProgress(): ReturnType<SaveReceiver['progress']>;
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
      base64: nodeBase64,
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
  let linkOpening = false;
  const offEarly = player.on((n) => {
    if (n.type === 'game' && !link) outlet.push(n.message);
    // Only the first Welcome opens the link: a resume that became a plain join (a new id) keeps the game it has.
    if (n.type === 'welcomed' && o.game.kind !== 'none' && !linkOpening) {
      linkOpening = true;
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
  // Reconnecting by itself (reconnect.ts): each attempt over the code's endpoints in turn, as the first connection.
  const reconnect = new ReconnectLoop({
    player,
    connect: () => connectAny(o.code, log),
    clock: realClock,
    random: Math.random,
    log,
    windowMs: o.reconnectWindowMs ?? RECONNECT_WINDOW_MS,
  });
  // The game is told (a system notice line, through the link's one forwarder, so it keeps its place among the
  // session's lines): its barrier keeps it standing while no promise comes; the notice says why in mod.log.
  let you: number | undefined;
  player.on((n) => {
    if (n.type === 'welcomed' || n.type === 'resumed') you = n.you;
  });
  const tellGame = (text: string, level: 'info' | 'warn' | 'error') => {
    const message: Message = { kind: 'Chat', payload: { text: text.slice(0, 500), from: you ?? 0, name: 'FeverLink3', level } };
    if (link) gameForwarder(link, log, () => player.clockView())(message);
    else outlet.push(message);
  };
  reconnect.on((e) => {
    const text = gameNoticeOf(e);
    if (text) tellGame(text.text, text.level);
  });
  player.connect(conn);
  return {
    player,
    report,
    failed,
    reconnect,
    saveProgress: () => receiver?.progress(),
    ...(live ? { inspectorUrl: live.url } : {}),
    stop: async () => {
      stopped = true;
      reconnect.stop();
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

/** The game's notice for a reconnect event: the drop, the return, the end (attempts are for the terminal only). */
export function gameNoticeOf(e: ReconnectEvent): { text: string; level: 'info' | 'warn' | 'error' } | undefined {
  switch (e.type) {
    case 'away':
      return { text: `connection to the host lost (${e.reason}): reconnecting; the game waits for the others' promises`, level: 'warn' };
    case 'reconnected':
      if (!e.resumed) return { text: `reconnected as a new player (id ${e.you}): the host will load the session's world`, level: 'warn' };
      return e.caughtUp === false
        ? { text: 'reconnected: the host will reload the world (player returned)', level: 'info' }
        : { text: `reconnected after ${(e.awayMs / 1000).toFixed(1)} s: catching up`, level: 'info' };
    case 'gaveUp':
      return { text: 'the reconnect window ended: the session is over for this game', level: 'error' };
    default:
      return undefined;
  }
}
