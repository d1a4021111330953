// A whole resync round over the in-memory network (adapters/transport/memory.ts) and in-memory session folders,
// one simulated clock: the real HostSession with its lockstep, checksum rounds and resync actor (actors/host/
// resync.ts), the save streamed by SaveSender and received by each player's SaveReceiver (real files in a temp
// folder), the real bridges with the resync cursor. The games are scripted ends of their folders: they stand still,
// save and load a file whose content stands for the world, and report that content as their checksum part. One
// player's world differs; after the round every game holds the host's world and the verification is identical.
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
import { RESYNC_SOURCE_CAPABILITY, serveAsRepairSource } from '../../adapters/launcher/repairSource.ts';
import { hostResyncFiles } from '../../adapters/saves/hostResyncFiles.ts';
import { SaveReceiver } from '../../adapters/saves/saveReceiver.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { advanceBy, runUntil } from '../../adapters/transport/memoryDriver.ts';
import { resyncSaveName } from '../../machines/rules/resyncRound.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY, type LogEntry } from '../support/session.ts';

const root = mkdtempSync(join(tmpdir(), 'fl3-resync-memory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const T = 1000;

/** A game that stands at T: its world is `content`, saved and loaded as a file in `saves`. */
function scriptedGame(end: MemoryGameEnd, saves: string, content: string) {
  const game = { content, loads: 0, lines: [] as LinkLine[] };
  const clockLine = () => end.send('Clock', { t: T, speed: 0, ahead: 2, safe: T, stop: true });
  end.toGame.subscribe((line) => {
    game.lines.push(line);
    const p = line.payload as Record<string, unknown>;
    if (line.kind === 'Session') clockLine();
    else if (line.kind === 'ResyncSave') {
      writeFileSync(join(saves, String(p.name)), game.content);
      end.send('SaveDone', { id: p.id, ok: true });
    } else if (line.kind === 'ResyncLoad') {
      const bytes = readFileSync(join(saves, String(p.name)));
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(p.sha256);
      game.content = bytes.toString('utf8');
      game.loads += 1;
      end.send('Hello', { time: T, save: p.name });
      clockLine();
    } else if (line.kind === 'ChecksumRequest') {
      end.send('ChecksumReport', { n: p.n, time: p.at, parts: { edges: createHash('sha256').update(game.content).digest('hex').slice(0, 16) } });
    }
  });
  end.send('Hello', { time: T });
  clockLine();
  return game;
}

/** A host and players alice and bob (bob's world forked) on the memory network, in folder `name` of the temp root;
 * `bobKeepsSaves: false`: bob's launcher keeps no save (its chunks are dropped, its ResyncLoad never reaches its game). */
async function session(name: string, o: { bobKeepsSaves: boolean; sources?: boolean; hostWorld?: string; bobWorld?: string }) {
  const clock = createSimulatedClock();
  const fs = new MemoryFs();
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push({ ...e, at: clock.now() });
  const net = createMemoryNetwork({ clock, seed: 5, link: { latencyMs: 8, jitterMs: 3 }, log });
  const run = <V>(probe: () => V | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 50, maxMs: 900_000 });

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
  const hostGame = scriptedGame(hostEnd, hostSaves, o.hostWorld ?? 'the host’s world');

  async function player(playerName: string, id: number, content: string, keepsSaves: boolean) {
    const saves = join(root, name, playerName);
    mkdirSync(saves, { recursive: true });
    const receiver = new SaveReceiver({ dir: saves, clock, log, fileName: resyncSaveName });
    const pending = net.connect('10.0.0.1:7000', { localAddress: `10.0.1.${id}`, log });
    const conn = await run(() => settledValue(pending), `${playerName} to connect`);
    const savesPort = keepsSaves
      ? { accept: (c: Parameters<SaveReceiver['accept']>[0]) => receiver.accept(c), received: async (i: number, sha: string) => (await receiver.idle(), receiver.loadable(i, sha)) }
      : { accept: () => 'refused', received: async () => undefined };
    const caps = o.sources ? { caps: [RESYNC_SOURCE_CAPABILITY] } : {};
    const player = new PlayerSession({ name: playerName, key: KEY, ...caps }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log, saves: savesPort });
    const dir = `/s/${playerName}`;
    const link = await openMemoryGameLink(fs, dir, { name: playerName, id, role: 'player' }, { clock });
    const stopBridge = bridgePlayerGame(player, link, log);
    const stopSource = o.sources ? serveAsRepairSource(player, link, saves, clock, log) : () => {};
    const stop = () => {
      stopSource();
      stopBridge();
    };
    player.connect(conn);
    await run(() => player.joined, `${playerName} to join`);
    return { player, link, stop, receiver, dir, game: scriptedGame(openMemoryGameEnd(fs, dir), saves, content) };
  }
  const alice = await player('alice', 1, 'the host’s world', true);
  const bob = await player('bob', 2, o.bobWorld ?? 'a world that forked', o.bobKeepsSaves);
  await run(() => host.players().length === 3 && host.players().every((p) => p.ready), 'every game to say hello');
  lockstep.start();
  await run(() => host.sessionPayload().started, 'the session to start');

  // The first round's end (after a failed one the policy may start another once its cooldown is over).
  const roundEnded = () => run(() => resync.status().rounds.verified + resync.status().rounds.failed > 0 || undefined, 'the round to end');
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
  return { run, hostEnd, clock, net, fs, logs, host, lockstep, checksums, resync, hostGame, alice, bob, roundEnded, close };
}

describe('a resync round over the in-memory network', () => {
  it('copies the host game’s world into every game and verifies it', async () => {
    const s = await session('verified', { bobKeepsSaves: true });
    s.resync.start('the host’s button');
    await s.roundEnded();

    expect(s.resync.status()).toMatchObject({ rounds: { verified: 1, failed: 0 }, last: { id: 1, reason: 'the host’s button', result: 'verified' } });
    for (const game of [s.hostGame, s.alice.game, s.bob.game]) {
      expect(game.content).toBe('the host’s world');
      expect(game.loads).toBe(1);
    }
    // Every player's game read its load line, and the launcher's cursor names the end of that line (where the
    // reloaded mod resumes); what the host made for it while the save travelled came after the load.
    for (const p of [s.alice, s.bob]) {
      const load = p.game.lines.findIndex((l) => l.kind === 'ResyncLoad');
      expect(load).toBeGreaterThan(0);
      const states = p.game.lines.slice(load + 1).filter((l) => l.kind === 'Session').map((l) => (l.payload as { resync?: { state: string } }).resync?.state);
      expect(states).toContain('Loading');
      expect(s.fs.readText(`${p.dir}/resync_cursor.txt`)).toMatch(/^1:\d+\n$/);
    }
    expect(s.logs.some((l) => l.msg === 'resync 1 verified: every game loaded the same world')).toBe(true);
    // The Hellos of the load took the players into the session's world (no outsiders), and the session runs again.
    const games = s.lockstep.actor.getSnapshot().context.games;
    expect([1, 2].map((id) => games[id]?.hasWorld)).toEqual([true, true]);
    expect(s.logs.filter((l) => l.msg === 'game is an outsider until a resync round loads the session world')).toEqual([]);
    expect(s.logs.filter((l) => l.msg === 'internal error')).toEqual([]);
    await s.close();
  }, 60_000);

  it('a player whose save never arrives never loads: the round still ends, failed, and the session stays paused', async () => {
    const s = await session('failed', { bobKeepsSaves: false });
    s.resync.start('the host’s button');
    await s.roundEnded();

    expect(s.resync.status()).toMatchObject({ rounds: { verified: 0, failed: 1 } });
    expect(s.resync.status().last?.failure).toBe('the verification checksum differs: parts edges');
    expect(s.bob.game.loads).toBe(0);
    expect(s.bob.game.content).toBe('a world that forked');
    expect(s.logs.some((l) => l.msg === 'resync load dropped: its save did not arrive intact')).toBe(true);
    expect(s.logs.some((l) => l.msg === 'resync 1: no hello after the load from bob in 600 s; going on with the others')).toBe(true);
    const after = s.host.sessionPayload();
    expect(after.speed).toBe(0);
    expect(after.pauseAt).toBeDefined();
    expect(s.logs.some((l) => String(l.msg).startsWith('ResyncFailed: resync 1 failed in Verifying'))).toBe(true);
    // The rounds of the resync were the Verifying rule's, not the policy's: no new round starts by itself.
    await advanceBy(s.clock, s.net, 200_000);
    expect(s.resync.status()).toMatchObject({ state: 'Idle', rounds: { verified: 0, failed: 1 } });
    await s.close();
  }, 60_000);

  it('copies a repair source player’s world when the host’s game applied an action partly', async () => {
    const s = await session('source', { bobKeepsSaves: true, sources: true, hostWorld: 'a partly built world' });
    // The host's engine threw while it applied a command: its world may be partly built.
    s.hostEnd.send('ActionRefused', { seq: 4, from: 2, detail: 'the engine threw', class: 'engine', partial: true });
    await s.run(() => s.resync.actor.getSnapshot().context.marked.includes(0), 'the host’s game marked partial');
    s.resync.start('the host’s button');
    await s.roundEnded();

    expect(s.resync.status()).toMatchObject({ rounds: { verified: 1, failed: 0 } });
    // alice (the first unmarked player that can serve) saved and uploaded; every game loaded her world.
    expect(s.alice.game.lines.some((l) => l.kind === 'ResyncSave')).toBe(true);
    expect(s.hostGame.lines.some((l) => l.kind === 'ResyncSave')).toBe(false);
    for (const game of [s.hostGame, s.alice.game, s.bob.game]) expect(game.content).toBe('the host’s world');
    expect(s.logs.some((l) => l.msg === 'resync 1: save uploaded to the host')).toBe(true);
    await s.close();
  }, 60_000);

  it('a returner past its outbox is resumed without catchUp and reloaded in a `player returned` round', async () => {
    const s = await session('returned', { bobKeepsSaves: true, bobWorld: 'the host’s world' });
    const bobId = s.bob.player.you!;
    s.host.connectionOf(bobId)!.close('reset');
    await s.run(() => s.bob.player.resumable, 'bob away');
    // Away longer than the outbox keeps what it missed (60 s).
    await advanceBy(s.clock, s.net, 61_000);
    const pending = s.net.connect('10.0.0.1:7000', { localAddress: '10.0.1.2' });
    const conn = await s.run(() => settledValue(pending), 'bob to connect again');
    s.bob.player.reconnect(conn);
    await s.run(() => s.logs.some((e) => e.msg === 'player resumed' && e.id === bobId), 'bob resumed');
    expect(s.logs.find((e) => e.msg === 'player resumed' && e.id === bobId)).toMatchObject({ catchUp: false });
    await s.roundEnded();
    expect(s.resync.status().rounds.verified).toBe(1);
    expect(s.logs.some((e) => typeof e.msg === 'string' && e.msg.includes('player returned'))).toBe(true);
    expect(s.bob.game.loads).toBe(1);
    expect(s.host.catchUpOf(bobId)).toBeUndefined(); // its catch-up ended: reloaded
    await s.close();
  });
});
