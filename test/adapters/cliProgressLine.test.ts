// The save transfer's progress bar on a terminal (adapters/cli/progressLine.ts; issue 11 item 2): redrawn in place
// on a terminal and ended with a newline, one line every few seconds into a file or a pipe, nothing without a
// transfer; and the receiving side's progress it reads (SaveReceiver.progress) measured from the chunks received.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { progressLine, type TransferProgress } from '../../adapters/cli/progressLine.ts';
import { createSimulatedClock } from '../../adapters/clock.ts';
import { SaveReceiver } from '../../adapters/saves/saveReceiver.ts';
import { CHUNK_BYTES } from '../../machines/rules/resyncChunks.ts';

const root = mkdtempSync(join(tmpdir(), 'fl3-progress-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(tty: boolean, script: (TransferProgress | undefined)[], stepMs: number) {
  let now = 0;
  let i = 0;
  const out: string[] = [];
  const step = progressLine({ read: () => script[i], write: (t) => out.push(t), tty, now: () => now });
  for (; i < script.length; i++, now += stepMs) step();
  return out;
}

const at = (bytes: number): TransferProgress => ({ bytes, total: 4 * 1_048_576, bytesPerSecond: 1_048_576, secondsLeft: (4 * 1_048_576 - bytes) / 1_048_576 });

describe('the transfer progress line', () => {
  it('on a terminal: redrawn in place every step, ended with one newline when the transfer is over', () => {
    const out = run(true, [undefined, at(1_048_576), at(2_097_152), undefined, undefined], 1_000);
    expect(out).toEqual([
      '\rresync: [######..................] 25% 1.0/4.0 MiB 1.0 MiB/s 0:03 left',
      '\rresync: [############............] 50% 2.0/4.0 MiB 1.0 MiB/s 0:02 left',
      '\n',
    ]);
  });

  it('into a file or a pipe: the first line at once, then one every 5 s', () => {
    const out = run(false, [at(0), at(1), at(2), at(3), at(4), at(5), undefined], 1_000);
    expect(out).toHaveLength(2);
    expect(out.every((line) => line.startsWith('resync: [') && line.endsWith('\n'))).toBe(true);
  });

  it('reads the receiving side: bytes and rate from the chunks received, the total as whole chunks', async () => {
    const clock = createSimulatedClock();
    const receiver = new SaveReceiver({ dir: root, clock });
    expect(receiver.progress()).toBeUndefined();
    const data = new Uint8Array(CHUNK_BYTES).fill(7);
    receiver.accept({ id: 1, index: 0, count: 4, sha256: 'ab'.repeat(32), data });
    clock.increment(500);
    receiver.accept({ id: 1, index: 1, count: 4, sha256: 'ab'.repeat(32), data });
    const p = receiver.progress()!;
    expect(p).toMatchObject({ bytes: 2 * CHUNK_BYTES, total: 4 * CHUNK_BYTES });
    expect(p.bytesPerSecond).toBe((2 * CHUNK_BYTES * 1000) / 500);
    expect(p.secondsLeft).toBeCloseTo(0.5, 5);
    await receiver.close();
  });
});
