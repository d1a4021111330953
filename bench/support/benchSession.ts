// A whole lockstep session in one process for the latency bench: HostSession + listenTcp + the lockstep actor
// (actors/host/hostLockstep.ts), players as PlayerSession + connectTcp, each game either on a real session folder
// (openGameLink + the launcher's bridge functions) or in memory, and "games" played by the bench: Hello and a
// Clock at one time, cmd.start, then a Clock every 100 ms like the mod (spec/lockstep.md "The game's clock line").
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { attachLockstep, type HostLockstep } from '../../actors/host/hostLockstep.ts';
import { HostSession, type HostNotice } from '../../actors/host/hostSession.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { Listener, LogFn, TransportLimits } from '../../actors/ports.ts';
import { realClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { openGameLink, type GameLink } from '../../adapters/fileLink/gameLink.ts';
import { formatLinkLine } from '../../adapters/fileLink/linkLine.ts';
import { sessionPaths } from '../../adapters/fileLink/sessionFolder.ts';
import {
  bridgeHostGame,
  bridgePlayerGame,
  forwardToGame,
  messageFromGame,
} from '../../adapters/launcher/gameBridge.ts';
import { connectTcp, listenTcp } from '../../adapters/transport/tcp.ts';
import type { ClockPayload } from '../../protocol/messages/index.ts';
import { completion } from './baseline.ts';

/** The game time every bench game loads at (game ms). */
export const START_T = 10_000;
/** The mod's Clock cadence (ms). */
const CLOCK_MS = 100;
/** One step, game ms (spec/lockstep.md "Units"). */
const STEP = 200;

/** The part of a game the bench plays: it writes lines the way the game would. */
export interface BenchGame {
  readonly id: number;
  /** Session folder, when the game is on the file link. */
  readonly dir: string | undefined;
  /** One line from the game: appended to from_game.log, or handed to the session in memory. */
  send(kind: string, payload: unknown): Promise<void>;
}

export interface BenchPlayer {
  readonly player: PlayerSession;
  readonly game: BenchGame;
  readonly link: GameLink | undefined;
}

export interface BenchSession {
  readonly host: HostSession;
  readonly lockstep: HostLockstep;
  readonly hostGame: BenchGame;
  readonly players: readonly BenchPlayer[];
  /** Warnings and errors the session logged (a bench that hides them would measure a broken run). */
  readonly problems: { msg: string; [k: string]: unknown }[];
  /** A game's Clock for the session time now (running at speed 1 since the start). */
  clockNow(): ClockPayload;
  close(): Promise<void>;
}

export interface BenchSessionOptions {
  /** Root temp folder; each game on the file link gets a subfolder. */
  dir: string;
  players: number;
  /** Games on real session folders (true) or in memory (false: frames only). */
  files: boolean;
  /** Listener limits (the relay-rate run lifts the per-connection rates). */
  limits?: Partial<TransportLimits>;
  /** Sees the host's notices before the lockstep actor does (a stage timestamp without the relay's own work). */
  watchHost?: (notice: HostNotice) => void;
}

const quietLevels = new Set(['debug', 'info', undefined]);

/** Builds and starts a session; resolves once every player has read Session{started:true}. */
export async function startBenchSession(o: BenchSessionOptions): Promise<BenchSession> {
  const problems: { msg: string; [k: string]: unknown }[] = [];
  const log: LogFn = (entry) => {
    if (!quietLevels.has(entry.level as string | undefined) || /skipped|dropped|problem|failed/.test(entry.msg)) {
      problems.push(entry);
    }
  };
  const cleanups: (() => void | Promise<void>)[] = [];
  const close = async () => {
    for (const step of cleanups.reverse()) await step();
  };
  try {
    const key = nodeCrypto.randomBytes(32);
    const limits = o.limits ? { limits: o.limits } : {};
    const listener: Listener = await listenTcp({ host: '127.0.0.1', port: 0, clock: realClock, log, ...limits });
    cleanups.push(() => listener.close('bench over'));
    const hostIdentity = { name: 'host', id: 0, role: 'host' } as const;
    const hostLink = o.files ? await openGameLink(join(o.dir, 'host'), hostIdentity) : undefined;
    if (hostLink) cleanups.push(() => hostLink.close());
    const host = new HostSession(
      { hostName: 'host', key, maxPlayers: 8 },
      {
        crypto: nodeCrypto,
        clock: realClock,
        wallClock: Date.now,
        log,
        ...(hostLink ? { localGame: (m) => forwardToGame(hostLink, m, log) } : {}),
      },
    );
    cleanups.push(() => host.stop('bench over'));
    if (hostLink) cleanups.push(bridgeHostGame(host, hostLink, log));
    if (o.watchHost) cleanups.push(host.on(o.watchHost));
    const lockstep = attachLockstep(host, { clock: realClock, wallClock: Date.now, log });
    cleanups.push(() => lockstep.stop());
    host.attach(listener);
    const hostGame = hostLink ? await fileGame(0, hostLink.dir, cleanups) : memoryGame(0, (kind, payload) => {
      const message = messageFromGame(kind, payload, log);
      if (message) host.fromLocalGame(message);
    });

    const players: BenchPlayer[] = [];
    for (let i = 1; i <= o.players; i++) {
      players.push(await joinBenchPlayer(o, listener.port, key, `p${i}`, log, cleanups));
    }

    // The start: every game says Hello and stands at the same time, then the host starts the session.
    const games = [hostGame, ...players.map((p) => p.game)];
    const standing: ClockPayload = { t: START_T, speed: 0, ahead: 2, safe: START_T };
    for (const game of games) {
      await game.send('Hello', { time: START_T });
      await game.send('Clock', standing);
    }
    const started = completion(10_000, 'every player to read the started Session');
    cleanups.push(() => started.cancel());
    let seen = 0;
    for (const p of players) {
      const off = p.player.on((n) => {
        if (n.type !== 'game' || n.message.kind !== 'Session' || !n.message.payload.started) return;
        off();
        started.poke(++seen === players.length);
      });
    }
    const ready = completion(10_000, 'every game to be ready with a clock');
    cleanups.push(() => ready.cancel());
    const check = () => {
      const context = lockstep.actor.getSnapshot().context;
      ready.poke(games.every((g) => context.games[g.id]?.ready === true && context.games[g.id]?.clock !== undefined));
    };
    const poll = setInterval(check, 2);
    try {
      check();
      await ready.promise;
    } finally {
      clearInterval(poll);
    }
    lockstep.start();
    const startedAt = performance.now();
    await started.promise;

    const clockNow = (): ClockPayload => {
      const t = START_T + Math.floor(performance.now() - startedAt);
      return { t, speed: 1, ahead: 2, safe: Math.ceil(t / STEP) * STEP + 2 * STEP };
    };
    // Like the mod: a Clock every 100 ms from every game, so no game ever looks stalled to the host.
    const ticker = setInterval(() => {
      for (const game of games) void game.send('Clock', clockNow()).catch(() => undefined);
    }, CLOCK_MS);
    cleanups.push(() => clearInterval(ticker));

    return { host, lockstep, hostGame, players, problems, clockNow, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function joinBenchPlayer(
  o: BenchSessionOptions,
  port: number,
  key: Uint8Array,
  name: string,
  log: LogFn,
  cleanups: (() => void | Promise<void>)[],
): Promise<BenchPlayer> {
  const conn = await connectTcp({ host: '127.0.0.1', port, clock: realClock, log });
  const player = new PlayerSession({ name, key }, { crypto: nodeCrypto, clock: realClock, wallClock: Date.now, log });
  cleanups.push(() => conn.close('bench over'));
  const welcomed = completion(10_000, `${name} to be welcomed`);
  cleanups.push(() => welcomed.cancel());
  let you = -1;
  const off = player.on((n) => {
    if (n.type === 'welcomed') {
      you = n.you;
      welcomed.poke(true);
    }
  });
  player.connect(conn);
  await welcomed.promise;
  off();
  if (!o.files) {
    const game = memoryGame(you, (kind, payload) => {
      const message = messageFromGame(kind, payload, log);
      if (message) player.send(message.kind, message.payload as never);
    });
    return { player, game, link: undefined };
  }
  // As playerLauncher does once the Welcome named our id: open the link, bridge it.
  const link = await openGameLink(join(o.dir, name), { name, id: you, role: 'player' });
  cleanups.push(() => link.close());
  cleanups.push(bridgePlayerGame(player, link, log));
  return { player, game: await fileGame(you, link.dir, cleanups), link };
}

/** A game on the file link: its lines appended to from_game.log through one `a`-mode handle, one write each. */
async function fileGame(id: number, dir: string, cleanups: (() => void | Promise<void>)[]): Promise<BenchGame> {
  const file: FileHandle = await open(sessionPaths(dir).fromGame, 'a');
  cleanups.push(() => file.close());
  let queue = Promise.resolve();
  return {
    id,
    dir,
    send(kind, payload) {
      const line = formatLinkLine(kind, payload);
      // One writer, in call order (the game writes its lines one after the other).
      const written = queue.then(() => file.write(line)).then(() => undefined);
      queue = written.catch(() => undefined);
      return written;
    },
  };
}

function memoryGame(id: number, deliver: (kind: string, payload: unknown) => void): BenchGame {
  return {
    id,
    dir: undefined,
    send(kind, payload) {
      deliver(kind, payload);
      return Promise.resolve();
    },
  };
}
