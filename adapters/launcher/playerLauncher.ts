// The player's launcher: PlayerSession over the first reachable endpoint of the join code, and (unless
// --game none) the player's game on the file link, opened once the Welcome has named our id. Messages for
// the game that arrive before the link is open are kept and written first, in order.
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { JoinCode } from '../../protocol/joinCode.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { realClock } from '../clock.ts';
import { nodeCrypto } from '../crypto/nodeCrypto.ts';
import { openGameLink, type GameLink } from '../fileLink/gameLink.ts';
import { connectTcp } from '../transport/tcp.ts';
import { bridgePlayerGame, forwardToGame } from './gameBridge.ts';
import { startGame, type GameChoice, type RunningGame } from './gameProcess.ts';

export interface PlayerLaunchOptions {
  code: JoinCode;
  name: string;
  password?: string;
  dir: string;
  game: GameChoice;
  log: LogFn;
}

export interface RunningPlayer {
  player: PlayerSession;
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
  const key = await deriveSessionKey(nodeCrypto, o.code.secret, o.password);
  const conn = await connectAny(o.code, log);
  if (!conn) return undefined;
  const player = new PlayerSession({ name: o.name, key }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
  let link: GameLink | undefined;
  let unbridge: (() => void) | undefined;
  let game: RunningGame | undefined;
  const early: Message[] = [];
  const offEarly = player.on((n) => {
    if (n.type === 'game' && !link) early.push(n.message);
    if (n.type === 'welcomed' && o.game.kind !== 'none') void openLink(n.you, n.hostName);
  });
  const openLink = async (you: number, hostName: string) => {
    link = await openGameLink(o.dir, { name: o.name, id: you, role: 'player' });
    for (const message of early.splice(0)) forwardToGame(link, message, log, () => player.clockView());
    offEarly();
    unbridge = bridgePlayerGame(player, link, log);
    log({ msg: 'game link open', you, hostName });
    try {
      game = startGame(o.game, o.dir, log);
    } catch (error) {
      log({ msg: 'the game did not start', level: 'error', error: String(error) });
    }
  };
  player.connect(conn);
  return {
    player,
    stop: async () => {
      await game?.stop();
      unbridge?.();
      await link?.close();
    },
  };
}
