// A launcher's part of a bug report (adapters/report/collectPart.ts): the session folder's launcher.log, game logs and
// trace files, pseudonymised, zipped under maxBytes, newest first when cut; read back with fflate's unzipSync.
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPart } from '../../../adapters/report/collectPart.ts';
import { partFileKind } from '../../../adapters/report/partFiles.ts';
import { pseudonymFor } from '../../../adapters/report/pseudonymise.ts';
import { HOST, sessionFolder, tempDir, USER } from './reportSupport.ts';

const SALT = 'c2FsdA';
let root: string;

beforeAll(async () => {
  root = await tempDir();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const text = (files: Record<string, Uint8Array>, name: string) => new TextDecoder().decode(files[name]);

describe('collectPart', () => {
  it('zips launcher.log, the game logs and both trace files, not the save or a temp file, with no home path left', async () => {
    const dir = await sessionFolder(root, 'a');
    const out = join(root, 'a-part.zip');
    const part = await collectPart({ sessionDir: dir, outPath: out, maxBytes: 8 * 1024 * 1024, salt: SALT, names: [USER, HOST] });
    const files = unzipSync(await readFile(out));
    expect(Object.keys(files).sort()).toEqual(['from_game.log', 'identity.txt', 'launcher.log', 'mod.log', 'to_game.log', 'trace.1.jsonl', 'trace.jsonl']);
    expect(part.entries.every((e) => !e.cut)).toBe(true);
    expect(part.bytes).toBe((await stat(out)).size);
    for (const [name, data] of Object.entries(files)) {
      const t = new TextDecoder().decode(data);
      expect(t, name).not.toContain(USER);
      expect(t.toLowerCase(), name).not.toContain(HOST.toLowerCase());
    }
    const pseudonym = pseudonymFor(SALT, USER);
    expect(text(files, 'launcher.log')).toContain(`/home/${pseudonym}/.local/share/tf3/0.sav`);
    expect(text(files, 'launcher.log')).toContain(`C:\\\\Users\\\\${pseudonym}\\\\AppData`);
    expect(text(files, 'identity.txt')).toContain(`name=${pseudonym}`);
    // Lines that named nobody are kept as they were.
    expect(text(files, 'mod.log')).toContain('mod 3: nothing personal here, step 21');
    // The staging folder is gone; only the zip is left beside the folder.
    expect((await readdir(root)).filter((n) => n.startsWith('a-part'))).toEqual(['a-part.zip']);
  });

  it('stays under maxBytes, newest first: the newest files whole, the one that does not fit cut to its newest lines, older ones out', async () => {
    const dir = await sessionFolder(root, 'b', { bigOldBytes: 300_000 });
    const out = join(root, 'b-part.zip');
    const maxBytes = 40_000;
    const part = await collectPart({ sessionDir: dir, outPath: out, maxBytes, salt: SALT, names: [USER] });
    expect(part.bytes).toBeLessThanOrEqual(maxBytes);
    expect((await stat(out)).size).toBeLessThanOrEqual(maxBytes);
    const files = unzipSync(await readFile(out));
    const content = Object.values(files).reduce((n, f) => n + f.length, 0);
    expect(content).toBeLessThanOrEqual(maxBytes);
    // Newest first: trace.jsonl (newest) is whole; the old dump is cut or left out, and it is the only one touched.
    expect(Object.keys(files)).toContain('trace.jsonl');
    const cut = part.entries.filter((e) => e.cut);
    expect(cut.length).toBeLessThanOrEqual(1);
    const dump = part.entries.find((e) => e.name === 'detail_old.txt');
    expect(dump === undefined ? part.left.includes('detail_old.txt') : dump.cut).toBe(true);
    if (dump) {
      const t = text(files, 'detail_old.txt');
      expect(t.startsWith('old line of a detail dump\n')).toBe(true); // a cut file starts at a whole line
      expect(t.endsWith('old line of a detail dump\n')).toBe(true); // and keeps the file's end (its newest lines)
    }
  });

  it('a tiny bound cuts even the newest file to its end and never goes over', async () => {
    const dir = await sessionFolder(root, 'c');
    const out = join(root, 'c-part.zip');
    const part = await collectPart({ sessionDir: dir, outPath: out, maxBytes: 1_000, salt: SALT });
    expect(part.bytes).toBeLessThanOrEqual(1_000);
    const files = unzipSync(await readFile(out));
    expect(Object.keys(files)).toEqual(['trace.jsonl']);
    expect(part.entries).toEqual([expect.objectContaining({ name: 'trace.jsonl', cut: true })]);
    expect(text(files, 'trace.jsonl').endsWith('trace 19: nothing personal here, step 133\n')).toBe(true);
  });

  it('takes only report files of the folder', () => {
    const taken = ['launcher.log', 'launcher.2.log', 'trace.jsonl', 'trace.3.jsonl', 'mod.log', 'detail_s1_20_3.txt', 'status.json'];
    const out = ['world.sav', '.feverlink3-resync-1.part', 'feverlink3-report-2.zip', 'game.exe', '.hidden.log'];
    expect(taken.map(partFileKind)).toEqual(['launcher', 'launcher', 'trace', 'trace', 'game', 'game', 'game']);
    expect(out.map(partFileKind)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
