// One joined player's slot as the host runs it: the playerSlot chart (machines/playerSlot.ts) on the session's
// clock, systemId `slot:<id>`, the reconnect window as its named delay. The session feeds it the connection's fate
// (closed, Leave, kick, a ping round's time since last heard, shutdown) and acts on what it emits. Every listener is
// guarded (XState rethrows a listener's throw on a timer, which would end the process) and the actor has an error
// observer: a fault in the chart is ours, and the session releases the slot itself then.
import { createActor, type Actor } from 'xstate';
import { playerSlotMachine, type PlayerSlotEmitted } from '../../machines/playerSlot.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded } from '../supervise.ts';
import type { InspectionObserver } from './hostTypes.ts';

export type SlotActor = Actor<typeof playerSlotMachine>;

type Emitted<T extends PlayerSlotEmitted['type']> = Extract<PlayerSlotEmitted, { type: T }>;

export interface SlotDeps {
  clock: Clock;
  log: LogFn;
  inspect?: InspectionObserver;
  reconnectWindowMs: number;
  silenceMs: number;
  /** The connection dropped or went silent: hold the slot. */
  away(e: Emitted<'out.away'>): void;
  /** Leave, kick or the end of the window: free the slot. */
  released(e: Emitted<'out.released'>): void;
  /** The session ends while the player is connected. */
  shutdown(e: Emitted<'out.shutdown'>): void;
  /** The chart reached its end (released or shut down): forget the actor. */
  ended(): void;
  /** The chart failed (a fault of ours). */
  failed(err: unknown): void;
}

/** Creates and starts the slot actor of player `id`. */
export function createSlot(id: number, name: string, deps: SlotDeps): SlotActor {
  const machine = playerSlotMachine.provide({ delays: { reconnectWindow: deps.reconnectWindowMs } });
  const actor = createActor(machine, {
    clock: deps.clock,
    systemId: `slot:${id}`,
    ...(deps.inspect ? { inspect: deps.inspect } : {}),
    input: { id, name, silenceMs: deps.silenceMs },
  });
  const what = `slot:${id}`;
  actor.on('out.away', guarded(deps.log, `${what} out.away`, deps.away));
  actor.on('out.released', guarded(deps.log, `${what} out.released`, deps.released));
  actor.on('out.shutdown', guarded(deps.log, `${what} out.shutdown`, deps.shutdown));
  actor.subscribe({
    complete: guarded(deps.log, `${what} complete`, deps.ended),
    error: guarded(deps.log, `${what} error`, deps.failed),
  });
  actor.start();
  return actor;
}
