// The host launcher's side of a repair source's save (adapters/saves/hostResyncFiles.ts; spec "Repair source"): the
// source's upload is written where the host's own game loads the round's save (its savegame folder, under the name
// the round's ResyncLoad gives: docs/DECISIONS.md), so the host's game loads the source's world and the round goes on
// from Transferring as if the host had saved it. Real files, the real simulated game on both sides.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../adapters/clock.ts';
import { hostResyncFiles } from '../../../adapters/saves/hostResyncFiles.ts';
import { SimGame } from '../../../adapters/simgame/game.ts';
import { createWorld } from '../../../adapters/simgame/world/create.ts';
import { resyncSaveName } from '../../../machines/rules/resyncRound.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fl3-hostfiles-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the host’s files of a resync round', () => {
  it('writes a repair source’s upload where the host’s game loads the round’s save, and announces that very file', async () => {
    const id = 3;
    const name = resyncSaveName(id);
    // the source player's game saves its world (the ResyncSave the host sent it)
    const source = new SimGame({ world: createWorld(7), now: () => 0, savesDir: join(root, 'source'), log: () => undefined });
    expect(source.save(name).ok).toBe(true);
    const data = readFileSync(join(root, 'source', name));
    const sha256 = createHash('sha256').update(data).digest('hex');

    const hostSaves = join(root, 'host');
    mkdirSync(hostSaves); // the launcher's gameSavesDir makes it
    const files = hostResyncFiles({ savesDir: hostSaves, sealChunk: (p) => p, clock: createSimulatedClock(), log: () => undefined });
    const received = await new Promise<number>((resolve) => files.receive!({ id, index: 0, count: 1, sha256, data }, resolve));
    expect(received).toBe(id);
    expect(readdirSync(hostSaves)).toEqual([name]); // no temp file left, nothing else written
    // resync_file_ready announces the file the host's game then loads (ResyncLoad { name })
    expect(await files.digest(name)).toEqual({ sha256, bytes: data.length });
    const hostGame = new SimGame({ world: createWorld(99), now: () => 0, savesDir: hostSaves, log: () => undefined });
    expect(hostGame.status(false).worldHash).not.toBe(source.status(false).worldHash);
    expect(hostGame.load(name)).toMatchObject({ ok: true });
    expect(hostGame.status(false).worldHash).toBe(source.status(false).worldHash);
  });
});
