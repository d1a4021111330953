// How the simulated game's status file is replaced (adapters/simgame/status.ts writeFileAtomic, fsynced): whole, through
// a temporary file renamed over it, and no temporary file left behind. The host's host.json: statusFile.test.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../adapters/simgame/status.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const folder = tempFolders('feverlink3-status-');

describe('writeFileAtomic', () => {
  const write = writeFileAtomic;
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

  it('throws when the folder does not exist (the game logs it and goes on)', () => {
    const dir = folder();
    expect(() => write(join(dir, 'missing', 'host.json'), '{}')).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});
