// The session scenarios, written once and run over every transport (DESIGN.md "Actors": the same sessions run
// over TCP or the simulator's in-memory network): the checks of test/actors/session.test.ts (join, refusals,
// names and ids, permissions, chat relay, ping/RTT, leave, kick, away, silence) and a set of the hostile ones of
// test/hostile (junk bytes, an absurd length, the 4096-byte first frame, an unknown kind, a flood before and after
// the Welcome, spoofed senders, replays, the join deadline, the per-address cap, a peer that closes). The host's
// timers run on its simulated clock, driven by the scenario; transport time passes through the harness.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { concatBytes, utf8 } from '../../protocol/bytes.ts';
import { HANDSHAKE_MAX_LENGTH } from '../../protocol/frame.ts';
import { Kind } from '../../protocol/messages/index.ts';
import { dropLines, forgerFor, hostDrops, joinJson, lengthPrefix, rawUnsealed } from './hostile.ts';
import {
  challengeOf,
  closedWith,
  goodPair,
  hostClock,
  joinedPlayer,
  kickedOf,
  openRaw,
  rejectOf,
  type SessionHarness,
  type TestHost,
  type TestPlayer,
} from './sessionHarness.ts';

const chatsOf = (p: TestPlayer, text: string) => p.notices.filter((n) => n.type === 'chat' && n.text === text);

/** Registers the scenarios (describe/it) for the harness `make` builds afresh for each test. */
export function sessionScenarios(make: () => SessionHarness): void {
  let t: SessionHarness;
  beforeEach(() => {
    t = make();
  });
  afterEach(async () => {
    await t.closeAll();
  });
  const host = (...args: Parameters<SessionHarness['startHost']>): Promise<TestHost> => t.startHost(...args);
  const sim = hostClock;

  describe('session core', () => {
    it('welcomes a player with id 1, the roster and its Permissions right after', async () => {
      const h = await host();
      const alice = await joinedPlayer(t, h, 'alice');
      expect(alice.player.you).toBe(1);
      expect(alice.games().map((m) => m.kind).slice(0, 2)).toEqual(['Welcome', 'Permissions']);
      expect(alice.player.players().map((p) => p.name)).toEqual(['host', 'alice']);
      expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice']);
    });

    it('refuses a wrong password (another key) with bad-proof', async () => {
      const h = await host();
      const p = await t.joinPlayer(h, 'mallory', { key: new Uint8Array(32).fill(9) });
      await t.waitFor(() => p.ended(), 3000);
      expect(p.ended()).toMatchObject({ reason: 'bad-proof' });
      expect(h.logs.find((l) => l.msg === 'join rejected')).toMatchObject({ reason: 'bad-proof' });
    });

    it('refuses another FeverLink3 version naming both', async () => {
      const h = await host();
      const p = await t.joinPlayer(h, 'old', { version: '0.0' });
      await t.waitFor(() => p.ended(), 3000);
      expect(p.ended()).toMatchObject({ reason: 'version' });
      expect(p.ended()!.detail).toMatch(/0\.1.*0\.0/);
    });

    it('refuses a mod list that differs, and a missing list while the host has one', async () => {
      const h = await host({ mods: [{ id: 'trains', version: '2' }] });
      const a = await t.joinPlayer(h, 'a', { mods: [{ id: 'trains', version: '3' }] });
      const b = await t.joinPlayer(h, 'b');
      await t.waitFor(() => a.ended() && b.ended(), 3000);
      expect(a.ended()).toMatchObject({ reason: 'mods' });
      expect(b.ended()).toMatchObject({ reason: 'version' });
      const c = await joinedPlayer(t, h, 'c', { mods: [{ id: 'trains', version: '2' }] });
      expect(c.games()[0]).toMatchObject({ kind: 'Welcome', payload: { modsChecked: true } });
    });

    it('answers full with the slot count and the away players', async () => {
      const h = await host({ maxPlayers: 3 });
      await joinedPlayer(t, h, 'a');
      const b = await t.rawPeer(h);
      await b.join('b');
      b.destroy();
      await t.waitFor(() => h.notices.find((n) => n.type === 'left' && n.away));
      const c = await t.joinPlayer(h, 'c');
      await t.waitFor(() => c.ended(), 3000);
      expect(c.ended()).toEqual({ type: 'ended', reason: 'full', detail: '3 players, 1 of them away' });
    });

    it('renames a clashing name to name#id and never reuses an id', async () => {
      const h = await host();
      const a = await joinedPlayer(t, h, 'alice');
      a.player.leave();
      await t.waitFor(() => h.notices.find((n) => n.type === 'left' && !n.away));
      const b = await joinedPlayer(t, h, 'bob');
      const c = await joinedPlayer(t, h, 'BOB');
      expect([a.player.you, b.player.you, c.player.you]).toEqual([1, 2, 3]);
      expect(h.host.players().map((p) => p.name)).toEqual(['host', 'bob', 'BOB#3']);
    });

    it('relays chat to all but the origin with from and name set by the host', async () => {
      const h = await host();
      const a = await joinedPlayer(t, h, 'alice');
      const b = await joinedPlayer(t, h, 'bob');
      a.player.chat('hello');
      const got = await t.waitFor(() => b.notices.find((n) => n.type === 'chat'));
      expect(got).toEqual({ type: 'chat', from: 1, name: 'alice', text: 'hello' });
      await t.waitFor(() => h.notices.find((n) => n.type === 'chat'));
      expect(a.notices.some((n) => n.type === 'chat')).toBe(false);
      h.host.chat('from the host', 'warn');
      await t.waitFor(() => a.notices.find((n) => n.type === 'chat'));
      expect(a.notices.find((n) => n.type === 'chat')).toEqual({ type: 'chat', from: 0, name: 'host', text: 'from the host', level: 'warn' });
    });

    it('broadcasts Permissions on change and drops a SpeedRequest from a player outside speed (logged once)', async () => {
      const h = await host();
      const a = await t.rawPeer(h);
      await a.join('alice');
      const b = await joinedPlayer(t, h, 'bob');
      h.host.setPermissions({ ...h.host.currentPermissions(), speed: { only: [2] } });
      await t.waitFor(() => b.player.permissions?.speed !== 'everyone' && b.player.permissions);
      expect(b.player.permissions!.speed).toEqual({ only: [2] });
      a.send('SpeedRequest', { speed: 4 });
      a.send('SpeedRequest', { speed: 2 });
      b.player.send('SpeedRequest', { speed: 4 });
      await t.waitFor(() => h.notices.find((n) => n.type === 'game' && n.from === 2));
      expect(h.notices.filter((n) => n.type === 'game' && n.from === 1)).toEqual([]);
      await t.waitFor(() => h.logs.find((l) => l.msg === 'frame dropped' && l.cause === 'permission'));
      expect(h.logs.filter((l) => l.msg === 'frame dropped' && l.cause === 'permission')).toHaveLength(1);
    });

    it('pings every interval, measures the round trip and reports every RTT in the Ping', async () => {
      const h = await host({ pingIntervalMs: 2000 });
      const a = await joinedPlayer(t, h, 'alice');
      const b = await joinedPlayer(t, h, 'bob');
      sim(h).increment(2000); // ping 1 goes out now
      sim(h).increment(30); // the pongs arrive after this: a 30 ms round trip on the host's clock
      await t.waitFor(() => h.host.players().every((p) => p.id === 0 || p.rtt !== undefined));
      expect(h.host.players().find((p) => p.id === 1)!.rtt).toBe(30);
      sim(h).increment(2000);
      const rtt = await t.waitFor(() => b.notices.findLast((n) => n.type === 'rtt' && n.rtt['1'] !== undefined));
      expect(rtt).toMatchObject({ rtt: { '0': 0, '1': 30, '2': 30 } });
      expect(a.games().some((m) => m.kind === 'Ping')).toBe(false);
    });

    it('Leave releases the slot at once: PlayerLeft without away', async () => {
      const h = await host();
      const a = await joinedPlayer(t, h, 'alice');
      const b = await joinedPlayer(t, h, 'bob');
      a.player.leave();
      const left = await t.waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
      expect(left.payload).toEqual({ id: 1, name: 'alice' });
    });

    it('kick sends the sealed Kicked and releases the slot', async () => {
      const h = await host();
      const a = await joinedPlayer(t, h, 'alice');
      const b = await joinedPlayer(t, h, 'bob');
      h.host.kick(1, 'kicked', 'rude');
      await t.waitFor(() => a.ended());
      expect(a.ended()).toEqual({ type: 'ended', reason: 'kicked', detail: 'rude' });
      const left = await t.waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
      expect(left.payload).toEqual({ id: 1, name: 'alice' });
    });

    it('a dropped connection holds the slot (away) until the reconnect window ends', async () => {
      const h = await host({ reconnectWindowMs: 5_000 });
      const a = await t.rawPeer(h);
      await a.join('alice');
      const b = await joinedPlayer(t, h, 'bob');
      a.destroy();
      const away = await t.waitFor(() => b.games().find((m) => m.kind === 'PlayerLeft'));
      expect(away.payload).toEqual({ id: 1, name: 'alice', away: true });
      expect(h.host.players().find((p) => p.id === 1)).toMatchObject({ away: true });
      sim(h).increment(4_999);
      await t.tick(); // anything the host sent now would reach bob
      expect(b.games().filter((m) => m.kind === 'PlayerLeft')).toHaveLength(1);
      sim(h).increment(1);
      await t.waitFor(() => b.games().filter((m) => m.kind === 'PlayerLeft').length === 2);
      expect(b.games().filter((m) => m.kind === 'PlayerLeft')[1]!.payload).toEqual({ id: 1, name: 'alice' });
    });

    it('drops a silent player as away after the silence limit', async () => {
      const h = await host({ pingIntervalMs: 2000, silenceMs: 16_000 });
      const a = await t.rawPeer(h);
      await a.join('quiet'); // never answers a Ping
      for (let i = 0; i < 8; i++) sim(h).increment(2000);
      expect(h.notices.some((n) => n.type === 'left')).toBe(false);
      sim(h).increment(2000);
      await t.waitFor(() => h.notices.find((n) => n.type === 'left'));
      expect(h.notices.find((n) => n.type === 'left')).toMatchObject({ id: 1, away: true });
    });
  });

  describe('hostile peers', () => {
    it('junk bytes: Reject malformed, only that connection ends', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      raw.write(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: feverlink\r\n\r\n'));
      expect(await rejectOf(t, raw)).toMatchObject({ reason: 'malformed' });
      expect(await closedWith(t, h, conn)).toBe('malformed');
      await t.waitFor(() => raw.closed, 3000, 'the host to close');
      await good.relays();
      expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice', 'bob']);
    });

    it('an absurd length (0xFFFFFFFF) is refused from its 4 bytes', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      raw.write(lengthPrefix(0xffffffff));
      expect(await rejectOf(t, raw)).toMatchObject({ reason: 'malformed' });
      expect(await closedWith(t, h, conn)).toBe('malformed');
      const limit = h.logs.find((l) => l.msg === 'limit exceeded' && l.id === conn.id);
      expect(limit).toMatchObject({ reason: 'malformed', code: 'length', length: 0xffffffff });
      await good.relays();
    });

    it('a 4097-byte first frame is refused; a 4096-byte Join is welcomed', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const big = await openRaw(t, h);
      big.raw.write(concatBytes(lengthPrefix(HANDSHAKE_MAX_LENGTH + 1), new Uint8Array(64).fill(1)));
      expect(await rejectOf(t, big.raw)).toMatchObject({ reason: 'malformed' });
      expect(await closedWith(t, h, big.conn)).toBe('malformed');
      expect(h.logs.find((l) => l.msg === 'limit exceeded' && l.id === big.conn.id)).toMatchObject({ length: 4097 });

      const exact = await openRaw(t, h);
      const { nonce } = await challengeOf(exact.raw, t.waitFor);
      const base = joinJson(nonce, 'carol', { pad: '' });
      const json = joinJson(nonce, 'carol', { pad: 'x'.repeat(HANDSHAKE_MAX_LENGTH - 12 - base.length) });
      const frame = rawUnsealed(Kind.Join, json);
      expect(new DataView(frame.buffer).getUint32(0)).toBe(HANDSHAKE_MAX_LENGTH);
      exact.raw.write(frame);
      await t.waitFor(() => exact.raw.messages().find((m) => m.kind === 'Welcome'), 3000, 'Welcome');
      expect(exact.conn.closeReason).toBeUndefined();
      expect(h.host.players().map((p) => p.name)).toEqual(['host', 'alice', 'bob', 'carol']);
      await good.relays();
    });

    it('an unknown kind before the Join: Reject malformed naming the kind', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      await challengeOf(raw, t.waitFor);
      raw.write(rawUnsealed(200, '{}'));
      expect(await rejectOf(t, raw)).toEqual({ reason: 'malformed', detail: 'expected Join, got kind 200' });
      expect(await closedWith(t, h, conn)).toBe('malformed');
      await good.relays();
    });

    it('a frame rate over the limit before the Welcome: Reject flood', async () => {
      const other = await host();
      const good = await goodPair(t, other);
      const h = await host({}, { limits: { maxFramesPerSecond: 0.5 } });
      const { raw, conn } = await openRaw(t, h);
      const { nonce } = await challengeOf(raw, t.waitFor);
      raw.write(rawUnsealed(Kind.Join, joinJson(nonce, 'eager')));
      expect(await rejectOf(t, raw)).toEqual({ reason: 'flood' });
      expect(await closedWith(t, h, conn)).toBe('flood');
      expect(h.host.players()).toHaveLength(1);
      await good.relays();
    });

    it('more than 1000 frames in a second after the Welcome: the sealed Kicked flood, the slot released', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      await raw.join('flooder');
      const id = raw.you!;
      raw.write(concatBytes(...Array.from({ length: 1500 }, () => raw.sealed('Pong', { n: 999_999 }))));
      expect(await kickedOf(t, raw)).toMatchObject({ reason: 'flood' });
      expect(await closedWith(t, h, conn)).toBe('flood');
      expect(h.logs.find((l) => l.msg === 'player left' && l.id === id)).toMatchObject({ reason: 'flood' });
      const left = await t.waitFor(() => good.alice.games().find((m) => m.kind === 'PlayerLeft'));
      expect(left.payload).toEqual({ id, name: 'flooder' });
      await good.relays();
    });

    it('spoofed sender ids (3, 0, 65535) from player 2 are dropped before decrypt; the victim is untouched', async () => {
      const h = await host();
      const alice = await joinedPlayer(t, h, 'alice');
      const { raw, conn } = await openRaw(t, h);
      await raw.join('mallory');
      const victim = await joinedPlayer(t, h, 'victim');
      expect([alice.player.you, raw.you, victim.player.you]).toEqual([1, 2, 3]);
      victim.player.chat('before');
      await t.waitFor(() => chatsOf(alice, 'before').length === 1);
      const far = 1n << 40n;
      raw.write(concatBytes(...[3, 0, 65535].map((sender) => forgerFor(sender, far).seal(51, utf8('{"text":"spoofed"}')))));
      await t.waitFor(() => hostDrops(h.host, 2)?.get('sender:51') === 3, 3000, 'three sender drops');
      expect(dropLines(h.logs, 2).map((l) => [l.cause, l.sender])).toEqual([['sender', 3]]);
      victim.player.chat('after');
      await t.waitFor(() => chatsOf(alice, 'after').length === 1);
      expect(alice.notices.some((n) => n.type === 'chat' && n.text === 'spoofed')).toBe(false);
      expect(hostDrops(h.host, 3)?.size).toBe(0);
      expect(conn.closeReason).toBeUndefined();
    });

    it('a replayed frame is dropped and counted; the session goes on', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      await raw.join('mallory');
      const id = raw.you!;
      const first = raw.send('Chat', { text: 'one' });
      const second = raw.send('Chat', { text: 'two' });
      await t.waitFor(() => chatsOf(good.bob, 'two').length === 1);
      raw.write(second);
      raw.write(first);
      await t.waitFor(() => hostDrops(h.host, id)?.get('open:51') === 2, 3000, 'two replay drops');
      raw.send('Chat', { text: 'three' });
      await t.waitFor(() => chatsOf(good.bob, 'three').length === 1);
      expect(chatsOf(good.bob, 'one')).toHaveLength(1);
      expect(conn.closeReason).toBeUndefined();
      await good.relays();
    });

    it('a silent socket gets Reject timeout at the join deadline, not a millisecond before', async () => {
      const h = await host({ joinDeadlineMs: 300 });
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      await challengeOf(raw, t.waitFor);
      sim(h).increment(299);
      await t.tick();
      expect(raw.reject()).toBeUndefined();
      expect(conn.closeReason).toBeUndefined();
      sim(h).increment(1);
      expect(await rejectOf(t, raw)).toEqual({ reason: 'timeout' });
      expect(await closedWith(t, h, conn)).toBe('timeout');
      await good.relays();
    });

    it('a joined peer that closes its end is peer-closed and its slot is held', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const { raw, conn } = await openRaw(t, h);
      await raw.join('leaver');
      raw.end.end();
      expect(await closedWith(t, h, conn)).toBe('peer-closed');
      const away = await t.waitFor(() => good.alice.games().find((m) => m.kind === 'PlayerLeft'));
      expect(away.payload).toEqual({ id: raw.you, name: 'leaver', away: true });
      await good.relays();
    });

    it('the 17th connection from one address is refused unread; other addresses still get in', async () => {
      const h = await host();
      const good = await goodPair(t, h);
      const sixteen = [];
      for (let i = 0; i < 16; i++) sixteen.push(await openRaw(t, h, '127.0.0.2'));
      const seventeenth = await t.rawPeer(h, '127.0.0.2');
      await t.waitFor(() => seventeenth.closed, 3000, 'the 17th to be closed');
      expect(seventeenth.frames).toEqual([]);
      expect(h.logs.filter((l) => l.msg === 'connection closed' && l.reason === 'too-many-from-address')).toEqual([
        expect.objectContaining({ address: '127.0.0.2' }),
      ]);
      expect(h.connections).toHaveLength(2 + 16);
      const other = await openRaw(t, h, '127.0.0.3');
      await other.raw.join('from-three');
      expect(sixteen.every((c) => c.conn.closeReason === undefined)).toBe(true);
      await good.relays();
    });
  });
}
