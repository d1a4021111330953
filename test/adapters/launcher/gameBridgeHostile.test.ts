// A game that no launcher has to trust, and a launcher that loses nothing: real files in a temp session folder.
// A game's lines pass the who-may-send table narrowed to a game (no Pong, Leave or launcher-only kinds: refused and
// logged once per kind); bad JSON, over-long lines and lines whose handling throws are skipped and logged (bounded),
// and the next good line is still delivered; a link whose backlog overflows ends the session with its reason; the
// messages kept before the link opens are bounded and an overflow ends the session.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostSession } from '../../../actors/host/hostSession.ts';
import type { PlayerNotice, PlayerSession } from '../../../actors/player/playerSession.ts';
import type { Message } from '../../../actors/wire.ts';
import { createSessionRouter } from '../../../actors/sessionRouter.ts';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { openGameLink, type GameLink, type GameLinkOptions } from '../../../adapters/fileLink/gameLink.ts';
import { nodeAppendFs, type AppendFs } from '../../../adapters/fileLink/lineWriter.ts';
import { GAME_MAY_SEND, bridgeHostGame, bridgePlayerGame, messageFromGame } from '../../../adapters/launcher/gameBridge.ts';
import { GameLineGate } from '../../../adapters/launcher/gameLines.ts';
import { GameOutlet } from '../../../adapters/launcher/gameOutlet.ts';
import { makeTempDir, removeTempDir, sleep, waitFor } from '../fileLink/helpers.ts';

type Entry = { msg: string; level?: string; [k: string]: unknown };

let root: string;
const links: GameLink[] = [];
beforeEach(async () => {
  root = await makeTempDir('fl3-bridge-hostile-');
});
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close().catch(() => undefined)));
  await removeTempDir(root);
});

async function openLink(name: string, options: GameLinkOptions = {}) {
  const dir = join(root, name);
  const link = await openGameLink(dir, { name: 'p', id: 1, role: 'player' }, { pollMs: 5, watch: false, ...options });
  links.push(link);
  return { dir, link, game: (text: string) => appendFileSync(join(dir, 'from_game.log'), text) };
}

/** A session's root actor for a stand-in session: the bridge runs the link as its child `link`, as on a real one. */
const attachLink = (systemId: 'host' | 'player') => createSessionRouter(systemId, { clock: createSimulatedClock(), log: () => {} }).attachLink;

/** A stand-in PlayerSession: records what the bridge sends; `send` throws for a Chat saying "boom". */
function fakePlayer() {
  const sent: { kind: string; payload: unknown }[] = [];
  const listeners = new Set<(n: PlayerNotice) => void>();
  let left = 0;
  const player = {
    on(listener: (n: PlayerNotice) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send(kind: string, payload: { text?: string }) {
      if (kind === 'Chat' && payload.text === 'boom') throw new Error('the session threw');
      sent.push({ kind, payload });
      return true;
    },
    clockView: () => ({ rtt: 10, off: 0 }),
    attachLink: attachLink('player'),
    leave() {
      left++;
    },
  };
  return {
    player: player as unknown as PlayerSession,
    sent,
    left: () => left,
    fromHost: (message: Message) => {
      for (const l of listeners) l({ type: 'game', message });
    },
  };
}

const valid: Record<string, unknown> = {
  Pong: { n: 1 },
  Leave: {},
  ReportRequest: { note: 'x' },
  ResyncUpload: { id: 1, index: 0, count: 1, sha256: 'a'.repeat(64), data: 'AA==' },
  ReportPart: { id: 1, index: 0, count: 1, sha256: 'a'.repeat(64), data: 'AA==' },
  Welcome: {},
  Kicked: { reason: 'kicked' },
  Session: { started: true, speed: 1, lead: 2 },
};

describe('which kinds a game may send', () => {
  it('a player’s kinds but Pong, Leave, ResyncUpload, ReportRequest and ReportPart', () => {
    expect([...GAME_MAY_SEND].sort()).toEqual(
      ['Action', 'ActionRefused', 'BuildCommit', 'BuildVeto', 'ChecksumReport', 'Chat', 'Clock', 'Hello', 'ReplayFailed', 'SaveDone', 'SpeedRequest'].sort(),
    );
    const logs: Entry[] = [];
    for (const kind of ['Pong', 'Leave', 'ResyncUpload', 'ReportRequest', 'ReportPart', 'constructor', '__proto__']) {
      expect(messageFromGame(kind, valid[kind] ?? {}, (e) => logs.push(e))).toBeUndefined();
    }
    expect(logs.every((l) => l.msg === 'game line skipped' && String(l.why).startsWith('not a kind a game sends'))).toBe(true);
  });
});

describe('hostile game lines through a real from_game.log', () => {
  it('skips bad JSON, over-long lines, forbidden kinds and a line whose handling throws; delivers the good ones', async () => {
    const { link, game } = await openLink('mixed', { maxLineBytes: 1024 });
    const logs: Entry[] = [];
    const p = fakePlayer();
    const bridge = bridgePlayerGame(p.player, link, (e) => logs.push(e));
    game('Clock\t{"t":200,"speed":1,"ahead":2}\n');
    game('Clock\t{"t":200,"speed"\n'); // bad JSON
    game(`Chat\t{"text":"${'x'.repeat(5000)}"}\n`); // over 1024 bytes
    game('no tab at all\n');
    for (let round = 0; round < 3; round++) {
      for (const kind of ['Pong', 'Leave', 'ResyncUpload', 'ReportRequest', 'ReportPart', 'Welcome', 'Kicked', 'Session']) {
        game(`${kind}\t${JSON.stringify(valid[kind])}\n`);
      }
    }
    game('Chat\t{"text":"boom"}\n'); // the session throws while handling it
    game(`Chat\t{"text":"${'y'.repeat(501)}"}\n`); // does not validate
    game('Hello\t{"time":5}\n');
    await waitFor(() => p.sent.some((m) => m.kind === 'Hello'), 'the Hello after the bad lines');
    expect(p.sent.map((m) => m.kind)).toEqual(['Clock', 'Hello']);

    const refused = logs.filter((l) => l.msg === 'game line skipped' && String(l.why).startsWith('not a kind'));
    expect(refused.map((l) => l.kind).sort()).toEqual(['Kicked', 'Leave', 'Pong', 'ReportPart', 'ReportRequest', 'ResyncUpload', 'Session', 'Welcome']);
    const fault = logs.filter((l) => l.msg === 'game line skipped: handling it failed');
    expect(fault).toHaveLength(1);
    expect(String(fault[0]!.error)).toContain('the session threw');
    const problems = logs.filter((l) => l.msg === 'file link problem').map((l) => String(l.reason));
    expect(problems).toEqual([expect.stringContaining('bad JSON'), 'line longer than 1024 bytes', 'no tab between kind and payload']);
    expect(logs.some((l) => l.msg === 'game line skipped' && String(l.why).includes('500'))).toBe(true);
    expect(bridge.status().skipped).toEqual({ refused: 24, invalid: 1, faults: 1, problems: 3 });
    expect(bridge.status().link.state).toBe('open');
    bridge();
  });

  it('keeps the log bounded when a game spews bad lines, and still delivers the next good line', async () => {
    const { link, game } = await openLink('flood');
    const logs: Entry[] = [];
    const p = fakePlayer();
    const bridge = bridgePlayerGame(p.player, link, (e) => logs.push(e));
    let text = '';
    for (let i = 0; i < 1000; i++) {
      text += `Clock\t{bad ${i}\n`;
      text += 'Pong\t{"n":1}\n';
      text += `Chat\t{"text":"${'z'.repeat(501)}"}\n`;
      text += `Kind${i}\t{}\n`; // 1000 different unknown kinds: refused, at most 64 distinct keys counted
    }
    game(text + 'Hello\t{"time":7}\n');
    await waitFor(() => p.sent.length === 1, 'the Hello after 4000 bad lines');
    expect(p.sent[0]!.kind).toBe('Hello');
    expect(bridge.status().skipped).toEqual({ refused: 2000, invalid: 1000, faults: 0, problems: 1000 });
    // bad JSON: 5 + counters at 10, 100, 1000; Pong: once + counters; Chat: 5 + counters; the unknown kinds: one
    // line each for the first 64 - 3 keys, then the shared key "other" (once, then counters)
    expect(logs.length).toBeLessThan(100);
    expect(logs.filter((l) => l.msg === 'file link problem')).toHaveLength(5);
    expect(logs.filter((l) => l.kind === 'Pong')).toHaveLength(1);
    expect(logs.some((l) => l.msg === 'file link problem (repeated)' && l.count === 1000)).toBe(true);
    expect(bridge.gate.log.count('refused:Pong')).toBe(1000);
    bridge();
  });

  it('host: a line whose handling throws in the session is skipped; the link and the next line go on', async () => {
    const { link, game } = await openLink('host');
    const logs: Entry[] = [];
    const got: string[] = [];
    let calls = 0;
    const host = {
      fromLocalGame(message: Message) {
        calls++;
        if (calls === 1) throw new TypeError('cannot read properties of undefined');
        got.push(message.kind);
      },
      attachLink: attachLink('host'),
      stop() {},
    } as unknown as HostSession;
    const bridge = bridgeHostGame(host, link, (e) => logs.push(e));
    game('Clock\t{"t":200,"speed":1,"ahead":2}\nHello\t{"time":1}\nSpeedRequest\t{"speed":2}\n');
    await waitFor(() => got.length === 2, 'the two lines after the fault');
    expect(got).toEqual(['Hello', 'SpeedRequest']);
    expect(logs.filter((l) => l.msg === 'game line skipped: handling it failed')).toHaveLength(1);
    bridge();
  });
});

describe('the link to the game fails', () => {
  function failingFs(): { fs: AppendFs; failing: boolean } {
    const state = { failing: false, fs: undefined as unknown as AppendFs };
    state.fs = {
      async open(path, flags) {
        const real = await nodeAppendFs.open(path, flags);
        return {
          ...real,
          write: (buffer, offset, length, position) =>
            state.failing ? Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' })) : real.write(buffer, offset, length, position),
        };
      },
    };
    return state;
  }

  it('logs the stall, and a backlog over its bound ends the session once, with the reason', async () => {
    const clock = createSimulatedClock();
    const faults = failingFs();
    const { link } = await openLink('fail', { clock, appendFs: faults.fs, sendLimits: { maxPendingLines: 5 } });
    const logs: Entry[] = [];
    const ends: string[] = [];
    const p = fakePlayer();
    const bridge = bridgePlayerGame(p.player, link, (e) => logs.push(e), { end: (reason) => ends.push(reason) });
    faults.failing = true;
    p.fromHost({ kind: 'Session', payload: { started: true, speed: 1, lead: 2 } } as Message);
    await waitFor(() => link.status().state === 'stalled', 'the stall');
    expect(logs.find((l) => l.msg.startsWith('file link stalled'))).toMatchObject({ level: 'error', reason: expect.stringContaining('EIO') });
    expect(bridge.status().link).toMatchObject({ state: 'stalled', pendingLines: 1 });
    for (let i = 0; i < 20; i++) p.fromHost({ kind: 'Chat', payload: { text: `c${i}`, from: 0, name: 'h' } } as Message);
    await sleep(10);
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatch(/^file link failed: to_game.log backlog over 5 lines/);
    expect(bridge.status().link.state).toBe('failed');
    // every later line is refused at once; the log says so a bounded number of times
    const writeFailures = logs.filter((l) => l.msg === 'to_game.log write failed');
    expect(writeFailures.length).toBeGreaterThan(0);
    expect(writeFailures.length).toBeLessThanOrEqual(4);
    bridge();
  });

  it('without an end option a player leaves the session', async () => {
    const faults = failingFs();
    const { link } = await openLink('leave', { clock: createSimulatedClock(), appendFs: faults.fs, sendLimits: { maxPendingLines: 1 } });
    const p = fakePlayer();
    const bridge = bridgePlayerGame(p.player, link, () => {});
    faults.failing = true;
    p.fromHost({ kind: 'Session', payload: { started: true, speed: 1, lead: 2 } } as Message);
    p.fromHost({ kind: 'Session', payload: { started: true, speed: 2, lead: 2 } } as Message);
    await waitFor(() => p.left() === 1, 'the player leaving');
    bridge();
  });
});

describe('messages for the game before its link opens (GameOutlet)', () => {
  const session = (speed: number) => ({ kind: 'Session', payload: { started: true, speed, lead: 2 } }) as Message;

  it('keeps them in order and writes them first, then the later ones', async () => {
    const { dir, link } = await openLink('outlet');
    const outlet = new GameOutlet({ log: () => {}, end: () => {} });
    outlet.push(session(1));
    outlet.push({ kind: 'Ping', payload: { n: 1 } } as Message); // never for the game
    outlet.push(session(2));
    expect(outlet.status()).toMatchObject({ keptLines: 2, attached: false });
    outlet.attach(link);
    outlet.push(session(4));
    await waitFor(() => readFileSync(join(dir, 'to_game.log'), 'utf8').split('\n').length === 4, 'three lines');
    const speeds = readFileSync(join(dir, 'to_game.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l.split('\t')[1]!).speed);
    expect(speeds).toEqual([1, 2, 4]);
  });

  it('ends the session once, with the reason, when more arrive than the bound; keeps nothing after', async () => {
    const { dir, link } = await openLink('outlet-over');
    const logs: Entry[] = [];
    const ends: string[] = [];
    const outlet = new GameOutlet({ log: (e) => logs.push(e), end: (r) => ends.push(r), maxLines: 3 });
    for (let i = 0; i < 10; i++) outlet.push(session(1));
    expect(ends).toEqual(['more than 3 messages or 4194304 bytes for the game arrived before its file link opened']);
    expect(outlet.status()).toMatchObject({ keptLines: 0, keptBytes: 0, droppedAfterOverflow: 6 });
    expect(logs.filter((l) => l.level === 'error')).toHaveLength(1);
    outlet.attach(link);
    await sleep(20);
    expect(readFileSync(join(dir, 'to_game.log'), 'utf8')).toBe('');
  });

  it('bounds the bytes kept too', () => {
    const ends: string[] = [];
    const outlet = new GameOutlet({ log: () => {}, end: (r) => ends.push(r), maxBytes: 1000 });
    outlet.push({ kind: 'Chat', payload: { text: 'a'.repeat(400), from: 0, name: 'h' } } as Message);
    outlet.push({ kind: 'Chat', payload: { text: 'b'.repeat(400), from: 0, name: 'h' } } as Message);
    expect(ends).toEqual([]);
    outlet.push({ kind: 'Chat', payload: { text: 'c'.repeat(400), from: 0, name: 'h' } } as Message);
    expect(ends).toHaveLength(1);
  });
});

describe('GameLineGate', () => {
  it('logs a refused kind once, an invalid payload five times, then counters at powers of ten', () => {
    const logs: Entry[] = [];
    const gate = new GameLineGate((e) => logs.push(e));
    for (let i = 0; i < 100; i++) gate.take('Leave', {});
    for (let i = 0; i < 100; i++) gate.take('SpeedRequest', { speed: 3 });
    expect(logs.filter((l) => l.kind === 'Leave')).toHaveLength(1);
    expect(logs.filter((l) => l.kind === 'SpeedRequest')).toHaveLength(5);
    expect(logs.filter((l) => l.msg === 'game line skipped (repeated)').map((l) => [l.key, l.count])).toEqual([
      ['refused:Leave', 10],
      ['refused:Leave', 100],
      ['invalid:SpeedRequest', 10],
      ['invalid:SpeedRequest', 100],
    ]);
    expect(gate.counts()).toEqual({ refused: 100, invalid: 100, faults: 0, problems: 0 });
  });
});
