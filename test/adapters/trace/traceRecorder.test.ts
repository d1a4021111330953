// Tests of the trace recorder (adapters/trace/traceRecorder.ts) and its line format (inspect/traceFormat.ts, inspect/traceEncoder.ts):
// a small actor system on a simulated clock records into a real temp folder and is read back; rotation, a torn last
// line, flushSync and close. Hostile payloads, the bounded queue, failing writes and the hot events are
// traceRecorderBounds.test.ts; the shared actor system is traceSupport.ts.
import { readFileSync } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { parseTrace } from '../../../inspect/traceFormat.ts';
import { actorsIn, readTrace, readTraceDir, traceFiles } from '../../../adapters/trace/readTrace.ts';
import { createTraceRecorder } from '../../../adapters/trace/traceRecorder.ts';
import { childMachine, logSink, of, parentMachine } from './traceSupport.ts';
import { tempFolders } from '../../support/tempFolders.ts';

const tempDir = tempFolders('fl3-trace-');

describe('trace recorder', () => {
  it('records actors, events, snapshots and delayed events with systemIds and session-clock times', async () => {
    const dir = tempDir();
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
    const dir = tempDir();
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
    const dir = tempDir();
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

  it('reads back a trace whose last line is torn', async () => {
    const dir = tempDir();
    const file = join(dir, 'trace.jsonl');
    await writeFile(file, '{"t":1,"type":"@xstate.actor","actor":"lockstep","sessionId":"x:0"}\n{"t":2,"type":"@xstate.ev');
    const lines = await readTrace(file);
    expect(lines).toEqual([{ t: 1, type: '@xstate.actor', actor: 'lockstep', sessionId: 'x:0' }]);
    expect(await readTrace(join(dir, 'missing.jsonl'))).toEqual([]);
  });

  it('flushSync writes what is queued at once (the fatal handler, before process.exit)', async () => {
    const dir = tempDir();
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
    const dir = tempDir();
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
    const dir = tempDir();
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
