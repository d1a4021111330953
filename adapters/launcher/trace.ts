// The launcher's one inspection stream (DESIGN.md "Actors"): a trace recorder writing every actor's inspection
// events to trace.jsonl in the session folder, on by default; FEVERLINK3_TRACE=off leaves it out (the benchmark's
// A/B rounds). Its queue is written out synchronously on a fatal exit too. With `--inspect PORT` the same events
// also feed the inspector's live page (inspect/liveFeed.ts, inspect/server.ts): startLiveInspector.
import type { InspectionEvent } from 'xstate';
import type { Clock, LogFn } from '../../actors/ports.ts';
import { flushOnFatal } from '../cli/supervise.ts';
import { directInspection } from '../trace/directInspection.ts';
import { createTraceRecorder } from '../trace/traceRecorder.ts';
import { createLiveFeed } from '../../inspect/liveFeed.ts';
import { startInspectorServer } from '../../inspect/server.ts';
import { startupError } from '../cli/failure.ts';

/**
 * The hot path's events: counted once a second in the trace, not written one by one (inspect/traceEncoder.ts `hot`).
 * A frame from a connection and a line from the game as the session's root actor hears them from its adapter actors
 * (`conn:<id>`, `link`), a relayed Action or clock (in, out, and the in-flight bookkeeping), the 10 Hz tick (also as
 * the pause order and the pacing charts get it), the round trips and the slots' ping. What changes a state is still
 * written: its snapshot.
 */
export const HOT_EVENTS: ReadonlySet<string> = new Set([
  'conn.frame',
  'link.line',
  'recv.Action',
  'recv.Clock',
  'send.Action',
  'send.PeerClock',
  'tick',
  'clock',
  'rtt.updated',
  'ping.due',
  'stall.settled',
  'clock.relay',
]);

export interface LauncherTrace {
  /** The `inspect` option every root actor of the launcher gets; undefined when tracing is off. */
  inspect: ((event: InspectionEvent) => void) | undefined;
  close(): Promise<void>;
}

/** `also`: a second observer of the same events (the live inspector's feed), called after the recorder. */
export function openLauncherTrace(
  dir: string,
  clock: Pick<Clock, 'now'>,
  log: LogFn,
  env = process.env,
  also?: (event: InspectionEvent) => void,
): LauncherTrace {
  // directInspection: each root's system hands the events over as they are, without XState's copy of each.
  if (env.FEVERLINK3_TRACE === 'off') return { inspect: also && directInspection(also), close: async () => {} };
  const recorder = createTraceRecorder({ dir, clock, log, wallClock: Date.now, hot: HOT_EVENTS });
  const unregister = flushOnFatal(() => recorder.flushSync());
  const record = recorder.inspect;
  return {
    inspect: directInspection(
      also
        ? (event) => {
            record(event);
            also(event);
          }
        : record,
    ),
    close: async () => {
      unregister();
      await recorder.close();
    },
  };
}

export interface LiveInspector {
  /** The page's address (`http://127.0.0.1:PORT/`). */
  url: string;
  /** The observer to give openLauncherTrace as `also`. */
  inspect: (event: InspectionEvent) => void;
  close(): Promise<void>;
}

/** `--inspect PORT`: the inspector's page on 127.0.0.1:PORT (0: any free port), fed live by this launcher's actors. */
export async function startLiveInspector(port: number, clock: Pick<Clock, 'now'>, title: string): Promise<LiveInspector> {
  const feed = createLiveFeed({ now: () => clock.now(), title, hot: HOT_EVENTS });
  try {
    const server = await startInspectorServer(feed, port);
    return { url: server.url, inspect: feed.inspect, close: () => server.close() };
  } catch (error) {
    throw startupError(`serve the inspector on 127.0.0.1:${port}`, error);
  }
}
