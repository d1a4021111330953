// Test harness for the host lockstep chart (machines/lockstep.ts): an actor on a SimulatedClock, every emitted
// event recorded in order, and helpers that bring games to a clock the way the actor would feed them. The pause
// order is the lockstep actor's child (machines/pauseOrder.ts): `context()` shows its context as `pauseOrder`.
import { SimulatedClock, createActor } from 'xstate';
import type { Actor } from 'xstate';
import { lockstepMachine, sessionOf } from '../../machines/lockstep.ts';
import type { LockstepContext, LockstepEmitted, LockstepEvent, LockstepInput } from '../../machines/lockstep.ts';
import type { pacingMachine } from '../../machines/pacing.ts';
import type { PauseOrderContext, pauseOrderMachine } from '../../machines/pauseOrder.ts';
import type { ClockPayload } from '../../protocol/messages/index.ts';

export type Emitted = LockstepEmitted;
/** The wire messages among the emitted events. */
export type Sent = Extract<Emitted, { type: `send.${string}` }>;

export function startHost(input: LockstepInput = {}) {
  const clock = new SimulatedClock();
  const actor = createActor(lockstepMachine, { input, clock }).start();
  const out: Emitted[] = [];
  actor.on('*', (event) => out.push(event as Emitted));
  const host = {
    actor,
    clock,
    out,
    send(event: LockstepEvent) {
      actor.send(event);
      return host;
    },
    /** Takes what was emitted since the last take. */
    take(): Emitted[] {
      return out.splice(0);
    },
    /** The wire messages only (no logs). */
    sent(): Sent[] {
      return out.splice(0).filter((e): e is Sent => e.type.startsWith('send.'));
    },
    value: () => actor.getSnapshot().value,
    /** The Session Welcome would carry now. */
    sessionNow: () => sessionOf(actor.getSnapshot().context),
    /** The lockstep's context, with its pause order's (the child's) as `pauseOrder`. */
    context: (): LockstepContext & { pauseOrder: PauseOrderContext } => ({
      ...actor.getSnapshot().context,
      pauseOrder: host.pauseOrder().getSnapshot().context,
    }),
    /** The lockstep actor's pause order (systemId `pauseOrder`). */
    pauseOrder: () => actor.system.get('pauseOrder') as Actor<typeof pauseOrderMachine>,
    /** Game `id`'s pacing actor (systemId `pacing:<id>`), if the game is in the session. */
    pacing: (id: number) => actor.system.get(`pacing:${id}`) as Actor<typeof pacingMachine> | undefined,
    /** A game's Clock with sensible defaults: ahead 2, safe = t + 2 steps. */
    clockOf(from: number, t: number, now: number, extra: Partial<ClockPayload> = {}) {
      const payload: ClockPayload = { t, speed: 1, ahead: 2, safe: t + 400, ...extra };
      return host.send({ type: 'recv.Clock', from, payload, now });
    },
    /** Join (players), Hello and a standing clock at t. */
    ready(from: number, t: number, now = 0) {
      if (from !== 0) host.send({ type: 'game.joined', id: from, now });
      host.send({ type: 'recv.Hello', from, payload: { time: t }, now });
      return host.clockOf(from, t, now, { speed: 0 });
    },
  };
  return host;
}

/** A host whose games `ids` stand at `t` and whose session has started (Running at speed 1 by default). */
export function runningHost(ids: number[], t = 10_000, input: LockstepInput = {}) {
  const host = startHost(input);
  for (const id of ids) host.ready(id, t);
  host.send({ type: 'cmd.start', now: 0 });
  host.take();
  return host;
}

export const ofType = <T extends Emitted['type']>(events: Emitted[], type: T) =>
  events.filter((e): e is Extract<Emitted, { type: T }> => e.type === type);
