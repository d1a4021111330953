// A whole session with no sockets and no files (DESIGN.md "Actors": the same sessions run over the simulator's
// in-memory network and folder): a host and two players on the memory network, one simulated clock, each game on
// an in-memory session folder through the real bridges (adapters/launcher/gameBridge.ts); the games are the
// folder's other end (openMemoryGameEnd), as the mod is on files.
import { describe, expect, it } from 'vitest';
import { HostSession } from '../../actors/host/hostSession.ts';
import { PlayerSession } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import type { LinkLine } from '../../adapters/fileLink/linkLine.ts';
import { MemoryFs } from '../../adapters/fileLink/memoryFs.ts';
import { openMemoryGameEnd, openMemoryGameLink } from '../../adapters/fileLink/memoryLink.ts';
import { bridgeHostGame, bridgePlayerGame } from '../../adapters/launcher/gameBridge.ts';
import { createMemoryNetwork } from '../../adapters/transport/memory.ts';
import { runUntil } from '../../adapters/transport/memoryDriver.ts';
import { settledValue } from '../support/memorySession.ts';
import { KEY, type LogEntry } from '../support/session.ts';

describe('a session with no sockets and no files', () => {
  it('games talk to their launchers through memory folders, launchers to each other through the memory network', async () => {
    const clock = createSimulatedClock();
    const fs = new MemoryFs();
    const logs: LogEntry[] = [];
    const log: LogFn = (e) => logs.push(e);
    const net = createMemoryNetwork({ clock, seed: 3, link: { latencyMs: 12, jitterMs: 5 }, log });
    const run = <T>(probe: () => T | undefined | false, what: string) => runUntil(clock, net, probe, { what, idleStepMs: 1 });

    const host = new HostSession({ hostName: 'host', key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log });
    host.attach(net.listen('10.0.0.1:7000', { log }));
    const hostLink = await openMemoryGameLink(fs, '/sessions/host', { name: 'host', id: 0, role: 'host' }, { clock });
    const stopHost = bridgeHostGame(host, hostLink, log);
    const hostGame = openMemoryGameEnd(fs, '/sessions/host');

    async function player(name: string, id: number, address: string) {
      const pending = net.connect('10.0.0.1:7000', { localAddress: address, log });
      const conn = await run(() => settledValue(pending), `${name} to connect`);
      const session = new PlayerSession({ name, key: KEY }, { crypto: nodeCrypto, clock, wallClock: () => clock.now(), log });
      const dir = `/sessions/${name}`;
      const link = await openMemoryGameLink(fs, dir, { name, id, role: 'player' }, { clock });
      const stop = bridgePlayerGame(session, link, log);
      const game = openMemoryGameEnd(fs, dir);
      const lines: LinkLine[] = [];
      game.toGame.subscribe((l) => lines.push(l));
      session.connect(conn);
      await run(() => session.joined, `${name} to join`);
      return { session, link, stop, game, lines };
    }

    const alice = await player('alice', 1, '10.0.1.1');
    const bob = await player('bob', 2, '10.0.1.2');
    await run(() => alice.lines.some((l) => l.kind === 'PlayerJoined'), 'bob announced to alice’s game');
    expect(alice.lines.map((l) => l.kind)).toEqual(['Permissions', 'PlayerJoined']);
    expect(alice.lines[1]!.payload).toMatchObject({ player: { id: 2, name: 'bob' } });

    // alice's game says something: her launcher seals it to the host, which relays it to bob, whose game reads it.
    alice.game.send('Chat', { text: 'hello from a simulated game' });
    await run(() => bob.lines.find((l) => l.kind === 'Chat'), 'the chat in bob’s game');
    expect(bob.lines.find((l) => l.kind === 'Chat')!.payload).toMatchObject({ from: 1, name: 'alice', text: 'hello from a simulated game' });

    // The host's own game is player 0 on its folder, with no network hop.
    hostGame.send('Chat', { text: 'the host’s game speaks' });
    await run(() => alice.lines.some((l) => l.kind === 'Chat' && (l.payload as { from: number }).from === 0), 'the host’s chat at alice');

    // A line no game may send is refused at the bridge and never reaches the session.
    alice.game.send('Welcome', { you: 9 });
    alice.game.send('Chat', { text: 'after the bad line' });
    await run(() => bob.lines.some((l) => (l.payload as { text?: string }).text === 'after the bad line'), 'the next line');
    expect(logs.some((l) => l.msg === 'game line skipped' && l.kind === 'Welcome')).toBe(true);
    expect(logs.filter((l) => l.msg === 'handler failed')).toEqual([]);

    for (const p of [alice, bob]) {
      p.stop();
      await p.game.close();
      await p.link.close();
    }
    stopHost();
    await hostGame.close();
    await hostLink.close();
    host.stop('test over');
  });
});
