// The toxics of the fault proxy (faultProxy.ts) as stages of a chain: each takes the bytes of one direction of one
// proxied connection, does its fault (slice, coalesce, delay, throttle, swallow, reset, cut) and passes the rest on;
// the last stage writes to the outgoing socket.
import type { Socket } from 'node:net';
import type { Direction, Toxic } from './faultProxy.ts';

export interface Stage {
  write(chunk: Buffer): void;
  /** The source ended: pass on what is held, then end. */
  end(): void;
  /** Bytes held in this stage and the ones after it. */
  held(): number;
  /** Stops timers (the connection is gone). */
  stop(): void;
}

export interface PairControl {
  reset(): void;
  close(): void;
  random: () => number;
  /** cutAfter: the bytes each direction may still pass before the cut (undefined: no limit). */
  budget: Record<Direction, number | undefined>;
}

function sinkStage(dest: Socket): Stage {
  return {
    write: (chunk) => {
      if (!dest.destroyed) dest.write(chunk);
    },
    end: () => {
      if (!dest.destroyed) dest.end();
    },
    held: () => (dest.destroyed ? 0 : dest.writableLength),
    stop: () => {},
  };
}

/** A FIFO released by a timer: used by the toxics that delay bytes. O(1) per piece (a head index, a byte count). */
function queuedStage(next: Stage, schedule: (release: () => void) => void): Stage {
  let queue: Buffer[] = [];
  let head = 0;
  let heldBytes = 0;
  let ended = false;
  let waiting = false;
  let stopped = false;
  const pump = (): void => {
    if (waiting || stopped) return;
    if (head === queue.length) {
      if (ended) next.end();
      return;
    }
    waiting = true;
    schedule(() => {
      waiting = false;
      if (stopped) return;
      const piece = queue[head]!;
      queue[head] = EMPTY;
      head++;
      if (head === queue.length) {
        queue = [];
        head = 0;
      }
      heldBytes -= piece.length;
      next.write(piece);
      pump();
    });
  };
  return {
    write: (chunk) => {
      queue.push(chunk);
      heldBytes += chunk.length;
      pump();
    },
    end: () => {
      ended = true;
      pump();
    },
    held: () => heldBytes + next.held(),
    stop: () => {
      stopped = true;
      next.stop();
    },
  };
}

const EMPTY = Buffer.alloc(0);

function buildStage(toxic: Toxic, next: Stage, control: PairControl): Stage {
  const random = control.random;
  switch (toxic.type) {
    case 'slicer': {
      const min = toxic.minBytes ?? 1;
      const max = toxic.maxBytes ?? 7;
      const maxDelay = toxic.maxDelayMs ?? 5;
      const chance = toxic.delayChance ?? 0.01;
      const burst = toxic.burst ?? 1;
      let inBurst = 0;
      const stage = queuedStage(next, (release) => {
        inBurst = (inBurst + 1) % burst;
        if (inBurst !== 0) release();
        else if (maxDelay > 0 && random() < chance) setTimeout(release, 1 + Math.floor(random() * maxDelay));
        else setImmediate(release);
      });
      return {
        ...stage,
        write: (chunk) => {
          for (let at = 0; at < chunk.length; ) {
            const size = min + Math.floor(random() * (max - min + 1));
            stage.write(chunk.subarray(at, at + size));
            at += size;
          }
        },
      };
    }
    case 'coalesce': {
      const size = toxic.chunkBytes;
      let parts: Buffer[] = [];
      let count = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const flush = (): void => {
        if (count > 0) next.write(Buffer.concat(parts, count));
        parts = [];
        count = 0;
      };
      return {
        write: (chunk) => {
          parts.push(chunk);
          count += chunk.length;
          if (count >= size) {
            const all = Buffer.concat(parts, count);
            let at = 0;
            for (; all.length - at >= size; at += size) next.write(all.subarray(at, at + size));
            parts = at < all.length ? [all.subarray(at)] : [];
            count = all.length - at;
          }
          if (timer !== undefined) clearTimeout(timer);
          timer = setTimeout(flush, toxic.flushMs ?? 5);
        },
        end: () => {
          if (timer !== undefined) clearTimeout(timer);
          flush();
          next.end();
        },
        held: () => count + next.held(),
        stop: () => {
          if (timer !== undefined) clearTimeout(timer);
          next.stop();
        },
      };
    }
    case 'latency': {
      const due: number[] = [];
      const stage = queuedStage(next, (release) => {
        const at = due.shift() ?? 0;
        setTimeout(release, Math.max(0, at - Date.now()));
      });
      let last = 0;
      return {
        ...stage,
        write: (chunk) => {
          const jitter = toxic.jitterMs ?? 0;
          last = Math.max(last, Date.now() + toxic.ms + (random() * 2 - 1) * jitter);
          due.push(last);
          stage.write(chunk);
        },
      };
    }
    case 'bandwidth': {
      const tickMs = 20;
      const perTick = Math.max(1, Math.floor((toxic.bytesPerSecond * tickMs) / 1000));
      const stage = queuedStage(next, (release) => setTimeout(release, tickMs));
      return {
        ...stage,
        write: (chunk) => {
          for (let at = 0; at < chunk.length; at += perTick) stage.write(chunk.subarray(at, at + perTick));
        },
      };
    }
    case 'blackhole':
      return { write: () => {}, end: () => {}, held: () => 0, stop: () => next.stop() };
    case 'reset': {
      const timer = setTimeout(() => control.reset(), toxic.afterMs ?? 0);
      return {
        write: (chunk) => next.write(chunk),
        end: () => next.end(),
        held: () => next.held(),
        stop: () => {
          clearTimeout(timer);
          next.stop();
        },
      };
    }
    case 'limit_data': {
      let left = toxic.bytes;
      return {
        write: (chunk) => {
          if (left <= 0) return;
          const piece = chunk.subarray(0, left);
          left -= piece.length;
          next.write(piece);
          if (left <= 0) {
            next.end();
            setImmediate(() => control.close());
          }
        },
        end: () => next.end(),
        held: () => next.held(),
        stop: () => next.stop(),
      };
    }
  }
}

/** The toxics of one direction, in order, ending in the socket `dest`. */
export function buildChain(toxics: readonly Toxic[], dest: Socket, control: PairControl): Stage {
  let stage = sinkStage(dest);
  for (let i = toxics.length - 1; i >= 0; i--) stage = buildStage(toxics[i]!, stage, control);
  return stage;
}
