// Tests of the trace recorder (adapters/trace/traceRecorder.ts) at its bounds: hostile payloads (bytes, cycles,
// bigints, functions, huge values) and over-long lines written bounded, a slow disk (the bounded queue), failing
// writes, and the hot events counted or sampled instead of written. The recording itself, rotation and reading back
// are traceRecorder.test.ts; the shared actor system is traceSupport.ts.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup, SimulatedClock } from 'xstate';
import { TraceEncoder } from '../../../inspect/traceEncoder.ts';
import { readTrace, readTraceDir } from '../../../adapters/trace/readTrace.ts';
import { createTraceRecorder } from '../../../adapters/trace/traceRecorder.ts';
import { logSink, of, parentMachine } from './traceSupport.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const tempDir = tempFolders('fl3-trace-');

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}
describe('trace recorder', () => {
  it('writes hostile payloads (bytes, cycles, bigints, functions, huge values) as bounded lines, never throwing', async () => {
    const dir = tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {}, maxLineBytes: 4096 });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({}, 'boom', { enumerable: true, get: () => { throw new Error('getter'); } });
    const payload = {
      key: new Uint8Array([1, 2, 3, 4]),
      buf: Buffer.from('secret'),
      cyclic,
      big: 2n ** 70n,
      fn: function namedFn() {},
      map: new Map([['a', 1]]),
      set: new Set([1, 2]),
      nan: Number.NaN,
      when: new Date(0),
      err: new Error('bad'),
      throwing,
      ref: actor,
      sym: Symbol('s'),
    };
    expect(() => actor.send({ type: 'data', payload })).not.toThrow();
    expect(() => actor.send({ type: 'data', payload: { huge: 'x'.repeat(100_000), many: Array.from({ length: 10_000 }, (_, i) => i) } })).not.toThrow();
    expect(() => actor.send({ type: 'data', payload: { deep: nest(50) } })).not.toThrow();
    expect(() => actor.send({ type: 'data', payload: { wide: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, '€'.repeat(50)])) } })).not.toThrow();
    await recorder.close();

    const text = await readTrace(join(dir, 'trace.jsonl'));
    const data = of(text, '@xstate.event').filter((l) => l.event.type === 'data');
    expect(data).toHaveLength(4);
    expect(data[0]!.event.payload).toEqual({
      key: { $bytes: 4 },
      buf: { $bytes: 6 },
      cyclic: { name: 'loop', self: { $cycle: true } },
      big: { $bigint: (2n ** 70n).toString() },
      fn: { $fn: 'namedFn' },
      map: { $map: [['a', 1]] },
      set: { $set: [1, 2] },
      nan: 'NaN',
      when: '1970-01-01T00:00:00.000Z',
      err: { $error: 'Error', message: 'bad' },
      throwing: { boom: { $unreadable: true } },
      ref: { $actor: 'parent' },
      sym: { $symbol: 's' },
    });
    expect(data[0]!.truncated).toBeUndefined();
    for (const line of data.slice(1)) expect(line.truncated).toBe(true);
    const raw = await readFile(join(dir, 'trace.jsonl'), 'utf8');
    for (const line of raw.split('\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4096);
    expect(recorder.stats().errors).toBe(0);
  });

  it('cuts a line longer than maxLineBytes down to its identifying fields', () => {
    const encoder = new TraceEncoder({ maxLineBytes: 200, eventBytes: 4096 });
    const ref = { sessionId: 'x:9', id: 'x:9', systemId: 'slot:3', send() {}, getSnapshot() {} };
    const text = encoder.encode(
      { type: '@xstate.event', rootId: 'x:9', actorRef: ref as never, sourceRef: undefined, event: { type: 'recv.Chat', msg: 'é'.repeat(900) } },
      12.3456789,
    );
    expect(Buffer.byteLength(text!)).toBeLessThanOrEqual(200);
    expect(JSON.parse(text!)).toEqual({ t: 12.346, type: '@xstate.event', truncated: true, actor: 'slot:3', sessionId: 'x:9', event: { type: 'recv.Chat' } });
  });

  it('bounds the queue when the disk is slower than the actors, and says how many lines it dropped', async () => {
    const dir = tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {}, maxQueueBytes: 4000 });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    for (let i = 0; i < 200; i++) actor.send({ type: 'data', payload: i }); // one synchronous burst: nothing written yet
    const dropped = recorder.stats().dropped;
    expect(dropped).toBeGreaterThan(0);
    await recorder.flush();
    actor.send({ type: 'data', payload: 'after' });
    await recorder.close();
    const lines = await readTrace(join(dir, 'trace.jsonl'));
    expect(of(lines, '@trace.dropped')).toEqual([{ t: 0, type: '@trace.dropped', count: dropped }]);
    expect(of(lines, '@xstate.event').at(-1)?.event).toEqual({ type: 'data', payload: 'after' });
  });

  it('logs a failing write once and never throws: the folder is a file', async () => {
    const parent = tempDir();
    const dir = join(parent, 'session');
    await writeFile(dir, 'not a folder');
    const { log, entries } = logSink();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    actor.send({ type: 'go' });
    await expect(recorder.flush()).resolves.toBeUndefined();
    for (let i = 0; i < 50; i++) actor.send({ type: 'data', payload: i });
    clock.increment(2000);
    await expect(recorder.close()).resolves.toBeUndefined();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ msg: 'trace write failed', level: 'warn' });
    expect(recorder.stats()).toMatchObject({ failed: true, lines: 0 });
    expect(recorder.stats().dropped).toBeGreaterThan(50);
  });

  it('logs a failing write once and never throws: the folder is replaced by a file while recording', async () => {
    const parent = tempDir();
    const dir = join(parent, 'session');
    await mkdir(dir);
    const { log, entries } = logSink();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log, maxBytes: 1500 });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    await recorder.flush();
    expect(recorder.stats().lines).toBeGreaterThan(0);
    await rm(dir, { recursive: true });
    await writeFile(dir, 'now a file');
    for (let i = 0; i < 100; i++) {
      actor.send({ type: 'data', payload: i });
      await recorder.flush(); // the open file takes appends until the rotation needs the folder
    }
    await recorder.close();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ msg: 'trace write failed', level: 'warn' });
    expect(recorder.stats().failed).toBe(true);
  });
});

describe('hot events', () => {
  it('counts the hot path once a second instead of writing it, writes a change of state, and samples a changed context once a second', async () => {
    const dir = tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {}, hot: new Set(['relay']) });
    const machine = setup({ types: { context: {} as { n: number }, events: {} as { type: 'relay' } | { type: 'stop' } } }).createMachine({
      id: 'relayer',
      context: { n: 0 },
      initial: 'Running',
      states: {
        Running: {
          on: {
            relay: [
              { guard: ({ context }) => context.n === 999, target: 'Full', actions: assign({ n: ({ context }) => context.n + 1 }) },
              { actions: assign({ n: ({ context }) => context.n + 1 }) },
            ],
          },
        },
        Full: { on: { stop: 'Running' } },
      },
    });
    const actor = createActor(machine, { clock, systemId: 'relayer', inspect: recorder.inspect }).start();
    for (let i = 0; i < 1000; i++) {
      actor.send({ type: 'relay' });
      if (i % 100 === 99) clock.increment(250);
    }
    actor.send({ type: 'stop' });
    await recorder.close();
    const lines = await readTraceDir(dir);
    const events = lines.filter((l) => l.type === '@xstate.event');
    const eventTypes = events.map((l) => (l as { event: { type: string } }).event.type);
    expect(eventTypes).not.toContain('relay');
    expect(eventTypes).toContain('stop');
    const counts = lines.filter((l) => l.type === '@trace.counts') as unknown as { counts: Record<string, Record<string, number>> }[];
    expect(counts.reduce((n, l) => n + (l.counts.relayer?.relay ?? 0), 0)).toBe(1000);
    expect(counts.length).toBeGreaterThanOrEqual(2);
    const snapshots = lines.filter((l) => l.type === '@xstate.snapshot') as unknown as { t: number; snapshot: { value: string; context: { n: number } } }[];
    // The start; the context changed by relays, sampled at most once a second (t 1000 and 2000 of the 2500 ms of
    // relays, 100 relays to each 250 ms); then each change of state.
    expect(snapshots.map((l) => [l.t, l.snapshot.value, l.snapshot.context.n])).toEqual([
      [0, 'Running', 0],
      [1000, 'Running', 401],
      [2000, 'Running', 801],
      [2250, 'Full', 1000],
      [2500, 'Running', 1000],
    ]);
  });
});
