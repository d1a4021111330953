// Test harness for the resync round chart (machines/resync.ts): an actor on a SimulatedClock with every emitted
// event recorded, and helpers that drive a round to a given state.
import { createActor, SimulatedClock, type InspectionEvent } from 'xstate';
import { resyncMachine, type ResyncEmitted, type ResyncEvent, type ResyncInput } from '../../machines/resync.ts';

export const EMITTED_TYPES = [
  'out.progress',
  'out.pause',
  'out.save',
  'out.sourceWarning',
  'out.announced',
  'out.load',
  'out.pauseAt',
  'out.loadingTimedOut',
  'out.verify',
  'out.succeeded',
  'out.failed',
  'out.ignored',
] as const;

export const SHA = 'ab'.repeat(32);

export function startResync(input: ResyncInput = {}, machine = resyncMachine) {
  const clock = new SimulatedClock();
  const emitted: ResyncEmitted[] = [];
  /** Every transition taken, as `source --event--> target` by state key ('(always)' for eventless ones). */
  const taken = new Set<string>();
  const inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.microstep') return;
    for (const t of (e as unknown as { _transitions: { source: { key: string }; target?: { key: string }[]; eventType: string }[] })._transitions) {
      taken.add(`${t.source.key} --${t.eventType || '(always)'}--> ${t.target?.[0]?.key ?? t.source.key}`);
    }
  };
  const actor = createActor(machine, { clock, input, systemId: 'resync', inspect });
  for (const type of EMITTED_TYPES) actor.on(type, (e) => emitted.push(e));
  actor.start();
  const send = (...events: ResyncEvent[]) => {
    for (const e of events) actor.send(e);
  };
  const value = () => JSON.stringify(actor.getSnapshot().value);
  const of = <T extends ResyncEmitted['type']>(type: T) => emitted.filter((e): e is Extract<ResyncEmitted, { type: T }> => e.type === type);
  const ctx = () => actor.getSnapshot().context;
  return { actor, clock, emitted, send, value, of, ctx, taken };
}

export type ResyncHarness = ReturnType<typeof startResync>;

/** A started session at speed 2 with players 1 (alice) and 2 (bob). */
export function startedWithTwo(input: ResyncInput = {}, machine = resyncMachine): ResyncHarness {
  const h = startResync(input, machine);
  h.send(
    { type: 'player.joined', id: 1, name: 'alice', capable: true },
    { type: 'player.joined', id: 2, name: 'bob' },
    { type: 'session.started', speed: 2 },
  );
  return h;
}

/** Drives the current round from Pausing through the host's save and the announcement (Sending). */
export function toSending(h: ResyncHarness): void {
  const id = h.ctx().id;
  h.send({ type: 'pause.progress', waitingFor: [], inWorld: h.ctx().players.map((p) => p.id) }, { type: 'recv.SaveDone', from: 0, id, ok: true }, { type: 'cmd.fileReady', id, sha256: SHA, bytes: 1000 });
}

/** … and on to Verifying: every participant sent, every Hello heard. */
export function toVerifying(h: ResyncHarness, time = 5000): void {
  toSending(h);
  const { id, participants } = h.ctx();
  for (const p of participants) h.send({ type: 'transfer.done', id, player: p });
  for (const g of h.ctx().awaiting) h.send({ type: 'recv.Hello', from: g, time });
}
