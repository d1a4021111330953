// The session core over real TCP on 127.0.0.1: join, refusals, names and ids, permissions, chat relay,
// ping/RTT, leave/kick/away. The host's timers run on a simulated clock, so no test sleeps for them.
import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatedClock } from 'xstate';
import { joinedPlayer, joinPlayer, RawClient, startHost, waitFor, type TestHost } from '../support/session.ts';

let hosts: TestHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  hosts = [];
});
async function host(...args: Parameters<typeof startHost>): Promise<TestHost> {
  const h = await startHost(...args);
  hosts.push(h);
  return h;
}
const sim = (h: TestHost) => h.clock as SimulatedClock;

describe('session core over TCP', () => {
  it('welcomes a player with id 1, the roster and its Permissions right after', async () => {
    const h = await host();
    const alice = await joinedPlayer(h.port, 'alice');
    expect(alice.player.you).toBe(1);
    const kinds = alice.games().map((m) => m.kind);
    expect(kinds.slice(0, 2)).toEqual(['Welcome', 'Permissions']);
    expect(alice.player.players().map((p) => p.name)).toEqual(['host', 'alice']);
    expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice']);
  });

  it('refuses a wrong password (another key) with bad-proof', async () => {
    const h = await host();
    const p = await joinPlayer(h.port, 'mallory', { key: new Uint8Array(32).fill(9) });
    await waitFor(() => p.ended(), 3000);
    expect(p.ended()).toMatchObject({ reason: 'bad-proof' });
    expect(h.logs.find((l) => l.msg === 'join rejected')).toMatchObject({ reason: 'bad-proof' });
  });

  it('refuses another FeverLink3 version naming both', async () => {
    const h = await host();
    const p = await joinPlayer(h.port, 'old', { version: '0.0' });
    await waitFor(() => p.ended(), 3000);
    expect(p.ended()).toMatchObject({ reason: 'version' });
    expect(p.ended()!.detail).toMatch(/0\.1.*0\.0/);
  });

  it('refuses a mod list that differs, and a missing list while the host has one', async () => {
    const h = await host({ mods: [{ id: 'trains', version: '2' }] });
    const a = await joinPlayer(h.port, 'a', { mods: [{ id: 'trains', version: '3' }] });
    const b = await joinPlayer(h.port, 'b');
    await waitFor(() => a.ended() && b.ended(), 3000);
    expect(a.ended()).toMatchObject({ reason: 'mods' });
    expect(b.ended()).toMatchObject({ reason: 'version' });
    const c = await joinedPlayer(h.port, 'c', { mods: [{ id: 'trains', version: '2' }] });
    expect(c.games()[0]).toMatchObject({ kind: 'Welcome', payload: { modsChecked: true } });
  });

  it('answers full with the slot count and the away players', async () => {
    const h = await host({ maxPlayers: 3 });
    await joinedPlayer(h.port, 'a');
    const b = await RawClient.open(h.port);
    await b.join('b');
    b.destroy();
    await waitFor(() => h.notices.find((n) => n.type === 'left' && n.away));
    const c = await joinPlayer(h.port, 'c');
    await waitFor(() => c.ended(), 3000);
    expect(c.ended()).toEqual({ type: 'ended', reason: 'full', detail: '3 players, 1 of them away' });
  });

  it('renames a clashing name to name#id and never reuses an id', async () => {
    const h = await host();
    const a = await joinedPlayer(h.port, 'alice');
    a.player.leave();
    await waitFor(() => h.notices.find((n) => n.type === 'left' && !n.away));
    const b = await joinedPlayer(h.port, 'bob');
    const c = await joinedPlayer(h.port, 'BOB');
    expect([a.player.you, b.player.you, c.player.you]).toEqual([1, 2, 3]);
    expect(h.host.players().map((p) => p.name)).toEqual(['host', 'bob', 'BOB#3']);
  });

  it('relays chat to all but the origin with from and name set by the host', async () => {
    const h = await host();
    const a = await joinedPlayer(h.port, 'alice');
    const b = await joinedPlayer(h.port, 'bob');
    a.player.chat('hello');
    const got = await waitFor(() => b.notices.find((n) => n.type === 'chat'));
    expect(got).toEqual({ type: 'chat', from: 1, name: 'alice', text: 'hello' });
    await waitFor(() => h.notices.find((n) => n.type === 'chat'));
    expect(a.notices.some((n) => n.type === 'chat')).toBe(false);
    h.host.chat('from the host', 'warn');
    await waitFor(() => a.notices.find((n) => n.type === 'chat'));
    expect(a.notices.find((n) => n.type === 'chat')).toEqual({ type: 'chat', from: 0, name: 'host', text: 'from the host', level: 'warn' });
  });

  it('broadcasts Permissions on change and drops a SpeedRequest from a player outside speed (logged once)', async () => {
    const h = await host();
    const a = await RawClient.open(h.port);
    await a.join('alice');
    const b = await joinedPlayer(h.port, 'bob');
    h.host.setPermissions({ ...h.host.currentPermissions(), speed: { only: [2] } });
    await waitFor(() => b.player.permissions?.speed !== 'everyone' && b.player.permissions);
    expect(b.player.permissions!.speed).toEqual({ only: [2] });
    a.send('SpeedRequest', { speed: 4 });
    a.send('SpeedRequest', { speed: 2 });
    b.player.send('SpeedRequest', { speed: 4 });
    await waitFor(() => h.notices.find((n) => n.type === 'game' && n.from === 2));
    expect(h.notices.filter((n) => n.type === 'game' && n.from === 1)).toEqual([]);
    await waitFor(() => h.logs.find((l) => l.msg === 'frame dropped' && l.cause === 'permission'));
    expect(h.logs.filter((l) => l.msg === 'frame dropped' && l.cause === 'permission')).toHaveLength(1);
  });

  it('pings every interval, measures the round trip and reports every RTT in the Ping', async () => {
    const h = await host({ pingIntervalMs: 2000 });
    const a = await joinedPlayer(h.port, 'alice');
    const b = await joinedPlayer(h.port, 'bob');
    sim(h).increment(2000); // ping 1 goes out now
    sim(h).increment(30); // the pongs arrive after this: a 30 ms round trip on the host's clock
    await waitFor(() => h.host.players().every((p) => p.id === 0 || p.rtt !== undefined));
    expect(h.host.players().find((p) => p.id === 1)!.rtt).toBe(30);
    sim(h).increment(2000);
    const rtt = await waitFor(() => b.notices.findLast((n) => n.type === 'rtt' && n.rtt['1'] !== undefined));
    expect(rtt).toMatchObject({ rtt: { '0': 0, '1': 30, '2': 30 } });
    expect(a.games().some((m) => m.kind === 'Ping')).toBe(false); // never given to the game
  });

  it('Leave releases the slot at once: PlayerLeft without away', async () => {
    const h = await host();
    const a = await joinedPlayer(h.port, 'alice');
    const b = await joinedPlayer(h.port, 'bob');
    a.player.leave();
    const left = await waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
    expect(left.payload).toEqual({ id: 1, name: 'alice' });
  });

  it('kick sends the sealed Kicked and releases the slot', async () => {
    const h = await host();
    const a = await joinedPlayer(h.port, 'alice');
    const b = await joinedPlayer(h.port, 'bob');
    h.host.kick(1, 'kicked', 'rude');
    await waitFor(() => a.ended());
    expect(a.ended()).toEqual({ type: 'ended', reason: 'kicked', detail: 'rude' });
    const left = await waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
    expect(left.payload).toEqual({ id: 1, name: 'alice' });
  });

  it('ends the session at the ping round after its key sealed its budget (what it sealed and what it opened)', async () => {
    const h = await host({ keyBudgetBytes: 4000 });
    const a = await joinedPlayer(h.port, 'alice');
    sim(h).increment(2000); // a ping round under the budget: the session goes on, alice is pinged
    await waitFor(() => a.notices.some((n) => n.type === 'rtt'));
    expect(a.ended()).toBeUndefined();
    // alice's lines (opened by the host) and their relay to bob (sealed by it) spend the rest
    const b = await joinedPlayer(h.port, 'bob');
    for (let i = 0; i < 4; i++) a.player.chat('x'.repeat(500));
    await waitFor(() => b.games().filter((m) => m.kind === 'Chat').length === 4);
    expect(a.ended()).toBeUndefined();
    sim(h).increment(2000);
    await waitFor(() => a.ended() && b.ended());
    const detail = 'the session key sealed all it may: the host must start a new session';
    expect(a.ended()).toEqual({ type: 'ended', reason: 'shutdown', detail });
    expect(b.ended()).toEqual({ type: 'ended', reason: 'shutdown', detail });
    expect(h.notices.at(-1)).toEqual({ type: 'ended', reason: 'shutdown', detail });
    const spent = h.logs.find((l) => l.msg === 'session key budget spent');
    expect(spent).toMatchObject({ level: 'error', limit: 4000 });
    expect(spent!['bytes']).toBeGreaterThanOrEqual(4000);
  });

  it('a dropped connection holds the slot (away) until the reconnect window ends', async () => {
    // a short window, so bob (on the same simulated clock) does not fall silent meanwhile
    const h = await host({ reconnectWindowMs: 5_000 });
    const a = await RawClient.open(h.port);
    await a.join('alice');
    const b = await joinedPlayer(h.port, 'bob');
    a.destroy();
    const away = await waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
    expect(away.payload).toEqual({ id: 1, name: 'alice', away: true });
    expect(h.host.players().find((p) => p.id === 1)).toMatchObject({ away: true });
    sim(h).increment(4_999);
    expect(b.games().filter((m) => m.kind === 'PlayerLeft')).toHaveLength(1);
    sim(h).increment(1);
    await waitFor(() => b.games().filter((m) => m.kind === 'PlayerLeft').length === 2);
    expect(b.games().filter((m) => m.kind === 'PlayerLeft')[1]!.payload).toEqual({ id: 1, name: 'alice' });
  });

  it('drops a silent player as away after the silence limit', async () => {
    const h = await host({ pingIntervalMs: 2000, silenceMs: 16_000 });
    const a = await RawClient.open(h.port);
    await a.join('quiet'); // never answers a Ping
    for (let t = 0; t < 8; t++) sim(h).increment(2000);
    expect(h.notices.some((n) => n.type === 'left')).toBe(false);
    sim(h).increment(2000);
    await waitFor(() => h.notices.find((n) => n.type === 'left'));
    expect(h.notices.find((n) => n.type === 'left')).toMatchObject({ id: 1, away: true });
  });
});
