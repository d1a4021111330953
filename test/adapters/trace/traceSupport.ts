// What the trace recorder's tests share (traceRecorder.test.ts, traceRecorderBounds.test.ts): a log sink, and a small
// parent/child actor system whose events, snapshots and delayed events the recorder records.
import { assign, emit, fromCallback, sendTo, setup } from 'xstate';
import type { LogFn } from '../../../actors/ports.ts';
import type { TraceLine } from '../../../inspect/traceFormat.ts';

export function logSink(): { log: LogFn; entries: { msg: string; [k: string]: unknown }[] } {
  const entries: { msg: string; [k: string]: unknown }[] = [];
  return { log: (e) => entries.push(e), entries };
}

type ChildEvent = { type: 'ping'; payload?: unknown };
export const childMachine = setup({ types: {} as { events: ChildEvent } }).createMachine({
  id: 'child',
  initial: 'idle',
  states: {
    idle: { on: { ping: 'pinged' } },
    pinged: { after: { 500: 'idle' } },
  },
});

type ParentEvent = { type: 'go' } | { type: 'stop' } | { type: 'data'; payload: unknown };
export const parentMachine = setup({
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

export const of = <T extends TraceLine['type']>(lines: TraceLine[], type: T) =>
  lines.filter((l): l is Extract<TraceLine, { type: T }> => l.type === type);
