// identity.txt and resync_cursor.txt: their text forms, parsing that never throws, and reading/writing real files
// (the session folder contract).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formatIdentity,
  identityProblem,
  parseIdentity,
  readIdentity,
  readRecordedGen,
  readResyncCursor,
  writeIdentity,
  writeResyncCursor,
  type Identity,
} from '../../../adapters/fileLink/controlFiles.ts';
import { formatPosition, parsePosition } from '../../../adapters/fileLink/position.ts';
import { makeTempDir, removeTempDir } from './helpers.ts';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

const host: Identity = { name: 'Ada Lovelace', id: 0, role: 'host', start: { gen: 3, offset: 0 } };

describe('positions', () => {
  it('formats and parses <gen>:<offset>', () => {
    expect(formatPosition({ gen: 12, offset: 3456 })).toBe('12:3456');
    expect(parsePosition(' 12:3456\r\n')).toEqual({ ok: true, position: { gen: 12, offset: 3456 } });
    const bads = ['', '12', '12:', ':5', '-1:5', '1:-5', '1.5:2', '0:0', 'a:b', '1:2:3', '1 :2', '9999999999999999:1'];
    for (const bad of [...bads, '1:99999999999999999']) {
      expect(parsePosition(bad).ok, bad).toBe(false);
    }
  });

  it('round-trips every valid position and never throws on any text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 0, max: 2 ** 50 }), (gen, offset) => {
        expect(parsePosition(formatPosition({ gen, offset }))).toEqual({ ok: true, position: { gen, offset } });
      }),
    );
    fc.assert(fc.property(fc.string(), (text) => void parsePosition(text)));
  });
});

describe('identity.txt', () => {
  it('has the contract form: name=, id=, role=, start=<gen>:<offset>', () => {
    expect(formatIdentity(host)).toBe('name=Ada Lovelace\nid=0\nrole=host\nstart=3:0\n');
    expect(parseIdentity(formatIdentity(host))).toEqual({ ok: true, identity: host });
  });

  it('writes control characters of a name as spaces, keeps "=" and non-ASCII', () => {
    const odd: Identity = { ...host, name: 'a\nid=9\tb=ü' };
    expect(parseIdentity(formatIdentity(odd))).toEqual({ ok: true, identity: { ...odd, name: 'a id=9 b=ü' } });
  });

  it('parses CRLF lines, ignores unknown keys, and gives a reason for each bad field', () => {
    expect(parseIdentity('name=B\r\nid=2\r\nrole=player\r\nstart=1:10\r\nextra=1\r\n')).toEqual({
      ok: true,
      identity: { name: 'B', id: 2, role: 'player', start: { gen: 1, offset: 10 } },
    });
    expect(parseIdentity('id=2\nrole=player\nstart=1:0\n')).toEqual({ ok: false, reason: 'no name=' });
    expect(parseIdentity('name=B\nid=70000\nrole=player\nstart=1:0\n')).toMatchObject({ ok: false });
    expect(parseIdentity('name=B\nid=2\nrole=king\nstart=1:0\n')).toMatchObject({ ok: false });
    expect(parseIdentity('name=B\nid=2\nrole=player\nstart=x\n')).toMatchObject({ ok: false });
    fc.assert(fc.property(fc.string(), (text) => void parseIdentity(text)));
  });

  it('refuses to write an identity with a bad id, role or start', async () => {
    expect(identityProblem(host)).toBeUndefined();
    await expect(writeIdentity(dir, { ...host, id: -1 })).rejects.toThrow(TypeError);
    await expect(writeIdentity(dir, { ...host, id: 1.5 })).rejects.toThrow(TypeError);
    await expect(writeIdentity(dir, { ...host, role: 'king' as 'host' })).rejects.toThrow(TypeError);
    await expect(writeIdentity(dir, { ...host, start: { gen: 0, offset: 0 } })).rejects.toThrow(TypeError);
    expect(await readIdentity(dir)).toBeUndefined();
  });

  it('is written by atomic replacement and read back; its start= is the recorded generation', async () => {
    expect(await readRecordedGen(dir)).toEqual({ gen: 0 });
    await writeIdentity(dir, host);
    expect(readFileSync(join(dir, 'identity.txt'), 'utf8')).toBe(formatIdentity(host));
    expect(await readIdentity(dir)).toEqual({ ok: true, identity: host });
    expect(await readRecordedGen(dir)).toEqual({ gen: 3 });
    // Only start= matters for the generation; a bad start= is reported.
    writeFileSync(join(dir, 'identity.txt'), 'role=???\nstart=41:17\n');
    expect(await readRecordedGen(dir)).toEqual({ gen: 41 });
    writeFileSync(join(dir, 'identity.txt'), 'garbage');
    expect(await readRecordedGen(dir)).toMatchObject({ gen: 0, problem: expect.stringContaining('start=') });
  });
});

describe('resync_cursor.txt', () => {
  it('holds <gen>:<offset>, written atomically and read back', async () => {
    expect(await readResyncCursor(dir)).toBeUndefined();
    await writeResyncCursor(dir, { gen: 5, offset: 4096 });
    expect(readFileSync(join(dir, 'resync_cursor.txt'), 'utf8')).toBe('5:4096\n');
    expect(await readResyncCursor(dir)).toEqual({ ok: true, position: { gen: 5, offset: 4096 } });
    await expect(writeResyncCursor(dir, { gen: 0, offset: 1 })).rejects.toThrow(TypeError);
    writeFileSync(join(dir, 'resync_cursor.txt'), 'nonsense');
    expect(await readResyncCursor(dir)).toMatchObject({ ok: false });
  });
});
