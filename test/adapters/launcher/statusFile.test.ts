// The host's host.json (adapters/launcher/statusFile.ts), on real files: written off the event loop, one write at a
// time, only when its text changed; a reader always finds it whole; once settled it holds the last text offered; a
// failed write is reported once per streak and the next offer writes again.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatusFile } from '../../../adapters/launcher/statusFile.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const folder = tempFolders('feverlink3-hostjson-');

const text = (n: number) => JSON.stringify({ n, pad: 'x'.repeat((n * 977) % 20_000) });

describe('StatusFile', () => {
  it('holds the last text offered once settled, writing fewer times than offered, and leaves only the file', async () => {
    const dir = folder();
    const path = join(dir, 'host.json');
    const errors: unknown[] = [];
    const file = new StatusFile(path, (e) => errors.push(e));
    for (let n = 0; n < 40; n++) file.offer(text(n));
    await file.settled();
    expect(readFileSync(path, 'utf8')).toBe(text(39));
    // The first write ran while 39 more were offered: only the newest of those was written after it.
    expect(file.writes).toBe(2);
    expect(readdirSync(dir)).toEqual(['host.json']);
    expect(errors).toEqual([]);
  });

  it('does not write a text the file already holds, nor one being written', async () => {
    const dir = folder();
    const path = join(dir, 'host.json');
    const file = new StatusFile(path, () => {});
    file.offer(text(1));
    file.offer(text(1));
    await file.settled();
    file.offer(text(1));
    await file.settled();
    expect(file.writes).toBe(1);
    file.offer(text(2));
    file.offer(text(1)); // offered back while 2 is written: 1 is written after it
    await file.settled();
    expect(file.writes).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe(text(1));
  });

  it('is always whole for a reader while it is rewritten', async () => {
    const dir = folder();
    const path = join(dir, 'host.json');
    const file = new StatusFile(path, () => {});
    file.offer(text(0));
    await file.settled();
    let reads = 0;
    for (let n = 1; n <= 60; n++) {
      const before = file.writes;
      file.offer(text(n));
      // Read between the write's steps until it is done (each turn lets it move on): no count of turns is assumed,
      // a loaded machine takes more of them.
      for (let turns = 0; file.writes === before; turns++) {
        if (turns > 100_000) throw new Error(`write ${n} never completed`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        const seen = JSON.parse(readFileSync(path, 'utf8')) as { n: number; pad: string };
        expect(text(seen.n)).toBe(JSON.stringify(seen));
        reads++;
      }
    }
    await file.settled();
    expect(readFileSync(path, 'utf8')).toBe(text(60));
    expect(file.writes).toBe(61);
    expect(reads).toBeGreaterThanOrEqual(60);
  });

  it('reports a failing write once per streak, and writes the same text again once it can', async () => {
    const dir = folder();
    const path = join(dir, 'later', 'host.json');
    const errors: unknown[] = [];
    const file = new StatusFile(path, (e) => errors.push(e));
    file.offer(text(1));
    await file.settled();
    file.offer(text(1));
    await file.settled();
    file.offer(text(2));
    await file.settled();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/ENOENT/);
    expect(file.writes).toBe(0);
    mkdirSync(join(dir, 'later'));
    file.offer(text(2));
    await file.settled();
    expect(readFileSync(path, 'utf8')).toBe(text(2));
    expect(file.writes).toBe(1);
    // A new streak is told again.
    rmSync(join(dir, 'later'), { recursive: true });
    file.offer(text(3));
    await file.settled();
    expect(errors).toHaveLength(2);
  });
});
