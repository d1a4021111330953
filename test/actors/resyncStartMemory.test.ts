// A session that starts with games at different times starts with a round (spec "Outsiders"; issue 11 item 5), over
// the in-memory network with one simulated clock: the real HostSession with its lockstep, checksum rounds and resync
// actor, the save streamed by SaveSender and received by each player's SaveReceiver (real files in a temp folder),
// the real bridges. The games are scripted ends of their folders (as in resyncMemory.test.ts): they stand still at
// their time, save their world and its time to a file, load one (taking its world and its time), and report the
// world as their checksum part. bob's game says Hello at another time than the host's: at the start it is an
// outsider, a round `start: games at different times` copies the host's world to it, and afterwards it is none.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { attachChecksums } from '../../actors/host/checksums.ts';
import { attachLockstep } from '../../actors/host/hostLockstep.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import { attachResync } from '../../actors/host/resync.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import type { LinkLine } from '../../adapters/fileLink/linkLine.ts';
import { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameEnd, openMemoryGameLink, type MemoryGameEnd } from '../../adapters/fileLink/memoryLink.ts';
import { bridgeHostGame, bridgePlayerGame } from '../../adapters/launcher/gameBridge.ts';
import { gameForwarder } from '../../adapters/launcher/resyncCursor.ts';
import { hostResyncFiles } from '../../adapters/saves/hostResyncFiles.ts';
import { SaveReceiver } from '../../adapters/saves/saveReceiver.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { runUntil } from '../../adapters/transport/memoryDriver.ts';
import { START_ROUND_REASON } from '../../machines/resync.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY, type LogEntry } from '../support/session.ts';

const root = mkdtempSync(join(tmpdir(), 'fl3-resync-start-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HOST_T = 1000;
const HOST_WORLD = 'the host’s world';

/** A game standing still at `t`: its world is `content`; a save holds both, a load takes both. */
function scriptedGame(end: MemoryGameEnd, saves: string, content: string, t: number) {
  const game = { content, t, loads: 0, hellos: [] as number[], lines: [] as LinkLine[] };
  const clockLine = () => end.send('Clock', { t: game.t, speed: 0, ahead: 2, safe: game.t, stop: true });
  const hello = (save?: string) => {
    game.hellos.push(game.t);
    end.send('Hello', { time: game.t, ...(save === undefined ? {} : { save }) });
    clockLine();
  };
  end.toGame.subscribe((line) => {
    game.lines.push(line);
    const p = line.payload as Record<string, unknown>;
    if (line.kind === 'Session') clockLine();
    else if (line.kind === 'ResyncSave') {
      writeFileSync(join(saves, String(p.name)), JSON.stringify({ t: game.t, content: game.content }));
      end.send('SaveDone', { id: p.id, ok: true });
    } else if (line.kind === 'ResyncLoad') {
      const bytes = readFileSync(join(saves, String(p.name)));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(p.sha256);
      const world = JSON.parse(bytes.toString('utf8')) as { t: number; content: string };
      game.content = world.content;
      game.t = world.t;
      game.loads += 1;
      hello(String(p.name));
    } else if (line.kind === 'ChecksumRequest') {
      end.send('ChecksumReport', { n: p.n, time: p.at, parts: { edges: createHash('sha256').update(game.content).digest('hex').slice(0, 16) } });
    }
  });
  hello();
  return game;
}

/** A host and players alice (at the host's time) and bob (at `bobT`, another world) on the memory network. */
async function session(name: string, bobT: number) {
  const clock = createSimulatedClock();
  const fs = new MemoryFs();
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push({ ...e, at: clock.now() });
  const net = createMemoryNetwork({ clock, seed: 7, link: { latencyMs: 8, jitterMs: 3 }, log });
  const run = <V>(probe: () => V | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 50, maxMs: 900_000 });
  /** The session goes on for `ms` (pings and clocks flow; advanceBy would leave the players silent). */
  const runFor = (ms: number) => {
    const until = clock.now() + ms;
    return run(() => clock.now() >= until || undefined, `${ms} ms to pass`);
  };

  const hostSaves = join(root, name, 'host');
  mkdirSync(hostSaves, { recursive: true });
  const hostLink = await openMemoryGameLink(fs, '/s/host', { name: 'host', id: 0, role: 'host' }, { clock });
  const host = new HostSession({ hostName: 'host', key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log, localGame: gameForwarder(hostLink, log) });
  host.attach(net.listen('10.0.0.1:7000', { log }));
  const stopBridge = bridgeHostGame(host, hostLink, log);
  const lockstep = attachLockstep(host, { clock, wallClock: () => clock.now(), log }, { startSpeed: 0 });
  const checksums = attachChecksums(host, lockstep, { clock, log });
  const resync = attachResync(host, lockstep, checksums, { clock, log, files: hostResyncFiles({ savesDir: hostSaves, sealChunk: (p) => host.sealChunk(p), clock, log }) });
  const hostEnd = openMemoryGameEnd(fs, '/s/host');
  const hostGame = scriptedGame(hostEnd, hostSaves, HOST_WORLD, HOST_T);

  async function player(playerName: string, id: number, content: string, t: number) {
    const saves = join(root, name, playerName);
    mkdirSync(saves, { recursive: true });
    const receiver = new SaveReceiver({ dir: saves, clock, log, fileName: resyncSaveName });
    const pending = net.connect('10.0.0.1:7000', { localAddress: `10.0.1.${id}`, log });
    const conn = await run(() => settledValue(pending), `${playerName} to connect`);
    const savesPort = { accept: (c: Parameters<SaveReceiver['accept']>[0]) => receiver.accept(c), received: async (i: number, sha: string) => (await receiver.idle(), receiver.loadable(i, sha)) };
    const player = new PlayerSession({ name: playerName, key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log, saves: savesPort });
    const dir = `/s/${playerName}`;
    const link = await openMemoryGameLink(fs, dir, { name: playerName, id, role: 'player' }, { clock });
    const stopBridge = bridgePlayerGame(player, link, log);
    player.connect(conn);
    await run(() => player.joined, `${playerName} to join`);
    const end = openMemoryGameEnd(fs, dir);
    return { player, link, stop: stopBridge, receiver, end, game: scriptedGame(end, saves, content, t) };
  }
  const alice = await player('alice', 1, HOST_WORLD, HOST_T);
  const bob = await player('bob', 2, bobT === HOST_T ? HOST_WORLD : 'a world from another save', bobT);
  await run(() => host.players().length === 3 && host.players().every((p) => p.ready), 'every game to say hello');
  await run(() => lockstep.actor.getSnapshot().context.games[2]?.clock !== undefined || undefined, 'bob’s clock');

  const close = async () => {
    for (const p of [alice, bob]) {
      p.stop();
      await p.link.close();
      await p.receiver.close();
    }
    resync.stop();
    checksums.stop();
    lockstep.stop();
    stopBridge();
    await hostLink.close();
    host.stop('test over');
  };
  return { run, runFor, clock, net, logs, host, lockstep, resync, hostGame, alice, bob, close };
}

describe('a session that starts with games at different times', () => {
  it('starts, makes bob an outsider, and a `start: games at different times` round copies the host’s world to it', async () => {
    const s = await session('apart', 1400);
    s.lockstep.start();
    await s.run(() => s.host.sessionPayload().started, 'the session to start');
    const games = () => s.lockstep.actor.getSnapshot().context.games;
    // The start did not wait: bob is an outsider from the start, the others hold the session's world.
    expect([0, 1, 2].map((id) => games()[id]?.hasWorld)).toEqual([true, true, false]);
    expect(s.lockstep.actor.getSnapshot().context.startApart).toEqual({ t: HOST_T, outsiders: [{ id: 2, t: 1400 }] });
    // An action of the outsider is refused on every game with the host's BuildVeto (it is read before its load).
    s.bob.end.send('Action', { seq: 1, stamp: 3000, body: { op: 'build' }, category: 'build' });
    await s.run(() => s.resync.status().rounds.verified + s.resync.status().rounds.failed > 0 || undefined, 'the round to end');

    expect(s.resync.status()).toMatchObject({ rounds: { verified: 1, failed: 0 }, last: { id: 1, reason: START_ROUND_REASON, result: 'verified' } });
    expect(START_ROUND_REASON).toBe('start: games at different times');
    // One line names the games and their times; the pause waited only for the games in the session's world.
    const line = "resync 1: the session started with games at different times (the host's game at 1000; bob at 1400): the round copies the host's world to bob";
    expect(s.logs.filter((l) => l.msg === line)).toHaveLength(1);
    expect(s.logs.some((l) => l.msg === "resync 1: pause 1000 waits only for the games in the session's world; not for bob")).toBe(true);
    expect(s.logs.some((l) => l.msg === 'resync 1: Pausing' && l.reason === START_ROUND_REASON)).toBe(true);
    // bob's action: vetoed by the host on every game, never relayed as an Action.
    for (const game of [s.hostGame, s.alice.game, s.bob.game]) {
      expect(game.lines.some((l) => l.kind === 'BuildVeto' && (l.payload as { owner: number; host?: boolean }).owner === 2)).toBe(true);
      expect(game.lines.some((l) => l.kind === 'Action' && (l.payload as { from: number }).from === 2)).toBe(false);
    }
    // Every game loaded the host's world once; bob now stands at the host's time and is no outsider.
    for (const game of [s.hostGame, s.alice.game, s.bob.game]) {
      expect(game.content).toBe(HOST_WORLD);
      expect(game.loads).toBe(1);
    }
    expect(s.bob.game.hellos).toEqual([1400, HOST_T]);
    expect([0, 1, 2].map((id) => games()[id]?.hasWorld)).toEqual([true, true, true]);
    expect(String(s.lockstep.actor.system.get('pacing:2')?.getSnapshot().value)).toBe('Pacing');
    expect(s.logs.some((l) => l.msg === 'resync 1 verified: every game loaded the same world')).toBe(true);
    // No second round follows (the verification was identical; nothing else asks for one).
    await s.runFor(30_000);
    expect(s.resync.status()).toMatchObject({ state: 'Idle', rounds: { verified: 1, failed: 0 } });
    expect(s.bob.game.loads).toBe(1);
    expect(s.logs.filter((l) => l.msg === 'internal error')).toEqual([]);
    await s.close();
  }, 60_000);

  it('a start at one time stays as it was: no outsider, no round', async () => {
    const s = await session('together', HOST_T);
    s.lockstep.start();
    await s.run(() => s.host.sessionPayload().started, 'the session to start');
    await s.runFor(30_000);
    const context = s.lockstep.actor.getSnapshot().context;
    expect(context.startApart).toBeUndefined();
    expect([0, 1, 2].map((id) => context.games[id]?.hasWorld)).toEqual([true, true, true]);
    expect(s.resync.status()).toMatchObject({ state: 'Idle', id: 0, rounds: { verified: 0, failed: 0 } });
    for (const game of [s.hostGame, s.alice.game, s.bob.game]) expect(game.loads).toBe(0);
    expect(s.logs.some((l) => typeof l.msg === 'string' && l.msg.includes('different times'))).toBe(false);
    await s.close();
  }, 60_000);
});
