// hashFile reads 1 MiB at a time (adapters/saves/hashFile.ts; docs/DECISIONS.md "Resync bench: the announcement's
// hash pass in 1 MiB reads"): the digest and length of every size around the read's edges, and the event loop still
// turning between reads (the file is never read whole).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashFile } from '../../../adapters/saves/hashFile.ts';
import { eventLoopTurnsDuring } from '../../support/eventLoopTurns.ts';

const MIB = 1_048_576;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fl3-hashfile-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('hashFile in 1 MiB reads', () => {
  it.each([0, 1, MIB - 1, MIB, MIB + 1, 2 * MIB + 5])('%i bytes: the SHA-256 and length of the whole file', async (size) => {
    const data = randomBytes(size);
    const path = join(dir, `f${size}`);
    await writeFile(path, data);
    expect(await hashFile(path)).toEqual({ sha256: createHash('sha256').update(data).digest('hex'), bytes: size });
  });

  it('lets the event loop turn between reads', async () => {
    const path = join(dir, 'big');
    await writeFile(path, randomBytes(8 * MIB + 1));
    const { turns } = await eventLoopTurnsDuring(() => hashFile(path));
    expect(turns).toBeGreaterThanOrEqual(9); // at least one turn per read of the 9
  });
});
