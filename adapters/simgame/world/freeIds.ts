// The free-id queue of the simulated world: like the engine's, ids of removed entities are reused,
// so two games that remove and create in a different order hand out different ids (architecture.txt
// §6 "Where ids come from"). FIFO: the id freed first is reused first.
// Also the order trace behind the checksum part freeq (wire-protocol.txt "The free-id queue part freeq"): the trace
// meets a queue at its first use (an id handed out or freed, or the part read), takes <epoch> = the low 32 bits of
// the queue's hash then, and rolls a hash over the id stream (each id handed out, each id joining the queue, in
// order); after every FREEQ_EVERY-th op it keeps a mark <n>:<h>, the newest FREEQ_MARKS of them. The trace is not
// part of the world (a save does not hold it): a loaded world is a new queue, met afresh, so two games that loaded
// the same save have the same epoch, as the native module's trace on two games that loaded the same world.
import type { IdQueue } from './types.ts';

/** A mark every this many ops (the native module's 1024). */
export const FREEQ_EVERY = 1024;
/** The newest marks a freeq part names. */
export const FREEQ_MARKS = 3;

interface IdTrace {
  readonly epoch: number;
  ops: number;
  h: number;
  marks: [number, number][];
}

const traces = new WeakMap<IdQueue, IdTrace>();
const OP_TAKE = 1;
const OP_FREE = 2;

/** FNV-1a over 32-bit words (each as 4 bytes), seeded with `h`. */
function fnv(h: number, words: readonly number[]): number {
  for (const word of words) {
    for (let shift = 0; shift < 32; shift += 8) h = Math.imul(h ^ ((word >>> shift) & 0xff), 0x01000193) >>> 0;
  }
  return h;
}

/** The low 32 bits of the queue's hash: next, then the free ids in order. */
function queueHash(ids: IdQueue): number {
  return fnv(0x811c9dc5, [ids.next, ids.free.length, ...ids.free]);
}

function traceOf(ids: IdQueue): IdTrace {
  let trace = traces.get(ids);
  if (trace === undefined) {
    const epoch = queueHash(ids);
    trace = { epoch, ops: 0, h: epoch, marks: [] };
    traces.set(ids, trace);
  }
  return trace;
}

function record(ids: IdQueue, op: number, id: number): void {
  const trace = traceOf(ids);
  trace.h = fnv(trace.h, [op, id]);
  trace.ops += 1;
  if (trace.ops % FREEQ_EVERY === 0) {
    trace.marks.push([trace.ops, trace.h]);
    if (trace.marks.length > FREEQ_MARKS) trace.marks.shift();
  }
}

const hex8 = (v: number): string => v.toString(16).padStart(8, '0');

/** Takes an id: the oldest freed one, or a fresh one when none is free. */
export function allocateId(ids: IdQueue): number {
  traceOf(ids); // met before the op: the epoch is the queue before it
  const reused = ids.free.shift();
  const id = reused ?? ids.next;
  if (reused === undefined) ids.next += 1;
  record(ids, OP_TAKE, id);
  return id;
}

/** Gives an id back; it is reused after every id freed before it. */
export function freeId(ids: IdQueue, id: number): void {
  traceOf(ids);
  ids.free.push(id);
  record(ids, OP_FREE, id);
}

/** The checksum part freeq: `<epoch>|<n>:<h>|…` (hex), the newest marks oldest first; `<epoch>` alone before the first. */
export function freeqPart(ids: IdQueue): string {
  const trace = traceOf(ids);
  return [hex8(trace.epoch), ...trace.marks.map(([n, h]) => `${n}:${hex8(h)}`)].join('|');
}

/** The number of ops the trace has seen (tests, diagnostics). */
export function freeqOps(ids: IdQueue): number {
  return traceOf(ids).ops;
}
