// The simulated game's save file with padding (adapters/simgame/world/saveFile.ts; issue 11 item 8): the world
// round-trips through a real file whatever the padding, the padding makes the file exactly that much bigger and is
// the same for the same world, loading ignores it, and a bad file gives a reason.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paddingFromEnv, readSaveFile, writeSaveFile } from '../../../adapters/simgame/world/saveFile.ts';
import { worldHash } from '../../../adapters/simgame/world/checksum.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { serializeWorld } from '../../../adapters/simgame/world/save.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fl3-simsave-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('simulated game save file', () => {
  it('round-trips the world with no padding and with 5 MiB + 3 bytes of it', async () => {
    const world = createWorld(7);
    const line = Buffer.byteLength(serializeWorld(world)) + 1;
    for (const padding of [0, 5 * 1_048_576 + 3]) {
      const path = join(dir, `w${padding}.sav`);
      expect(writeSaveFile(path, world, padding)).toBe(line + padding);
      expect((await stat(path)).size).toBe(line + padding);
      const loaded = readSaveFile(path);
      expect(loaded.ok).toBe(true);
      if (loaded.ok) expect(worldHash(loaded.world)).toBe(worldHash(world));
    }
  });

  it('the same world gives the same bytes (padding included); a later world other bytes', async () => {
    const world = createWorld(3);
    writeSaveFile(join(dir, 'a'), world, 3 * 1_048_576);
    writeSaveFile(join(dir, 'b'), world, 3 * 1_048_576);
    expect(Buffer.compare(await readFile(join(dir, 'a')), await readFile(join(dir, 'b')))).toBe(0);
    const later = { ...world, time: world.time + 200 };
    writeSaveFile(join(dir, 'c'), later, 3 * 1_048_576);
    expect(Buffer.compare(await readFile(join(dir, 'a')), await readFile(join(dir, 'c')))).not.toBe(0);
  });

  it('reads a save written without a newline (the old format) and refuses garbage with a reason', async () => {
    const world = createWorld(5);
    await writeFile(join(dir, 'old'), serializeWorld(world));
    expect(readSaveFile(join(dir, 'old')).ok).toBe(true);
    await writeFile(join(dir, 'bad'), 'not json\n' + 'x'.repeat(100));
    expect(readSaveFile(join(dir, 'bad'))).toMatchObject({ ok: false });
    expect(readSaveFile(join(dir, 'missing'))).toMatchObject({ ok: false });
    expect(() => writeSaveFile(join(dir, 'big'), world, 512 * 1_048_576 + 1)).toThrow(RangeError);
  });

  it('takes its padding from FEVERLINK3_SIM_SAVE_PADDING (bytes), anything else is none', () => {
    expect(paddingFromEnv({ FEVERLINK3_SIM_SAVE_PADDING: '1048576' })).toBe(1_048_576);
    expect(paddingFromEnv({})).toBe(0);
    expect(paddingFromEnv({ FEVERLINK3_SIM_SAVE_PADDING: '-5' })).toBe(0);
    expect(paddingFromEnv({ FEVERLINK3_SIM_SAVE_PADDING: 'lots' })).toBe(0);
  });
});
