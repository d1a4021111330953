// Reading a log from a byte offset, line by line through a transform (adapters/report/textRange.ts): a start inside a
// line skips to the next whole line, a start at a line's beginning keeps it, a long line is cut into pieces, and
// without a transform the bytes pass unchanged (no UTF-8 repair that would change lengths).
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textRange } from '../../../adapters/report/textRange.ts';
import { tempDir } from './reportSupport.ts';

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function read(path: string, options: Parameters<typeof textRange>[1]): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const p of textRange(path, options)) pieces.push(p);
  return Buffer.concat(pieces);
}

describe('textRange', () => {
  it('starts at a whole line and transforms every line once', async () => {
    const path = join(root, 'a.log');
    await writeFile(path, 'first line\nsecond line\nthird\n');
    expect((await read(path, { from: 3 })).toString()).toBe('second line\nthird\n');
    expect((await read(path, { from: 11 })).toString()).toBe('second line\nthird\n');
    expect((await read(path, { from: 12 })).toString()).toBe('third\n');
    expect((await read(path, { transform: (t) => t.toUpperCase() })).toString()).toBe('FIRST LINE\nSECOND LINE\nTHIRD\n');
  });

  it('lines across 64 KiB reads and a last line without newline come out whole; a long line in pieces', async () => {
    const path = join(root, 'b.log');
    const line = `${'x'.repeat(100_000)}\n`;
    await writeFile(path, `${line}${line}tail`);
    const seen: number[] = [];
    const out = await read(path, { transform: (t) => (seen.push(t.length), t) });
    expect(out.length).toBe(200_006);
    expect(Math.max(...seen)).toBeGreaterThanOrEqual(100_001);
    const cut: number[] = [];
    await read(path, { maxLineBytes: 30_000, transform: (t) => (cut.push(t.length), t) });
    expect(Math.max(...cut)).toBeLessThanOrEqual(30_000 + 65_536);
  });

  it('passes bytes unchanged without a transform, invalid UTF-8 included', async () => {
    const path = join(root, 'c.bin');
    const bytes = Buffer.from([0xff, 0xfe, 0x0a, 0xc3, 0x28, 0x0a, 0x80]);
    await writeFile(path, bytes);
    expect((await read(path, {})).equals(bytes)).toBe(true);
    expect((await read(path, { from: 1 })).equals(bytes.subarray(3))).toBe(true);
  });
});
