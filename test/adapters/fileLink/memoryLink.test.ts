// The file link over an in-memory session folder (adapters/fileLink/memoryFs.ts, memoryLink.ts): the checks of
// gameLink.test.ts and the rotation cases of lineReader.test.ts, on a MemoryFs instead of a temp folder, plus the
// game's end. No files, no real time: a reader wakes on a microtask (or on a simulated clock when asked to).
import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { parseIdentity } from '../../../adapters/fileLink/controlFiles.ts';
import type { GameLink, LinkProblem } from '../../../adapters/fileLink/gameLink.ts';
import type { LinkLine } from '../../../adapters/fileLink/linkLine.ts';
import { MemoryFs } from '../../../adapters/fileLink/memoryFs.ts';
import {
  openMemoryGameEnd,
  openMemoryGameLink,
  tailMemoryLines,
  type MemoryGameLinkOptions,
} from '../../../adapters/fileLink/memoryLink.ts';
import { settle } from '../../../adapters/transport/memoryDriver.ts';

const links: GameLink[] = [];
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close()));
});

const player = { name: 'Bob', id: 2, role: 'player' } as const;
const text = (fs: MemoryFs, path: string) => fs.readText(path);

async function open(fs: MemoryFs, dir: string, options: MemoryGameLinkOptions = {}) {
  const link = await openMemoryGameLink(fs, dir, player, options);
  links.push(link);
  const lines: LinkLine[] = [];
  const problems: LinkProblem[] = [];
  link.fromGame.subscribe((line) => lines.push(line));
  link.problems.subscribe((problem) => problems.push(problem));
  return { link, lines, problems };
}

describe('openMemoryGameLink', () => {
  it('creates the folder, starts generation 1 with an empty to_game.log and identity start=1:0', async () => {
    const fs = new MemoryFs();
    const { link } = await open(fs, '/a/session');
    expect(text(fs, '/a/session/identity.txt')).toBe('name=Bob\nid=2\nrole=player\nstart=1:0\n');
    expect(text(fs, '/a/session/to_game.log')).toBe('');
    expect(link.identity.start).toEqual({ gen: 1, offset: 0 });
    expect(link.toGamePosition()).toEqual({ gen: 1, offset: 0 });
    expect(fs.list('/a/session')).toEqual(['identity.txt', 'to_game.log']);
  });

  it('writes sends in call order, one line each, and a batch in one go', async () => {
    const fs = new MemoryFs();
    const { link } = await open(fs, '/s');
    const sends = Array.from({ length: 300 }, (_, t) => link.send('Clock', { t, speed: 1 }));
    sends.push(link.sendBatch([{ kind: 'Chat', payload: { text: 'hi\n' } }, { kind: 'Session', payload: { started: true } }]));
    await Promise.all(sends);
    const expected =
      Array.from({ length: 300 }, (_, t) => `Clock\t{"t":${t},"speed":1}\n`).join('') +
      'Chat\t{"text":"hi\\n"}\nSession\t{"started":true}\n';
    expect(text(fs, '/s/to_game.log')).toBe(expected);
    expect(link.toGamePosition()).toEqual({ gen: 1, offset: Buffer.byteLength(expected) });
  });

  it('rejects a send that cannot be a line, writes nothing for it, and keeps working', async () => {
    const fs = new MemoryFs();
    const { link } = await open(fs, '/bad');
    await expect(link.send('Not a kind', {})).rejects.toThrow(TypeError);
    await expect(link.send('Action', { big: 1n })).rejects.toThrow(TypeError);
    await link.send('Action', { ok: true });
    expect(text(fs, '/bad/to_game.log')).toBe('Action\t{"ok":true}\n');
  });

  it('refuses a bad identity before touching the folder', async () => {
    const fs = new MemoryFs();
    await expect(openMemoryGameLink(fs, '/never', { name: 'X', id: 70_000, role: 'player' })).rejects.toThrow(TypeError);
    expect(fs.stat('/never')).toBeUndefined();
  });

  it('starts a new generation at every open; a game following identity reads each session’s lines', async () => {
    const fs = new MemoryFs();
    const seen: string[] = [];
    const game = tailMemoryLines(fs, { path: '/r/to_game.log', start: { gen: 1, offset: 0 } });
    game.lines.subscribe((line) => seen.push(line));
    for (let gen = 1; gen <= 3; gen++) {
      const { link } = await open(fs, '/r');
      expect(link.identity.start).toEqual({ gen, offset: 0 });
      expect(parseIdentity(text(fs, '/r/identity.txt')!)).toMatchObject({ ok: true, identity: { start: { gen, offset: 0 } } });
      await link.send('Session', { gen, n: 1 });
      await link.send('Session', { gen, n: 2 });
      await settle();
      expect(seen).toHaveLength(2 * gen);
      await link.close();
    }
    expect(seen).toEqual([1, 2, 3].flatMap((gen) => [1, 2].map((n) => `Session\t{"gen":${gen},"n":${n}}`)));
    expect(game.position().gen).toBe(3);
    await game.close();
  });

  it('continues from the generation in identity.txt; an unreadable one restarts at 1 and says so', async () => {
    const fs = new MemoryFs();
    fs.mkdir('/rec');
    fs.writeFile('/rec/identity.txt', 'name=Old\nid=0\nrole=host\nstart=41:17\n');
    const first = await open(fs, '/rec');
    expect(first.link.identity.start.gen).toBe(42);
    await first.link.close();
    fs.writeFile('/rec/identity.txt', 'start=oops\n');
    const second = await open(fs, '/rec');
    expect(second.link.identity.start.gen).toBe(1);
    expect(second.problems).toEqual([{ file: 'identity.txt', offset: 0, reason: expect.stringContaining('generation restarts at 1') }]);
  });

  it('removes temporary files a killed launcher left, and writes resync_cursor.txt', async () => {
    const fs = new MemoryFs();
    fs.mkdir('/stale');
    fs.writeFile('/stale/identity.txt.tmp-999-1', 'name=half');
    fs.writeFile('/stale/resync_cursor.txt.tmp-999-2', '3:');
    const { link } = await open(fs, '/stale');
    expect(fs.list('/stale')).toEqual(['identity.txt', 'to_game.log']);
    await link.send('Clock', { t: 1 });
    await link.writeResyncCursor(link.toGamePosition());
    expect(text(fs, '/stale/resync_cursor.txt')).toBe('1:14\n');
  });

  it('a folder that cannot be opened rejects with GameLinkOpenError naming the step', async () => {
    const fs = new MemoryFs();
    fs.writeFile('/file', 'not a folder');
    const a = await openMemoryGameLink(fs, '/file/session', player).catch((e: unknown) => e);
    expect(a).toMatchObject({ name: 'GameLinkOpenError', step: 'create the folder' });
    expect((a as Error).message).toMatch(/^cannot open the session folder \/file\/session: create the folder: ENOTDIR/);

    fs.mkdir('/blocked/to_game.log');
    const b = await openMemoryGameLink(fs, '/blocked', player).catch((e: unknown) => e);
    expect(b).toMatchObject({ name: 'GameLinkOpenError', step: 'replace to_game.log' });

    fs.mkdir('/noid/identity.txt');
    const c = await openMemoryGameLink(fs, '/noid', player).catch((e: unknown) => e);
    expect((c as Error).message).toMatch(/^cannot open the session folder \/noid: (read|write) identity.txt: /);
  });
});

describe('from_game.log in memory', () => {
  it('delivers parsed lines in order; reports each malformed line with file and offset and skips it', async () => {
    const fs = new MemoryFs();
    const { link, lines, problems } = await open(fs, '/from');
    const path = '/from/from_game.log';
    const parts = [
      Buffer.from('Hello\t{"time":0}\n'), // offset 0
      Buffer.from('no tab here\n'), // 17
      Buffer.from('Clock\t{"t":\n'), // 29
      Buffer.concat([Buffer.from('Chat\t"'), Buffer.from([0xc3, 0x28]), Buffer.from('"\n')]), // 41
      Buffer.from('FutureKind\t[1]\n'), // 51
      Buffer.from('Clock\t{"t":200,"speed":1}\r\n'), // 66
    ];
    fs.appendFile(path, parts[0]!);
    await settle();
    expect(lines).toHaveLength(1);
    fs.appendFile(path, Buffer.concat(parts.slice(1)));
    await settle();
    expect(lines).toEqual([
      { kind: 'Hello', payload: { time: 0 } },
      { kind: 'FutureKind', payload: [1] },
      { kind: 'Clock', payload: { t: 200, speed: 1 } },
    ]);
    expect(problems).toEqual([
      { file: 'from_game.log', offset: 17, reason: 'no tab between kind and payload' },
      { file: 'from_game.log', offset: 29, reason: expect.stringContaining('bad JSON') },
      { file: 'from_game.log', offset: 41, reason: 'invalid UTF-8' },
    ]);
    expect(link.fromGamePosition()).toEqual({ gen: 1, offset: 93 });
  });

  it('takes complete lines only: a torn line waits for its newline', async () => {
    const fs = new MemoryFs();
    const { lines } = await open(fs, '/torn');
    fs.appendFile('/torn/from_game.log', 'Hello\t{"ti');
    await settle();
    expect(lines).toEqual([]);
    fs.appendFile('/torn/from_game.log', 'me":3}\n');
    await settle();
    expect(lines).toEqual([{ kind: 'Hello', payload: { time: 3 } }]);
  });

  it('by default skips what an earlier session left in from_game.log; with "start" reads it', async () => {
    const fs = new MemoryFs();
    fs.mkdir('/left');
    fs.writeFile('/left/from_game.log', 'Hello\t{"time":1}\nClock\t{"t":5}\n');
    const fresh = await open(fs, '/left');
    const all = await open(fs, '/left', { fromGame: 'start' });
    fs.appendFile('/left/from_game.log', 'Hello\t{"time":2}\n');
    await settle();
    expect(fresh.lines).toEqual([{ kind: 'Hello', payload: { time: 2 } }]);
    expect(all.lines.map((l) => l.kind)).toEqual(['Hello', 'Clock', 'Hello']);
  });

  it('skips an over-long line and reports it; the next line is delivered', async () => {
    const fs = new MemoryFs();
    const { lines, problems } = await open(fs, '/long', { maxLineBytes: 40 });
    fs.appendFile('/long/from_game.log', `Chat\t"${'x'.repeat(60)}"\n`);
    fs.appendFile('/long/from_game.log', `Chat\t"${'y'.repeat(30)}`);
    await settle();
    fs.appendFile('/long/from_game.log', `${'y'.repeat(30)}"\nHello\t{"time":1}\n`);
    await settle();
    expect(lines).toEqual([{ kind: 'Hello', payload: { time: 1 } }]);
    expect(problems.map((p) => [p.offset, p.reason])).toEqual([
      [0, 'line longer than 40 bytes'],
      [68, 'line longer than 40 bytes'],
    ]);
  });

  it.each([
    ['in place, shorter (same inode)', (fs: MemoryFs, path: string) => fs.writeFile(path, 'Hello\t{"time":9}\n'), 'shorter'],
    [
      'a new inode, longer',
      (fs: MemoryFs, path: string) => fs.replaceFile(path, 'Hello\t{"time":9}\nClock\t{"t":1}\nClock\t{"t":2}\nClock\t{"t":3}\n'),
      'new file',
    ],
    [
      'removed, then written again',
      (fs: MemoryFs, path: string) => {
        fs.remove(path);
        fs.appendFile(path, 'Hello\t{"time":9}\n');
      },
      'new file',
    ],
  ])('notices a replaced from_game.log (%s) and reads it from byte 0', async (_what, replace, why) => {
    const fs = new MemoryFs();
    const { lines, problems } = await open(fs, '/rep');
    const path = '/rep/from_game.log';
    fs.appendFile(path, 'Hello\t{"time":0}\nClock\t{"t":1}\n');
    await settle();
    expect(lines).toHaveLength(2);
    replace(fs, path);
    await settle();
    expect(lines[2]).toEqual({ kind: 'Hello', payload: { time: 9 } });
    expect(problems).toEqual([{ file: 'from_game.log', offset: 0, reason: `file replaced (${why}): reading generation 2 from byte 0` }]);
  });

  it('lines appended to the old file just before a swap still count (read to its end first)', async () => {
    const fs = new MemoryFs();
    const { lines } = await open(fs, '/swap');
    const path = '/swap/from_game.log';
    fs.appendFile(path, 'Clock\t{"t":1}\n');
    await settle();
    fs.appendFile(path, 'Clock\t{"t":2}\n');
    fs.replaceFile(path, 'Clock\t{"t":3}\n');
    await settle();
    expect(lines.map((l) => (l.payload as { t: number }).t)).toEqual([1, 2, 3]);
  });

  it('D6: 30 rotations under the reader (new inode shorter, new inode longer, truncated in place): nothing lost or repeated', async () => {
    const fs = new MemoryFs();
    fs.mkdir('/rot');
    const path = '/rot/to_game.log';
    const tail = tailMemoryLines(fs, { path });
    const records: { text: string; gen: number; end: number }[] = [];
    tail.records.subscribe((r) => records.push(r));
    const expected: string[] = [];
    let n = 0;
    const next = (count: number) => Array.from({ length: count }, () => `Clock\t{"n":${++n}}`);
    const body = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
    const append = (lines: string[]) => {
      fs.appendFile(path, body(lines));
      expected.push(...lines);
    };
    append(next(5));
    await settle();
    for (let r = 0; r < 30; r++) {
      const genBefore = tail.position().gen;
      if (r % 3 === 0) {
        append(next(2)); // not yet read when the swap comes: still counted
        const fresh = next(1);
        fs.replaceFile(path, body(fresh));
        expected.push(...fresh);
      } else if (r % 3 === 1) {
        const fresh = next(12); // longer than what was consumed: only the inode tells
        fs.replaceFile(path, body(fresh));
        expected.push(...fresh);
      } else {
        fs.truncate(path, 0);
        append(next(1));
      }
      await settle();
      expect(tail.position().gen, `rotation ${r}`).toBe(genBefore + 1);
      append(next(3));
      await settle();
      expect(records.map((x) => x.text)).toEqual(expected);
    }
    expect(tail.position().gen).toBe(31);
    const last = records[records.length - 1]!;
    expect(tail.position()).toEqual({ gen: last.gen, offset: last.end });
    await tail.close();
  });

  it('with readDelayMs a change is read that long later on the clock, never before', async () => {
    const fs = new MemoryFs();
    const clock = createSimulatedClock();
    const { lines } = await open(fs, '/slow', { clock, readDelayMs: 25 });
    await settle();
    clock.increment(25); // the first look at a missing file
    fs.appendFile('/slow/from_game.log', 'Hello\t{"time":1}\n');
    await settle();
    clock.increment(24);
    await settle();
    expect(lines).toEqual([]);
    clock.increment(1);
    await settle();
    expect(lines).toEqual([{ kind: 'Hello', payload: { time: 1 } }]);
  });
});

describe('the game’s end in memory', () => {
  it('reads its session’s lines from identity start and answers on from_game.log', async () => {
    const fs = new MemoryFs();
    const old = await open(fs, '/g');
    await old.link.send('Session', { from: 'an earlier launcher' });
    await old.link.close();
    const { link, lines } = await open(fs, '/g');
    const game = openMemoryGameEnd(fs, '/g');
    expect(game.identity()).toMatchObject({ id: 2, role: 'player', start: { gen: 2, offset: 0 } });
    const got: LinkLine[] = [];
    game.toGame.subscribe((l) => got.push(l));
    await link.send('Session', { started: true, speed: 1 });
    await settle();
    expect(got).toEqual([{ kind: 'Session', payload: { started: true, speed: 1 } }]);
    game.send('Hello', { time: 0 });
    game.sendBatch([{ kind: 'Clock', payload: { t: 1 } }, { kind: 'Clock', payload: { t: 2 } }]);
    await settle();
    expect(lines.map((l) => l.kind)).toEqual(['Hello', 'Clock', 'Clock']);
    expect(game.toGamePosition()).toEqual({ gen: 2, offset: Buffer.byteLength('Session\t{"started":true,"speed":1}\n') });
    await game.close();
  });
});
