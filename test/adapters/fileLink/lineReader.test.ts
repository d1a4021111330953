// The tail reader by position (reliability-tests §7.7 D1 reader-by-position, D6 rotation): real files, a real writer
// process, both wake-up modes (fs.watch alone with polling effectively off, and polling alone).
import { appendFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tailLines, type LineRecord, type LineTail, type TailEvent } from '../../../adapters/fileLink/lineReader.ts';
import { makeTempDir, removeTempDir, seededRandom, spawnReady, waitFor } from './helpers.ts';

const fixtures = join(import.meta.dirname, 'fixtures');

/** Watch-only: polling so slow it never fires during a test. Poll-only: no fs.watch at all. */
const modes = [
  { mode: 'watch only', options: { watch: true, pollMs: 600_000 } },
  { mode: 'poll only', options: { watch: false, pollMs: 5 } },
] as const;

let dir: string;
const tails: LineTail[] = [];

beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await Promise.all(tails.splice(0).map((tail) => tail.close()));
  await removeTempDir(dir);
});

function follow(options: Parameters<typeof tailLines>[0]) {
  const tail = tailLines(options);
  tails.push(tail);
  const records: LineRecord[] = [];
  const events: TailEvent[] = [];
  tail.records.subscribe((record) => records.push(record));
  tail.events.subscribe((event) => events.push(event));
  return { tail, records, events, texts: () => records.map((r) => r.text) };
}

const SAMPLE = ['a', 'é', '€', '𝄞', 'z', ' ', '"', '\\', '\t'];

function randomLines(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const lines: string[] = [];
  for (let n = 1; n <= count; n++) {
    let s = '';
    const length = Math.floor(random() * 40);
    for (let i = 0; i < length; i++) s += SAMPLE[Math.floor(random() * SAMPLE.length)];
    lines.push(`Action\t${JSON.stringify({ n, s })}`);
  }
  return lines;
}

describe.each(modes)('D1 reader by position ($mode)', ({ options }) => {
  it('delivers exactly the 10 000 lines a process writes in random 1–97-byte pieces, in order, once each', async () => {
    const seed = 0x5eed + options.pollMs;
    const lines = randomLines(10_000, seed);
    const source = join(dir, 'source.txt');
    writeFileSync(source, lines.map((l) => `${l}\n`).join(''));
    const path = join(dir, 'from_game.log');
    const { records, events } = follow({ path, ...options });
    const child = await spawnReady(join(fixtures, 'piecesWriter.mjs'), [source, path, String(seed)]);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await waitFor(() => records.length >= lines.length, `10 000 lines (seed ${seed})`, 25_000);
    expect(await exited).toBe(0);
    expect(records.map((r) => r.text)).toEqual(lines);
    expect(records.every((r) => r.utf8)).toBe(true);
    // Positions are contiguous: every byte belongs to exactly one delivered line.
    let offset = 0;
    for (const record of records) {
      expect(record.offset).toBe(offset);
      offset = record.end;
    }
    expect(events).toEqual([]);
  });
});

/** Replaces `path` by a new file (new inode) holding `lines`, the way an atomic replacement does. */
function replaceByRename(path: string, lines: string[]): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, lines.map((l) => `${l}\n`).join(''));
  renameSync(tmp, path);
}

describe.each(modes)('D6 rotation under the reader ($mode)', ({ options }) => {
  it('notices replacement and truncation, reads each new file from byte 0, loses and repeats nothing', async () => {
    const path = join(dir, 'to_game.log');
    const { tail, records, texts } = follow({ path, ...options });
    const expected: string[] = [];
    let n = 0;
    const next = (count: number) => Array.from({ length: count }, () => `Clock\t{"n":${++n}}`);
    const append = (lines: string[]) => {
      appendFileSync(path, lines.map((l) => `${l}\n`).join(''));
      expected.push(...lines);
    };
    const caughtUp = () => records.length === expected.length;

    append(next(5));
    await waitFor(caughtUp, 'first lines');
    const rotations = 30;
    for (let r = 0; r < rotations; r++) {
      const genBefore = tail.position().gen;
      const kind = r % 3;
      if (kind === 0) {
        // New inode, shorter: lines appended just before the swap (not yet read) still count.
        append(next(2));
        const fresh = next(1);
        replaceByRename(path, fresh);
        expected.push(...fresh);
      } else if (kind === 1) {
        // New inode, longer than what was consumed: only the inode tells.
        const fresh = next(12);
        replaceByRename(path, fresh);
        expected.push(...fresh);
      } else {
        // Same inode, truncated and rewritten shorter than what was consumed.
        await waitFor(caughtUp, 'caught up before truncation');
        truncateSync(path, 0);
        append(next(1));
      }
      await waitFor(() => caughtUp() && tail.position().gen === genBefore + 1, `rotation ${r}`);
      append(next(3));
      await waitFor(caughtUp, `lines after rotation ${r}`);
    }
    expect(texts()).toEqual(expected);
    expect(tail.position().gen).toBe(1 + rotations);
    const last = records[records.length - 1]!;
    expect(tail.position()).toEqual({ gen: last.gen, offset: last.end });
  });
});

describe('tailLines', () => {
  it('survives the folder and the file not existing yet, and a file removed and created again', async () => {
    const sub = join(dir, 'later', 'session');
    const path = join(sub, 'from_game.log');
    const { tail, texts } = follow({ path, pollMs: 5 });
    await tail.readNow();
    expect(texts()).toEqual([]);
    await mkdir(sub, { recursive: true });
    appendFileSync(path, 'Hello\t{"time":0}\n');
    await waitFor(() => texts().length === 1, 'the first line');
    await rm(path);
    appendFileSync(path, 'Hello\t{"time":1}\n');
    await waitFor(() => texts().length === 2, 'the line of the new file');
    expect(texts()).toEqual(['Hello\t{"time":0}', 'Hello\t{"time":1}']);
    expect(tail.position()).toEqual({ gen: 2, offset: 17 });
  });

  it('takes complete lines only: a tail without newline waits for its newline', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\nB\t2');
    const { tail, texts } = follow({ path, watch: false, pollMs: 5 });
    await tail.readNow();
    expect(texts()).toEqual(['A\t1']);
    expect(tail.position()).toEqual({ gen: 1, offset: 4 });
    appendFileSync(path, '2\n');
    await waitFor(() => texts().length === 2, 'the completed line');
    expect(texts()).toEqual(['A\t1', 'B\t22']);
  });

  it('starts at a given position, and treats a start past the end as a replaced file', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\nB\t2\nC\t3\n');
    const mid = follow({ path, start: { gen: 4, offset: 4 }, watch: false, pollMs: 5 });
    await mid.tail.readNow();
    expect(mid.texts()).toEqual(['B\t2', 'C\t3']);
    expect(mid.tail.position()).toEqual({ gen: 4, offset: 12 });
    const past = follow({ path, start: { gen: 4, offset: 99 }, watch: false, pollMs: 5 });
    await past.tail.readNow();
    expect(past.texts()).toEqual(['A\t1', 'B\t2', 'C\t3']);
    expect(past.tail.position()).toEqual({ gen: 5, offset: 12 });
    expect(past.events).toEqual([{ type: 'replaced', gen: 5, why: 'shorter' }]);
  });

  it('reports invalid UTF-8 without losing the line or the next one, and drops a CR before the newline', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, Buffer.concat([Buffer.from('A\t"'), Buffer.from([0xff, 0xc3]), Buffer.from('"\nB\t2\r\n')]));
    const { tail, records } = follow({ path, watch: false, pollMs: 5 });
    await tail.readNow();
    expect(records.map((r) => [r.utf8, r.offset, r.end])).toEqual([[false, 0, 7], [true, 7, 12]]);
    expect(records[1]!.text).toBe('B\t2');
  });

  it('skips and reports a line longer than the limit, and delivers the next good line', async () => {
    const path = join(dir, 'f.log');
    const long = `X\t"${'y'.repeat(300)}"`;
    writeFileSync(path, `A\t1\n${long}\nB\t2\n`);
    const { tail, texts, events } = follow({ path, watch: false, pollMs: 5, maxLineBytes: 100 });
    await tail.readNow();
    expect(texts()).toEqual(['A\t1', 'B\t2']);
    expect(events).toEqual([{ type: 'skipped', gen: 1, offset: 4, reason: 'line longer than 100 bytes' }]);
  });

  it('skips an over-long line that is still being written, without holding it in memory', async () => {
    const path = join(dir, 'f.log');
    const limit = 64 * 1024;
    writeFileSync(path, `A\t1\n${'z'.repeat(limit + 10)}`);
    const { tail, texts, events } = follow({ path, watch: false, pollMs: 5, maxLineBytes: limit });
    await tail.readNow();
    expect(events).toMatchObject([{ type: 'skipped', offset: 4 }]);
    appendFileSync(path, `${'z'.repeat(limit)}\nB\t2\n`);
    await waitFor(() => texts().length === 2, 'the line after the long one');
    expect(texts()).toEqual(['A\t1', 'B\t2']);
    expect(events).toHaveLength(1);
  });

  it('gives, inside a callback, the position just after that line; emits nothing before a subscriber', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\nBB\t2\n');
    const tail = tailLines({ path, watch: false, pollMs: 5 });
    tails.push(tail);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(tail.position()).toEqual({ gen: 1, offset: 0 });
    const seen: Array<[string, number]> = [];
    tail.lines.subscribe((line) => seen.push([line, tail.position().offset]));
    await waitFor(() => seen.length === 2, 'two lines');
    expect(seen).toEqual([['A\t1', 4], ['BB\t2', 9]]);
  });

  it('reports a read error once, however often it recurs, and never errors the observables', async () => {
    const path = join(dir, 'a-folder');
    await mkdir(path);
    const { tail, events } = follow({ path, watch: false, pollMs: 5 });
    let failed = false;
    tail.lines.subscribe({ error: () => (failed = true) });
    for (let i = 0; i < 5; i++) await tail.readNow();
    expect(events).toMatchObject([{ type: 'error', gen: 1, offset: 0, reason: expect.stringContaining('EISDIR') }]);
    expect(failed).toBe(false);
  });

  it('stops at close: completes the observables and reads nothing more', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\n');
    const { tail, texts } = follow({ path, watch: true, pollMs: 5 });
    let completed = false;
    tail.lines.subscribe({ complete: () => (completed = true) });
    await waitFor(() => texts().length === 1, 'the line');
    await tail.close();
    expect(completed).toBe(true);
    appendFileSync(path, 'B\t2\n');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(texts()).toEqual(['A\t1']);
  });
});
