// The part budget's zip bound (machines/rules/reportBudget.ts zipBound) holds for what fflate really writes
// (adapters/report/zipFileWriter.ts), incompressible data and many small entries included.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFileWriter } from '../../../adapters/report/zipFileWriter.ts';
import { zipBound } from '../../../machines/rules/reportBudget.ts';
import { tempDir } from './reportSupport.ts';

let root: string;
beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('zip bound', () => {
  it('random bytes, empty entries and long names stay within zipBound; the file is the hash and size reported', async () => {
    const entries: [string, Uint8Array][] = [
      ['random.bin', randomBytes(300_000)],
      ['empty.log', new Uint8Array(0)],
      [`${'n'.repeat(120)}.log`, randomBytes(17)],
      ['text.log', new TextEncoder().encode('line\n'.repeat(10_000))],
    ];
    const zip = await ZipFileWriter.create(join(root, 'b.zip'));
    for (const [name, data] of entries) {
      // In uneven pieces, as a stream gives them.
      const pieces = [data.subarray(0, 1000), data.subarray(1000, 70_001), data.subarray(70_001)];
      expect(await zip.addEntry(name, pieces)).toBe(data.length);
    }
    const result = await zip.close();
    expect(result.bytes).toBeLessThanOrEqual(zipBound(entries.map(([name, data]) => ({ name, bytes: data.length }))));
    const bytes = await readFile(result.path);
    expect(bytes.length).toBe(result.bytes);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(result.sha256);
    const back = unzipSync(bytes);
    for (const [name, data] of entries) expect(Buffer.from(back[name]!).equals(Buffer.from(data))).toBe(true);
  });
});
