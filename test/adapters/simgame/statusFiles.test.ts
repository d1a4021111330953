// The two ways a status file is replaced (adapters/simgame/status.ts): writeFileAtomic (fsynced: the game's files)
// and writeFileSwapped (the host's host.json, every half second on the event loop: no fsync). Both replace the file
// whole through a temporary file renamed over it and leave no temporary file behind.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic, writeFileSwapped } from '../../../adapters/simgame/status.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'feverlink3-status-'));
  dirs.push(dir);
  return dir;
}

describe.each([
  ['writeFileAtomic', writeFileAtomic],
  ['writeFileSwapped', writeFileSwapped],
])('%s', (_name, write) => {
  it('replaces the file whole and leaves only it in the folder', () => {
    const dir = folder();
    const path = join(dir, 'host.json');
    for (let n = 0; n < 50; n++) {
      const text = JSON.stringify({ n, pad: 'x'.repeat((n * 977) % 5000) });
      write(path, text);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ n, pad: 'x'.repeat((n * 977) % 5000) });
    }
    expect(readdirSync(dir)).toEqual(['host.json']);
  });

  it('throws when the folder does not exist (the host logs it once and goes on)', () => {
    const dir = folder();
    expect(() => write(join(dir, 'missing', 'host.json'), '{}')).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
