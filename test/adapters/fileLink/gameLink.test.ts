// The launcher's end of a session folder: generations that survive restarts, identity.txt, to_game.log written in
// call order, from_game.log parsed with bad lines reported (file + offset) and skipped. Real files; both wake modes.
import { appendFileSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readIdentity, readResyncCursor } from '../../../adapters/fileLink/controlFiles.ts';
import { openGameLink, type GameLink, type LinkProblem } from '../../../adapters/fileLink/gameLink.ts';
import { tailLines } from '../../../adapters/fileLink/lineReader.ts';
import type { LinkLine } from '../../../adapters/fileLink/linkLine.ts';
import { makeTempDir, removeTempDir, waitFor } from './helpers.ts';

let root: string;
const links: GameLink[] = [];
beforeEach(async () => {
  root = await makeTempDir();
});
afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.close()));
  await removeTempDir(root);
});

const player = { name: 'Bob', id: 2, role: 'player' } as const;

async function open(dir: string, options: Parameters<typeof openGameLink>[2] = {}) {
  const link = await openGameLink(dir, player, { pollMs: 5, ...options });
  links.push(link);
  const lines: LinkLine[] = [];
  const problems: LinkProblem[] = [];
  link.fromGame.subscribe((line) => lines.push(line));
  link.problems.subscribe((problem) => problems.push(problem));
  return { link, lines, problems };
}

describe('openGameLink', () => {
  it('creates the folder, starts generation 1 with an empty to_game.log and identity start=1:0', async () => {
    const dir = join(root, 'a', 'session');
    const { link } = await open(dir);
    expect(readFileSync(join(dir, 'identity.txt'), 'utf8')).toBe('name=Bob\nid=2\nrole=player\nstart=1:0\n');
    expect(readFileSync(join(dir, 'to_game.log'), 'utf8')).toBe('');
    expect(link.identity.start).toEqual({ gen: 1, offset: 0 });
    expect(link.toGamePosition()).toEqual({ gen: 1, offset: 0 });
  });

  it('writes sends in call order, one line each, and a batch in one go', async () => {
    const dir = join(root, 's');
    const { link } = await open(dir);
    const sends = Array.from({ length: 300 }, (_, t) => link.send('Clock', { t, speed: 1 }));
    const batch = [{ kind: 'Chat', payload: { text: 'hi\n' } }, { kind: 'Session', payload: { started: true } }];
    sends.push(link.sendBatch(batch));
    await Promise.all(sends);
    const expected =
      Array.from({ length: 300 }, (_, t) => `Clock\t{"t":${t},"speed":1}\n`).join('') +
      'Chat\t{"text":"hi\\n"}\nSession\t{"started":true}\n';
    expect(readFileSync(join(dir, 'to_game.log'), 'utf8')).toBe(expected);
    expect(link.toGamePosition()).toEqual({ gen: 1, offset: Buffer.byteLength(expected) });
  });

  it('rejects a send that cannot be a line, writes nothing for it, and keeps working', async () => {
    const dir = join(root, 'bad');
    const { link } = await open(dir);
    await expect(link.send('Not a kind', {})).rejects.toThrow(TypeError);
    await expect(link.send('Action', { big: 1n })).rejects.toThrow(TypeError);
    await link.send('Action', { ok: true });
    expect(readFileSync(join(dir, 'to_game.log'), 'utf8')).toBe('Action\t{"ok":true}\n');
  });

  it('refuses a bad identity before touching the folder', async () => {
    const dir = join(root, 'never');
    await expect(openGameLink(dir, { name: 'X', id: 70_000, role: 'player' })).rejects.toThrow(TypeError);
    expect(() => statSync(dir)).toThrow();
  });

  it('starts a new generation at every open across restarts; a mod following identity reads its session', async () => {
    const dir = join(root, 'restarts');
    const mod = tailLines({ path: join(dir, 'to_game.log'), pollMs: 5, start: { gen: 1, offset: 0 } });
    const seen: string[] = [];
    mod.lines.subscribe((line) => seen.push(line));
    try {
      for (let gen = 1; gen <= 3; gen++) {
        const { link } = await open(dir);
        expect(link.identity.start).toEqual({ gen, offset: 0 });
        const identity = await readIdentity(dir);
        expect(identity).toMatchObject({ ok: true, identity: { start: { gen, offset: 0 } } });
        await link.send('Session', { gen, n: 1 });
        await link.send('Session', { gen, n: 2 });
        await waitFor(() => seen.length === 2 * gen, `session ${gen} lines`);
        await link.close();
      }
      expect(seen).toEqual([1, 2, 3].flatMap((gen) => [1, 2].map((n) => `Session\t{"gen":${gen},"n":${n}}`)));
      expect(mod.position().gen).toBe(3);
    } finally {
      await mod.close();
    }
  });

  it('continues from the generation in identity.txt; an unreadable one restarts at 1 and says so', async () => {
    const dir = join(root, 'recorded');
    await mkdir(dir);
    writeFileSync(join(dir, 'identity.txt'), 'name=Old\nid=0\nrole=host\nstart=41:17\n');
    const first = await open(dir);
    expect(first.link.identity.start.gen).toBe(42);
    await first.link.close();

    writeFileSync(join(dir, 'identity.txt'), 'start=oops\n');
    const second = await open(dir);
    expect(second.link.identity.start.gen).toBe(1);
    expect(second.problems).toEqual([
      { file: 'identity.txt', offset: 0, reason: expect.stringContaining('generation restarts at 1') },
    ]);
  });

  it('removes temporary files a killed launcher left, and writes resync_cursor.txt', async () => {
    const dir = join(root, 'stale');
    await mkdir(dir);
    writeFileSync(join(dir, 'identity.txt.tmp-999-1'), 'name=half');
    writeFileSync(join(dir, 'resync_cursor.txt.tmp-999-2'), '3:');
    const { link } = await open(dir);
    expect(readdirSync(dir).sort()).toEqual(['identity.txt', 'to_game.log']);
    await link.send('Clock', { t: 1 });
    await link.writeResyncCursor(link.toGamePosition());
    expect(await readResyncCursor(dir)).toEqual({ ok: true, position: { gen: 1, offset: 14 } });
  });
});

describe.each([
  { mode: 'watch only', options: { watch: true, pollMs: 600_000 } },
  { mode: 'poll only', options: { watch: false, pollMs: 5 } },
])('from_game.log ($mode)', ({ options }) => {
  it('delivers parsed lines in order; reports each malformed line with file and offset and skips it', async () => {
    const dir = join(root, 'from');
    const { link, lines, problems } = await open(dir, options);
    const path = join(dir, 'from_game.log');
    const parts = [
      Buffer.from('Hello\t{"time":0}\n'), // offset 0
      Buffer.from('no tab here\n'), // 17
      Buffer.from('Clock\t{"t":\n'), // 29
      Buffer.concat([Buffer.from('Chat\t"'), Buffer.from([0xc3, 0x28]), Buffer.from('"\n')]), // 41
      Buffer.from('FutureKind\t[1]\n'), // 51
      Buffer.from('Clock\t{"t":200,"speed":1}\r\n'), // 66
    ];
    appendFileSync(path, parts[0]!);
    await waitFor(() => lines.length === 1, 'the Hello');
    appendFileSync(path, Buffer.concat(parts.slice(1)));
    await waitFor(() => lines.length === 3, 'the lines after the bad ones');
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

  it('by default skips what an earlier session left in from_game.log; with "start" reads it', async () => {
    const dir = join(root, 'leftover');
    await mkdir(dir);
    const path = join(dir, 'from_game.log');
    writeFileSync(path, 'Hello\t{"time":1}\nClock\t{"t":5}\n');
    const fresh = await open(dir, options);
    const all = await open(join(root, 'leftover'), { ...options, fromGame: 'start' });
    appendFileSync(path, 'Hello\t{"time":2}\n');
    await waitFor(() => fresh.lines.length === 1 && all.lines.length === 3, 'the new Hello');
    expect(fresh.lines).toEqual([{ kind: 'Hello', payload: { time: 2 } }]);
    expect(all.lines.map((l) => l.kind)).toEqual(['Hello', 'Clock', 'Hello']);
  });

  it('reports a replaced from_game.log and reads the new file from byte 0', async () => {
    const dir = join(root, 'replaced');
    const { lines, problems } = await open(dir, options);
    const path = join(dir, 'from_game.log');
    appendFileSync(path, 'Hello\t{"time":0}\nClock\t{"t":1}\n');
    await waitFor(() => lines.length === 2, 'two lines');
    writeFileSync(path, 'Hello\t{"time":9}\n'); // same inode, shorter: a cleaned file
    await waitFor(() => lines.length === 3, 'the new file');
    expect(lines[2]).toEqual({ kind: 'Hello', payload: { time: 9 } });
    expect(problems).toEqual([{ file: 'from_game.log', offset: 0, reason: expect.stringContaining('replaced') }]);
  });
});
