// The host's launcher: HostSession + the TCP listener + (unless --game none) the host's own game as player 0
// on the file link + the lockstep actor, and a status file for the window and the demo. The CLI command
// (adapters/cli/commands/host.ts) parses the arguments and drives this from the terminal.
import { join } from 'node:path';
import { attachLockstep, type HostLockstep } from '../../actors/host/hostLockstep.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import type { Listener, LogFn } from '../../actors/ports.ts';
import { deriveSessionKey } from '../../protocol/keys.ts';
import { realClock } from '../clock.ts';
import { nodeCrypto } from '../crypto/nodeCrypto.ts';
import { openGameLink, type GameLink } from '../fileLink/gameLink.ts';
import { writeFileAtomic } from '../simgame/status.ts';
import { listenTcp } from '../transport/tcp.ts';
import { bridgeHostGame, forwardToGame } from './gameBridge.ts';
import { startGame, type GameChoice, type RunningGame } from './gameProcess.ts';

export interface HostLaunchOptions {
  listen: { host: string; port: number };
  name: string;
  password?: string;
  maxPlayers: number;
  dir: string;
  game: GameChoice;
  log: LogFn;
}

export interface RunningHost {
  host: HostSession;
  listener: Listener;
  secret: Uint8Array;
  lockstep: HostLockstep;
  stop(reason: string): Promise<void>;
}

/** Status the window and `feverlink3 demo` read: players with RTTs, the Session, why the start waits. */
export const HOST_STATUS_FILE = 'host.json';

export async function launchHost(o: HostLaunchOptions): Promise<RunningHost> {
  const { log } = o;
  const secret = nodeCrypto.randomBytes(16);
  const key = await deriveSessionKey(nodeCrypto, secret, o.password);
  const link: GameLink | undefined = o.game.kind === 'none' ? undefined : await openGameLink(o.dir, { name: o.name, id: 0, role: 'host' });
  const listener = await listenTcp({ host: o.listen.host, port: o.listen.port, clock: realClock, log });
  const host = new HostSession(
    { hostName: o.name, key, maxPlayers: o.maxPlayers },
    {
      crypto: nodeCrypto,
      clock: realClock,
      wallClock: Date.now,
      log,
      ...(link ? { localGame: (m) => forwardToGame(link, m, log) } : {}),
    },
  );
  const unbridge = link ? bridgeHostGame(host, link, log) : undefined;
  // A relay-only host (--game none) runs the lockstep without a game of its own: the start waits for the players.
  const lockstep = attachLockstep(host, { clock: realClock, wallClock: Date.now, log }, { hostGame: link !== undefined });
  host.attach(listener);
  let game: RunningGame | undefined;
  try {
    game = startGame(o.game, o.dir, log);
  } catch (error) {
    log({ msg: 'the game did not start', level: 'error', error: String(error) });
  }

  const writeStatus = () =>
    writeFileAtomic(
      join(o.dir, HOST_STATUS_FILE),
      JSON.stringify({ players: host.players(), session: host.sessionPayload(), waiting: lockstep.waiting() ?? null }),
    );
  const statusTimer = setInterval(writeStatus, 500);

  return {
    host,
    listener,
    secret,
    lockstep,
    stop: async (reason) => {
      clearInterval(statusTimer);
      writeStatus();
      host.stop(reason);
      lockstep.stop();
      await listener.close(reason);
      await game?.stop();
      unbridge?.();
      await link?.close();
    },
  };
}
