// A player's part of a bug report goes out paced (actors/player/reportPart.ts partPacer): the host's transport refuses
// more than 1 MiB a second from a player (`flood`), so an 8 MiB part sent through the real chunk sender
// (adapters/report/chunkFileSender.ts) on a simulated clock must pass the host's own rate limiter
// (adapters/transport/rateLimiter.ts) frame by frame, and still be whole inside the host's 60 s.
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { partPacer, PART_BYTES_PER_SECOND } from '../../actors/player/reportPart.ts';
import { nodeBase64 } from '../../adapters/base64/nodeBase64.ts';
import { sendFileChunks } from '../../adapters/report/chunkFileSender.ts';
import { DEFAULT_LIMITS } from '../../adapters/transport/limits.ts';
import { RateLimiter } from '../../adapters/transport/rateLimiter.ts';
import { REPORT_PART_MAX_BYTES, REPORT_PARTS_TIMEOUT_MS } from '../../machines/rules/reportRound.ts';
import { tempDir } from '../adapters/report/reportSupport.ts';

/** The sealed frame's length field over the payload: header, tag and the rest (generous). */
const FRAME_OVERHEAD = 64;

describe('a report part’s pace', () => {
  it('the pacer lets a burst of its rate through, then waits on the clock', () => {
    const clock = new SimulatedClock();
    const pace = partPacer(clock, 1000);
    expect(pace.room()).toBe(true);
    pace.spend(1500);
    expect(pace.room()).toBe(false);
    clock.increment(499);
    expect(pace.room()).toBe(false);
    clock.increment(2);
    expect(pace.room()).toBe(true);
  });

  it('an 8 MiB part passes the host’s flood limit frame by frame and is sent within 60 s', async () => {
    const dir = await tempDir('fl3-report-pace-');
    try {
      const path = join(dir, 'part.zip');
      const file = await open(path, 'w');
      await file.write(new Uint8Array(REPORT_PART_MAX_BYTES).fill(7));
      await file.close();
      const sim = new SimulatedClock();
      // The sender's clock, counting the waits it set: the simulated time moves only while the sender waits for room.
      let waits = 0;
      const clock = {
        now: () => sim.now(),
        setTimeout: (fn: () => void, ms: number) => {
          waits++;
          return sim.setTimeout(() => {
            waits--;
            fn();
          }, ms);
        },
        clearTimeout: (id: unknown) => sim.clearTimeout(id as never),
      };
      const limiter = new RateLimiter(DEFAULT_LIMITS, sim);
      const pace = partPacer(sim);
      let refused = 0;
      let frames = 0;
      const sending = sendFileChunks({
        id: 1, path, bytes: REPORT_PART_MAX_BYTES, sha256: 'ab'.repeat(32), base64: nodeBase64, clock, pollMs: 50,
        hasRoom: () => pace.room(),
        write: (payload) => {
          pace.spend(payload.length);
          frames++;
          if (!limiter.admit(payload.length + FRAME_OVERHEAD)) refused++;
        },
      });
      let done = false;
      void sending.then(() => (done = true));
      while (!done) {
        if (waits > 0) sim.increment(50);
        else await new Promise((r) => setImmediate(r)); // a file read in progress
      }
      expect(await sending).toEqual({ ok: true, chunks: 32 });
      expect(frames).toBe(32);
      expect(refused).toBe(0);
      expect(clock.now()).toBeLessThan(REPORT_PARTS_TIMEOUT_MS);
      expect(PART_BYTES_PER_SECOND).toBeLessThan(DEFAULT_LIMITS.maxBytesPerSecond);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
