// Atomic replacement (reliability-tests §7.7 D5): the exact tmp → fsync → rename → fsync(dir) steps through a
// recording fs layer, a simulated crash at every step, a concurrent reader in this process against a writer
// process, and SIGKILLs of that writer at random points; stale temporary files removed at start.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  nodeAtomicFs,
  removeStaleTmpFiles,
  replaceFile,
  type AtomicFileHandle,
  type AtomicFs,
} from '../../../adapters/fileLink/atomicFile.ts';
import { formatIdentity, parseIdentity, removeStaleControlTmpFiles } from '../../../adapters/fileLink/controlFiles.ts';
import { identityA, identityB } from './fixtures/replaceLoop.ts';
import { kill9, makeTempDir, removeTempDir, seededRandom, sleep, spawnReady } from './helpers.ts';

let dir: string;
let loopScript: string;

beforeAll(async () => {
  dir = await makeTempDir();
  loopScript = join(dir, 'replaceLoop.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'fixtures', 'replaceLoop.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: loopScript,
    logLevel: 'silent',
  });
});
afterAll(async () => {
  await removeTempDir(dir);
});

class SimulatedCrash extends Error {}

/**
 * A test double of the fs layer (the real one cannot be crashed mid-call): records each step and, from step
 * `crashAt` on, fails every call as a dead process would. A crash in a write leaves half the data written.
 */
function recordingFs(crashAt = Infinity, target = '') {
  const steps: string[] = [];
  let crashed = false;
  const name = (path: string) => (path.includes('.tmp-') ? 'tmp' : path === target ? 'target' : 'dir');
  const step = (what: string) => {
    steps.push(what);
    if (crashed || steps.length >= crashAt) {
      crashed = true;
      throw new SimulatedCrash(`crash at ${what}`);
    }
  };
  const fs: AtomicFs = {
    async open(path, flags) {
      step(`open ${name(path)} ${flags}`);
      const handle = await nodeAtomicFs.open(path, flags);
      const wrapped: AtomicFileHandle = {
        async writeFile(data) {
          if (steps.length + 1 >= crashAt) await handle.writeFile(data.slice(0, Math.floor(data.length / 2)));
          step(`write ${name(path)}`);
          await handle.writeFile(data);
        },
        async sync() {
          step(`fsync ${name(path)}`);
          await handle.sync();
        },
        async close() {
          await handle.close();
          step(`close ${name(path)}`);
        },
      };
      return wrapped;
    },
    async rename(from, to) {
      step(`rename ${name(from)} ${name(to)}`);
      await nodeAtomicFs.rename(from, to);
    },
    async unlink(path) {
      step(`unlink ${name(path)}`);
      await nodeAtomicFs.unlink(path);
    },
    async readdir(path) {
      return nodeAtomicFs.readdir(path);
    },
  };
  return { fs, steps };
}

const ORDER = [
  'open tmp wx',
  'write tmp',
  'fsync tmp',
  'close tmp',
  'rename tmp target',
  'open dir r',
  'fsync dir',
  'close dir',
];

describe('replaceFile', () => {
  it('stages, fsyncs the file, renames, then fsyncs the folder: two fsyncs per replacement', async () => {
    const target = join(dir, 'order.txt');
    writeFileSync(target, 'old\n');
    const { fs, steps } = recordingFs(Infinity, target);
    await replaceFile(target, 'new\n', { fs });
    expect(steps).toEqual(ORDER);
    expect(steps.filter((s) => s.startsWith('fsync'))).toHaveLength(2);
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('order.txt.tmp-'))).toEqual([]);
  });

  it.each(ORDER.map((step, i) => [i + 1, step] as const))(
    'a crash at step %i (%s) leaves the old or the new complete file; the stale tmp is removed at start',
    async (k) => {
      const target = join(dir, `crash${k}.txt`);
      const oldText = `old ${'o'.repeat(500)}\n`;
      const newText = `new ${'n'.repeat(900)}\n`;
      writeFileSync(target, oldText);
      const { fs } = recordingFs(k, target);
      await expect(replaceFile(target, newText, { fs })).rejects.toThrow(SimulatedCrash);
      expect(readFileSync(target, 'utf8')).toBe(k <= 5 ? oldText : newText);
      const left = readdirSync(dir).filter((n) => n.startsWith(`crash${k}.txt.tmp-`));
      expect(left).toHaveLength(k >= 2 && k <= 5 ? 1 : 0);
      expect(await removeStaleTmpFiles(target)).toBe(left.length);
      expect(readdirSync(dir).filter((n) => n.startsWith(`crash${k}.txt.tmp-`))).toEqual([]);
    },
  );

  it('retries a rename refused for a moment (EBUSY, as on Windows), and gives up at once on other errors', async () => {
    const target = join(dir, 'busy.txt');
    writeFileSync(target, 'old\n');
    let refusals = 2;
    const busy: AtomicFs = {
      ...nodeAtomicFs,
      async rename(from, to) {
        if (refusals-- > 0) throw Object.assign(new Error('busy'), { code: 'EBUSY' });
        await nodeAtomicFs.rename(from, to);
      },
    };
    await replaceFile(target, 'new\n', { fs: busy });
    expect(readFileSync(target, 'utf8')).toBe('new\n');

    const broken: AtomicFs = {
      ...nodeAtomicFs,
      rename: () => Promise.reject(Object.assign(new Error('no space'), { code: 'ENOSPC' })),
    };
    await expect(replaceFile(target, 'newer\n', { fs: broken })).rejects.toThrow('no space');
    expect(readFileSync(target, 'utf8')).toBe('new\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('busy.txt.tmp-'))).toEqual([]);
  });
});

describe('D5 atomic replace of identity.txt against a writer process', () => {
  const textA = formatIdentity(identityA);
  const textB = formatIdentity(identityB);

  it('a concurrent reader only ever sees the old or the new complete content', async () => {
    const session = join(dir, 'reader');
    mkdirSync(session);
    const child = await spawnReady(loopScript, [session], { FL3_REPLACE_LOOP: '1' });
    try {
      const seen = { a: 0, b: 0 };
      const deadline = Date.now() + 10_000;
      while ((seen.a < 200 || seen.b < 200) && Date.now() < deadline) {
        const text = readFileSync(join(session, 'identity.txt'), 'utf8');
        if (text === textA) seen.a++;
        else if (text === textB) seen.b++;
        else expect.fail(`torn identity.txt (${text.length} bytes)`);
        if ((seen.a + seen.b) % 50 === 0) await sleep(0);
      }
      expect(seen.a).toBeGreaterThanOrEqual(200);
      expect(seen.b).toBeGreaterThanOrEqual(200);
    } finally {
      await kill9(child);
    }
  });

  it('SIGKILL of the writer at random points leaves a complete identity; stale tmp files go at start', async () => {
    const session = join(dir, 'kills');
    mkdirSync(session);
    const random = seededRandom(0xd5);
    let stale = 0;
    for (let trial = 0; trial < 15; trial++) {
      const child = await spawnReady(loopScript, [session], { FL3_REPLACE_LOOP: '1' });
      await sleep(Math.floor(random() * 12));
      await kill9(child);
      const text = readFileSync(join(session, 'identity.txt'), 'utf8');
      expect([textA, textB]).toContain(text);
      expect(parseIdentity(text).ok).toBe(true);
      stale += await removeStaleControlTmpFiles(session);
      expect(readdirSync(session)).toEqual(['identity.txt']);
    }
    // The kills do land inside a replacement (between open(tmp) and rename) now and then.
    expect(stale).toBeGreaterThan(0);
  });
});
