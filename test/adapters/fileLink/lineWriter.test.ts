// The line writer: one write() per batch, order kept, torn tails cut on reopen (reliability-tests §7.7 D2
// kill-9-writer: a real child process SIGKILLed at random moments, then our writer reopens and resumes).
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completeLinesEnd, openLineWriter } from '../../../adapters/fileLink/lineWriter.ts';
import { kill9, makeTempDir, removeTempDir, seededRandom, sleep, spawnReady } from './helpers.ts';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

describe('openLineWriter', () => {
  it('creates the file and appends batches in call order, each line once', async () => {
    const path = join(dir, 'to_game.log');
    const writer = await openLineWriter(path);
    expect(writer.repairedBytes).toBe(0);
    const batches = Array.from({ length: 200 }, (_, i) => [`Action\t{"n":${2 * i}}`, `Action\t{"n":${2 * i + 1}}\n`]);
    await Promise.all(batches.map((batch) => writer.write(batch)));
    await writer.close();
    const expected = batches.flat().map((l) => (l.endsWith('\n') ? l : `${l}\n`)).join('');
    expect(readFileSync(path, 'utf8')).toBe(expected);
    expect(writer.size).toBe(Buffer.byteLength(expected));
  });

  it('cuts a torn tail before appending, so no two lines are glued', async () => {
    const path = join(dir, 'to_game.log');
    writeFileSync(path, 'Clock\t{"t":1}\nClock\t{"t"');
    const writer = await openLineWriter(path);
    expect(writer.repairedBytes).toBe(10);
    expect(writer.size).toBe(14);
    await writer.write(['Clock\t{"t":2}']);
    await writer.close();
    expect(readFileSync(path, 'utf8')).toBe('Clock\t{"t":1}\nClock\t{"t":2}\n');
  });

  it('cuts a file that holds no newline at all back to empty', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'x'.repeat(70_000));
    const writer = await openLineWriter(path);
    expect(writer.repairedBytes).toBe(70_000);
    await writer.close();
    expect(statSync(path).size).toBe(0);
  });

  it('keeps an existing file of complete lines as it is', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\nB\t2\n');
    const writer = await openLineWriter(path);
    expect([writer.repairedBytes, writer.size]).toEqual([0, 8]);
    await writer.close();
    expect(readFileSync(path, 'utf8')).toBe('A\t1\nB\t2\n');
  });

  it('with replace, starts an empty file under a new inode', async () => {
    const path = join(dir, 'f.log');
    writeFileSync(path, 'A\t1\n');
    const before = statSync(path).ino;
    const writer = await openLineWriter(path, { replace: true });
    await writer.write(['B\t2']);
    await writer.close();
    expect(statSync(path).ino).not.toBe(before);
    expect(readFileSync(path, 'utf8')).toBe('B\t2\n');
  });

  it('refuses a line with a newline inside and writes nothing of that batch; later writes still work', async () => {
    const path = join(dir, 'f.log');
    const writer = await openLineWriter(path);
    await expect(writer.write(['A\t1', 'B\t2\nC\t3'])).rejects.toThrow(TypeError);
    await writer.write([]);
    await writer.write(['D\t4']);
    await writer.close();
    await expect(writer.write(['E\t5'])).rejects.toThrow(/closed/);
    expect(readFileSync(path, 'utf8')).toBe('D\t4\n');
  });

  it('completeLinesEnd gives where the complete lines end (0 when the file is missing)', async () => {
    const path = join(dir, 'f.log');
    expect(await completeLinesEnd(path)).toBe(0);
    writeFileSync(path, 'A\t1\nB\t');
    expect(await completeLinesEnd(path)).toBe(4);
  });
});

const lineOf = (n: number) => `Action\t{"n":${n},"pad":"${'x'.repeat(n % 23)}"}\n`;

describe('D2 kill -9 of a writer', () => {
  it('complete lines stay consecutive, at most one torn tail, cut by the restarted writer, never glued', async () => {
    const path = join(dir, 'from_game.log');
    const script = join(import.meta.dirname, 'fixtures', 'splitWriter.mjs');
    const random = seededRandom(0xd2);
    const trials = 20;
    let next = 1;
    let torn = 0;
    for (let trial = 0; trial < trials; trial++) {
      const child = await spawnReady(script, [path, String(next), String(trial + 1)]);
      await sleep(Math.floor(random() * 25));
      await kill9(child);

      const text = readFileSync(path, 'utf8');
      const cut = text.lastIndexOf('\n') + 1;
      const complete = text.slice(0, cut).split('\n').slice(0, -1);
      complete.forEach((line, i) => expect(`${line}\n`, `line ${i + 1} of trial ${trial}`).toBe(lineOf(i + 1)));
      const count = complete.length;
      const tail = text.slice(cut);
      // At most one partial line: a strict prefix of the line that was being written.
      expect(lineOf(count + 1).startsWith(tail) && tail.length < lineOf(count + 1).length).toBe(true);
      if (tail.length > 0) torn++;

      const writer = await openLineWriter(path);
      expect(writer.repairedBytes).toBe(Buffer.byteLength(tail));
      expect(statSync(path).size).toBe(cut);
      await writer.write([lineOf(count + 1)]);
      await writer.close();
      next = count + 2;
    }
    const all = readFileSync(path, 'utf8');
    expect(all.endsWith('\n')).toBe(true);
    const lines = all.split('\n').slice(0, -1);
    expect(lines.length).toBeGreaterThanOrEqual(trials);
    lines.forEach((line, i) => expect(`${line}\n`).toBe(lineOf(i + 1)));
    // The kills landed mid-line at least once, so the repair really ran (each line is 3 writes with a pause).
    expect(torn).toBeGreaterThan(0);
  });
});
