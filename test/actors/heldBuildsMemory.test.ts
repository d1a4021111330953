// Held strict builds through the real host (HostSession + its lockstep actor, actors/host/hostLockstep.ts), two
// players on the memory network and memory session folders, one simulated clock (issue 9 item 5: "the host drops
// games' BuildVeto and BuildCommit instead of relaying them"). A game's BuildVeto of another's held build reaches
// every game with from and name set by the host; a parked build's BuildCommit reaches every game, its origin
// included; a parked build without a commit is refused by the host on every game after 10 s; a veto the host does not
// relay is answered to the vetoer alone (`late: true`).
import { describe, expect, it } from 'vitest';
import { attachLockstep } from '../../actors/host/hostLockstep.ts';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import type { LinkLine } from '../../adapters/fileLink/linkLine.ts';
import { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameEnd, openMemoryGameLink } from '../../adapters/fileLink/memoryLink.ts';
import { bridgeHostGame, bridgePlayerGame } from '../../adapters/launcher/gameBridge.ts';
import { gameForwarder } from '../../adapters/launcher/resyncCursor.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { runUntil } from '../../adapters/transport/memoryDriver.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY, type LogEntry } from '../support/session.ts';

const T = 10_000;

async function session() {
  const clock = createSimulatedClock();
  const fs = new MemoryFs();
  const logs: LogEntry[] = [];
  const log: LogFn = (e) => logs.push(e);
  const net = createMemoryNetwork({ clock, seed: 9, link: { latencyMs: 10, jitterMs: 3 }, log });
  const run = <T>(probe: () => T | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 1 });
  const hostLink = await openMemoryGameLink(fs, '/sessions/host', { name: 'host', id: 0, role: 'host' }, { clock });
  const localGame = gameForwarder(hostLink, log);
  const host = new HostSession({ hostName: 'host', key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log, localGame });
  host.attach(net.listen('10.0.0.1:7000', { log }));
  const lockstep = attachLockstep(host, { clock, wallClock: () => clock.now(), log });
  bridgeHostGame(host, hostLink, log);
  const hostGame = openMemoryGameEnd(fs, '/sessions/host');
  const hostLines: LinkLine[] = [];
  hostGame.toGame.subscribe((l) => hostLines.push(l));

  async function player(name: string, id: number, address: string) {
    const pending = net.connect('10.0.0.1:7000', { localAddress: address, log });
    const conn = await run(() => settledValue(pending), `${name} to connect`);
    const s = new PlayerSession({ name, key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log });
    const link = await openMemoryGameLink(fs, `/sessions/${name}`, { name, id, role: 'player' }, { clock });
    bridgePlayerGame(s, link, log);
    const game = openMemoryGameEnd(fs, `/sessions/${name}`);
    const lines: LinkLine[] = [];
    game.toGame.subscribe((l) => lines.push(l));
    s.connect(conn);
    await run(() => s.joined, `${name} to join`);
    return { game, lines };
  }
  const alice = await player('alice', 1, '10.0.1.1');
  const bob = await player('bob', 2, '10.0.1.2');
  const games = [
    { id: 0, game: hostGame, lines: hostLines },
    { id: 1, ...alice },
    { id: 2, ...bob },
  ];
  for (const g of games) g.game.send('Hello', { time: T });
  for (const g of games) g.game.send('Clock', { t: T, speed: 0, ahead: 2, safe: T + 400 });
  await run(() => lockstep.actor.getSnapshot().context.games[2]?.clock !== undefined, 'every clock at the host');
  lockstep.start();
  await run(() => games.every((g) => g.lines.some((l) => l.kind === 'Session' && (l.payload as { started?: boolean }).started)), 'the start');
  return { clock, run, games, logs };
}

const of = (lines: LinkLine[], kind: string) => lines.filter((l) => l.kind === kind).map((l) => l.payload as Record<string, unknown>);

describe('held strict builds through the real host', () => {
  it('relays a game’s BuildVeto of a held build to every game with from and name, host cleared', async () => {
    const { run, games } = await session();
    const [host, alice, bob] = games as [(typeof games)[0], (typeof games)[0], (typeof games)[0]];
    alice.game.send('Action', { stamp: T + 1000, seq: 1, body: { tag: 'h', held: true }, category: 'build' });
    await run(() => of(bob.lines, 'Action').length > 0, 'the held build at bob');
    bob.game.send('BuildVeto', { seq: 1, owner: 1, why: 'no node here', host: true });
    await run(() => games.every((g) => of(g.lines, 'BuildVeto').length > 0), 'the veto on every game');
    for (const g of [host, alice, bob]) {
      expect(of(g.lines, 'BuildVeto')).toEqual([{ seq: 1, owner: 1, why: 'no node here', from: 2, name: 'bob' }]);
    }
  });

  it('answers a veto it does not relay to the vetoer alone, `late: true` (the vetoer then applies the build)', async () => {
    const { run, games, clock } = await session();
    const [host, alice, bob] = games as [(typeof games)[0], (typeof games)[0], (typeof games)[0]];
    alice.game.send('Action', { stamp: T + 1000, seq: 1, body: { tag: 'h', held: true }, category: 'build' });
    await run(() => of(bob.lines, 'Action').length > 0, 'the held build at bob');
    // bob promised past the stamp before its veto: some game may have applied it
    bob.game.send('Clock', { t: T, speed: 0, ahead: 2, safe: T + 1200 });
    bob.game.send('BuildVeto', { seq: 1, owner: 1, why: 'no node here' });
    await run(() => of(bob.lines, 'BuildVeto').length > 0, 'the answer at bob');
    expect(of(bob.lines, 'BuildVeto')).toEqual([
      { seq: 1, owner: 1, why: "the vetoing game had promised 11200, past the build's stamp 11000: some game may have applied it", from: 2, name: 'bob', late: true },
    ]);
    const until = clock.now() + 500;
    await run(() => clock.now() >= until, 'a while on the simulated clock');
    for (const g of [host, alice]) expect(of(g.lines, 'BuildVeto')).toEqual([]);
  });

  it('relays a parked build’s BuildCommit to every game, its origin included; refuses one after 10 s', async () => {
    const { clock, run, games } = await session();
    const [host, alice, bob] = games as [(typeof games)[0], (typeof games)[0], (typeof games)[0]];
    alice.game.send('Action', { stamp: T + 400, seq: 1, body: { tag: 'p', commit: true }, category: 'build' });
    alice.game.send('Action', { stamp: T + 400, seq: 2, body: { tag: 'q', commit: true }, category: 'build' });
    await run(() => of(bob.lines, 'Action').length > 1, 'the parked builds at bob');
    alice.game.send('BuildCommit', { seq: 1, owner: 1, stamp: T + 400 });
    await run(() => games.every((g) => of(g.lines, 'BuildCommit').length > 0), 'the commit on every game');
    for (const g of [host, alice, bob]) expect(of(g.lines, 'BuildCommit')).toEqual([{ seq: 1, owner: 1, stamp: T + 400, from: 1 }]);
    // 2 gets no commit: refused on every game by the host after 10 s
    const since = clock.now();
    await run(() => games.every((g) => of(g.lines, 'BuildVeto').length > 0), 'the host’s veto of 1:2');
    expect(clock.now() - since).toBeGreaterThanOrEqual(9_000);
    for (const g of [host, alice, bob]) {
      expect(of(g.lines, 'BuildVeto')).toEqual([{ seq: 2, owner: 1, why: 'no BuildCommit within 10 s', from: 0, name: 'host', host: true }]);
    }
  });
});
