// What the host keeps for players coming back (spec "Reconnect", "Catching up"): each held slot's resume token and
// epoch, and one catch-up actor per returning player (machines/catchUp.ts, systemId `catchUp:<id>`) on the session's
// clock. A resume gets a fresh token with the next epoch, so a token (and a MAC made with it) from an earlier epoch
// never resumes again — once the returner has shown it read that Welcome (its first authentic frame on the new
// connection): until then the previous token still resumes, since a Welcome lost in a second drop would otherwise
// leave the player with a token the host no longer takes. Every listener is guarded (XState rethrows a listener's
// throw on a timer).
import { createActor, type Actor } from 'xstate';
import { catchUpId, catchUpMachine, type CatchUpEvent, type CatchUpInput } from '../../machines/catchUp.ts';
import type { Crypto } from '../../protocol/crypto.ts';
import type { Clock, LogFn } from '../ports.ts';
import { guarded, stackOf } from '../supervise.ts';
import type { InspectionObserver } from './hostTypes.ts';

export type CatchUpActor = Actor<typeof catchUpMachine>;

export interface ResumeToken {
  token: Uint8Array;
  epoch: number;
}

interface Held extends ResumeToken {
  /** The token before the last resume, until the returner shows it read the Welcome with the new one. */
  previous?: Uint8Array;
}

export interface CatchUpHandlers {
  /** Resend what the returner missed (the outbox's messages after `last`), then tell the others and the lockstep. */
  resend(id: number): void;
  /** It cannot be caught up: a hot-join round `player returned` (`round`), or in a session not started only the others told. */
  returned(id: number, round: boolean): void;
}

export class Returns {
  private readonly tokens = new Map<number, Held>();
  /** Ids whose previous token still resumes (a resumed Welcome not yet known to have arrived). */
  private readonly unconfirmed = new Set<number>();
  private readonly catchUps = new Map<number, CatchUpActor>();
  private readonly deps: { crypto: Crypto; clock: Clock; log: LogFn; inspect?: InspectionObserver | undefined };

  constructor(deps: { crypto: Crypto; clock: Clock; log: LogFn; inspect?: InspectionObserver | undefined }) {
    this.deps = deps;
  }

  /** The first Welcome's token for a newly seated player (epoch 0). */
  first(id: number): ResumeToken {
    const token = { token: this.deps.crypto.randomBytes(16), epoch: 0 };
    this.tokens.set(id, token);
    return token;
  }

  /** A resume: a fresh token with the next epoch (the old one never resumes again). */
  next(id: number): ResumeToken {
    const held = this.tokens.get(id);
    const epoch = (held?.epoch ?? -1) + 1;
    const token = { token: this.deps.crypto.randomBytes(16), epoch };
    // The previous token stays good until confirmed: the oldest unconfirmed one if resumes failed in a row.
    const previous = held && (this.unconfirmed.has(id) ? (held.previous ?? held.token) : held.token);
    this.tokens.set(id, { ...token, ...(previous ? { previous } : {}) });
    if (previous) this.unconfirmed.add(id);
    return token;
  }

  /** The tokens that resume slot `id` now: the last Welcome's, and the one before while that Welcome is unconfirmed. */
  tokensOf(id: number): Uint8Array[] {
    const held = this.tokens.get(id);
    if (!held) return [];
    return held.previous && this.unconfirmed.has(id) ? [held.token, held.previous] : [held.token];
  }

  /** An authentic frame from `id` on its resumed connection: it read the Welcome; the previous token is dead. */
  confirm(id: number): void {
    if (this.unconfirmed.size === 0 || !this.unconfirmed.delete(id)) return;
    const held = this.tokens.get(id);
    if (held) delete held.previous;
  }

  /** The slot was released: its token resumes nothing any more, its catch-up ends. */
  forget(id: number, reason: string): void {
    this.tokens.delete(id);
    this.unconfirmed.delete(id);
    this.send(id, { type: 'slot.released', reason });
  }

  /** Starts the catch-up chart of a returner (a previous one of the same player is stopped first). */
  start(input: CatchUpInput, handlers: CatchUpHandlers): CatchUpActor {
    this.catchUps.get(input.id)?.stop();
    const { log } = this.deps;
    const what = catchUpId(input.id);
    const actor = createActor(catchUpMachine, {
      clock: this.deps.clock,
      systemId: what,
      ...(this.deps.inspect ? { inspect: this.deps.inspect } : {}),
      input,
    });
    actor.on('out.resend', guarded(log, `${what} out.resend`, (e) => handlers.resend(e.id)));
    actor.on('out.returned', guarded(log, `${what} out.returned`, (e) => handlers.returned(e.id, e.round)));
    actor.on('out.log', guarded(log, `${what} out.log`, ({ type: _type, ...entry }) => log(entry)));
    actor.subscribe({
      complete: () => {
        if (this.catchUps.get(input.id) === actor) this.catchUps.delete(input.id);
      },
      error: (err) => {
        if (this.catchUps.get(input.id) === actor) this.catchUps.delete(input.id);
        log({ msg: 'internal error', player: input.id, while: what, stack: stackOf(err) });
      },
    });
    this.catchUps.set(input.id, actor);
    actor.start();
    return actor;
  }

  /** The catch-up actor of a returner, while it runs (the inspector and tests observe it). */
  catchUpOf(id: number): CatchUpActor | undefined {
    return this.catchUps.get(id);
  }

  /** Sends a returner's catch-up actor an event, while it runs. */
  send(id: number, event: CatchUpEvent): void {
    const actor = this.catchUps.get(id);
    if (actor?.getSnapshot().status === 'active') actor.send(event);
  }

  stop(): void {
    for (const id of [...this.catchUps.keys()]) this.send(id, { type: 'cmd.shutdown' });
    for (const actor of this.catchUps.values()) actor.stop();
    this.catchUps.clear();
    this.tokens.clear();
    this.unconfirmed.clear();
  }
}
