// Tests of the trace recorder (adapters/trace/traceRecorder.ts) and its line format (inspect/traceFormat.ts, inspect/traceEncoder.ts):
// a small actor system on a simulated clock records into a real temp folder and is read back; rotation, hostile
// payloads, a slow disk (the bounded queue) and failing writes.
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assign, createActor, emit, fromCallback, sendTo, setup, SimulatedClock } from 'xstate';
import type { LogFn } from '../../../actors/ports.ts';
import { parseTrace, type TraceLine } from '../../../inspect/traceFormat.ts';
import { TraceEncoder } from '../../../inspect/traceEncoder.ts';
import { actorsIn, readTrace, readTraceDir, traceFiles } from '../../../adapters/trace/readTrace.ts';
import { createTraceRecorder } from '../../../adapters/trace/traceRecorder.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fl3-trace-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function logSink(): { log: LogFn; entries: { msg: string; [k: string]: unknown }[] } {
  const entries: { msg: string; [k: string]: unknown }[] = [];
  return { log: (e) => entries.push(e), entries };
}

type ChildEvent = { type: 'ping'; payload?: unknown };
const childMachine = setup({ types: {} as { events: ChildEvent } }).createMachine({
  id: 'child',
  initial: 'idle',
  states: {
    idle: { on: { ping: 'pinged' } },
    pinged: { after: { 500: 'idle' } },
  },
});

type ParentEvent = { type: 'go' } | { type: 'stop' } | { type: 'data'; payload: unknown };
const parentMachine = setup({
  types: {} as { context: { n: number }; events: ParentEvent },
  actors: { child: childMachine, ticker: fromCallback(() => () => {}) },
}).createMachine({
  id: 'parent',
  initial: 'waiting',
  context: { n: 0 },
  invoke: [
    { src: 'child', id: 'kid', systemId: 'kid' },
    { src: 'ticker', id: 'ticker' },
  ],
  on: { data: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
  states: {
    waiting: {
      after: { 1000: 'ready' },
      on: {
        go: {
          target: 'ready',
          actions: sendTo('kid', { type: 'ping', payload: new Uint8Array(8) }, { delay: 200, id: 'ping1' }),
        },
      },
    },
    ready: { entry: emit({ type: 'out.ready' }), on: { stop: 'done' } },
    done: { type: 'final' },
  },
});

const of = <T extends TraceLine['type']>(lines: TraceLine[], type: T) =>
  lines.filter((l): l is Extract<TraceLine, { type: T }> => l.type === type);

describe('trace recorder', () => {
  it('records actors, events, snapshots and delayed events with systemIds and session-clock times', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    clock.set(5000);
    const { log, entries } = logSink();
    const recorder = createTraceRecorder({ dir, clock, log, wallClock: () => 1_700_000_000_000 });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect });
    actor.start();
    clock.increment(100); // t 5100
    actor.send({ type: 'go' }); // cancels the `after 1000`, schedules ping1 (due 5300)
    clock.increment(200); // t 5300: ping1 delivered; the child schedules its own `after 500` (due 5800)
    clock.increment(500); // t 5800: the child's delayed transition fires
    actor.send({ type: 'stop' });
    await recorder.close();

    const lines = await readTrace(join(dir, 'trace.jsonl'));
    expect(entries).toEqual([]);
    expect(lines[0]).toMatchObject({ type: '@trace.file', format: 'feverlink3.trace', version: 1, seq: 0, wall: 1_700_000_000_000 });

    // Created: the stable names, not the sessionIds.
    const created = of(lines, '@xstate.actor');
    expect(created.map((l) => [l.actor, l.parent, l.machine, l.t])).toEqual([
      ['parent', undefined, 'parent', 5000],
      ['kid', 'parent', 'child', 5000],
      ['parent/ticker', 'parent', undefined, 5000],
    ]);
    expect(created.every((l) => /^x:\d+$/.test(l.sessionId))).toBe(true);
    expect(actorsIn(lines)).toEqual(['parent', 'kid', 'parent/ticker']);

    // Events: who sent what to whom, when.
    const events = of(lines, '@xstate.event');
    expect(events.find((l) => l.event.type === 'go')).toMatchObject({ t: 5100, actor: 'parent' });
    expect(events.find((l) => l.event.type === 'go')?.source).toBeUndefined();
    expect(events.find((l) => l.actor === 'kid' && l.event.type === 'xstate.init')).toMatchObject({ source: 'parent' });

    // Snapshots: value and status per actor, the stop of every actor.
    const snaps = of(lines, '@xstate.snapshot');
    const parentValues = snaps.filter((l) => l.actor === 'parent').map((l) => [l.t, l.snapshot.value, l.snapshot.status]);
    expect(parentValues).toEqual([
      [5000, 'waiting', 'active'],
      [5100, 'ready', 'active'],
      [5800, 'done', 'done'],
    ]);
    expect(snaps.find((l) => l.actor === 'parent')?.snapshot).toMatchObject({ context: { n: 0 }, children: { kid: 'kid', ticker: 'parent/ticker' } });
    expect(snaps.filter((l) => l.actor === 'kid').map((l) => [l.t, l.snapshot.value, l.snapshot.status])).toEqual([
      [5000, 'idle', 'active'],
      [5300, 'pinged', 'active'],
      [5800, 'idle', 'active'],
      [5800, 'idle', 'stopped'],
    ]);
    expect(snaps.find((l) => l.actor === 'parent/ticker' && l.snapshot.status === 'stopped')).toBeDefined();

    // Delayed events: scheduled with their due time, cancelled when left pending, marked when delivered.
    const scheduled = of(lines, '@trace.schedule');
    expect(scheduled.map((l) => [l.actor, l.id, l.to, l.t, l.delay, l.due])).toEqual([
      ['parent', 'xstate.after.1000.parent.waiting', 'parent', 5000, 1000, 6000],
      ['parent', 'ping1', 'kid', 5100, 200, 5300],
      ['kid', 'xstate.after.500.child.pinged', 'kid', 5300, 500, 5800],
    ]);
    expect(scheduled[1]!.event).toEqual({ type: 'ping', payload: { $bytes: 8 } });
    expect(of(lines, '@trace.cancel')).toEqual([
      { t: 5100, type: '@trace.cancel', actor: 'parent', sessionId: created[0]!.sessionId, id: 'xstate.after.1000.parent.waiting' },
    ]);
    const delivered = events.filter((l) => l.scheduled !== undefined).map((l) => [l.t, l.actor, l.source, l.scheduled]);
    expect(delivered).toEqual([
      [5300, 'kid', 'parent', 'ping1'],
      [5800, 'kid', 'kid', 'xstate.after.500.child.pinged'],
    ]);
    // The child's `after` cancel on leaving `pinged` came after it fired: not a cancel.
    expect(of(lines, '@trace.cancel')).toHaveLength(1);

    expect(of(lines, '@trace.emit').map((l) => [l.t, l.actor, l.event.type])).toEqual([[5100, 'parent', 'out.ready']]);
    const stats = recorder.stats();
    expect(stats).toMatchObject({ failed: false, dropped: 0, errors: 0, pending: 0, lines: lines.length - 1 });
    expect(stats.actions).toBeGreaterThan(0);
  });

  it('takes every root actor of a launcher on one recorder; unchanged snapshots are skipped', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {} });
    const a = createActor(parentMachine, { clock, systemId: 'lockstep', inspect: recorder.inspect }).start();
    const b = createActor(childMachine, { clock, systemId: 'handshake:1', inspect: recorder.inspect }).start();
    b.send({ type: 'ping' });
    b.send({ type: 'ping' }); // no transition from `pinged`: same value, same context → skipped
    a.stop();
    await recorder.close();
    const lines = await readTrace(join(dir, 'trace.jsonl'));
    expect(actorsIn(lines)).toEqual(['lockstep', 'kid', 'lockstep/ticker', 'handshake:1']);
    expect(recorder.stats().unchanged).toBe(1);
    const pings = of(lines, '@xstate.event').filter((l) => l.actor === 'handshake:1' && l.event.type === 'ping');
    expect(pings).toHaveLength(2);
  });

  it('rotates at maxBytes, keeps at most `files` files and the newest lines', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    const maxBytes = 2000;
    const recorder = createTraceRecorder({ dir, clock, log: () => {}, maxBytes, files: 3, contextBytes: 0 });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    for (let i = 0; i < 300; i++) {
      clock.increment(1);
      actor.send({ type: 'data', payload: i });
      if (i % 37 === 0) await recorder.flush(); // several batches, and rotations inside a batch
    }
    await recorder.close();

    const names = (await readdir(dir)).sort();
    expect(names).toEqual(['trace.1.jsonl', 'trace.2.jsonl', 'trace.jsonl']);
    for (const name of names) expect((await stat(join(dir, name))).size).toBeLessThanOrEqual(maxBytes);
    expect(recorder.stats().rotations).toBeGreaterThan(3);

    const files = await traceFiles(dir);
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual(['trace.2.jsonl', 'trace.1.jsonl', 'trace.jsonl']);
    const lines = await readTraceDir(dir);
    const headers = of(lines, '@trace.file');
    expect(headers).toHaveLength(3);
    const seqs = headers.map((h) => h.seq);
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
    // The newest lines are kept, in order and without a gap: the payloads end at 299 and count up by one.
    const payloads = of(lines, '@xstate.event').filter((l) => l.event.type === 'data').map((l) => l.event.payload as number);
    expect(payloads.at(-1)).toBe(299);
    expect(payloads.length).toBeGreaterThan(5);
    expect(payloads).toEqual(payloads.map((_, k) => payloads[0]! + k));
    expect(payloads[0]).toBeGreaterThan(0);
  });

  it('writes hostile payloads (bytes, cycles, bigints, functions, huge values) as bounded lines, never throwing', async () => {
    const dir = await tempDir();
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
    const dir = await tempDir();
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
    const parent = await tempDir();
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
    const parent = await tempDir();
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

  it('reads back a trace whose last line is torn', async () => {
    const dir = await tempDir();
    const file = join(dir, 'trace.jsonl');
    await writeFile(file, '{"t":1,"type":"@xstate.actor","actor":"lockstep","sessionId":"x:0"}\n{"t":2,"type":"@xstate.ev');
    const lines = await readTrace(file);
    expect(lines).toEqual([{ t: 1, type: '@xstate.actor', actor: 'lockstep', sessionId: 'x:0' }]);
    expect(await readTrace(join(dir, 'missing.jsonl'))).toEqual([]);
  });

  it('flushSync writes what is queued at once (the fatal handler, before process.exit)', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {} });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    actor.send({ type: 'data', payload: 'last words' });
    recorder.flushSync();
    const lines = parseTrace(readFileSync(join(dir, 'trace.jsonl'), 'utf8'));
    expect(lines[0]).toMatchObject({ type: '@trace.file', seq: 0 });
    expect(of(lines, '@xstate.event').at(-1)?.event).toEqual({ type: 'data', payload: 'last words' });
    expect(recorder.stats().pending).toBe(0);
    await recorder.close();
  });

  it('stops taking events once closed (counted as dropped)', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {} });
    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    await recorder.close();
    const before = recorder.stats();
    actor.send({ type: 'data', payload: 1 });
    await recorder.close();
    expect(recorder.stats().lines).toBe(before.lines);
    expect(recorder.stats().dropped).toBeGreaterThan(before.dropped);
  });

  it('sanity: how many inspection events a second the recorder takes (printed, not asserted)', async () => {
    const dir = await tempDir();
    const clock = new SimulatedClock();
    const recorder = createTraceRecorder({ dir, clock, log: () => {}, maxBytes: 64 * 1024 * 1024 });
    let seen = 0;
    const count = () => {
      seen++;
    };
    const plain = createActor(parentMachine, { clock, systemId: 'plain', inspect: count }).start();
    const n = 20_000;
    let t0 = performance.now();
    for (let i = 0; i < n; i++) plain.send({ type: 'data', payload: { i, name: 'Anna', step: i * 3 } });
    const baseMs = performance.now() - t0;
    const perSend = seen / n;

    const actor = createActor(parentMachine, { clock, systemId: 'parent', inspect: recorder.inspect }).start();
    t0 = performance.now();
    for (let i = 0; i < n; i++) {
      actor.send({ type: 'data', payload: { i, name: 'Anna', step: i * 3 } });
      if (i % 1000 === 999) await recorder.flush();
    }
    const hotMs = performance.now() - t0;
    await recorder.close();
    const events = n * perSend;
    const s = recorder.stats();
    console.log(
      `trace recorder: ${Math.round(events / (hotMs / 1000))} inspection events/s with writing ` +
        `(${Math.round(events / (baseMs / 1000))}/s with a counting observer; ${(hotMs / baseMs).toFixed(1)}×), ` +
        `${s.lines} lines, ${(s.bytes / 1024 / 1024).toFixed(1)} MiB, dropped ${s.dropped}`,
    );
    expect(s.errors).toBe(0);
  });
});

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { v };
  return v;
}

describe('hot events', () => {
  it('counts the hot path once a second instead of writing it, writes a change of state, and samples a changed context once a second', async () => {
    const { createActor, setup, assign, SimulatedClock } = await import('xstate');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createTraceRecorder } = await import('../../../adapters/trace/traceRecorder.ts');
    const { readTraceDir } = await import('../../../adapters/trace/readTrace.ts');
    const dir = mkdtempSync(join(tmpdir(), 'fl3-hot-'));
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
