// What the host relayed into the games' queues that a resync save may not hold: every Action (pause-order flush items
// included), BuildCommit and BuildVeto the lockstep sent to all, in the host's order, while its stamp may still be
// ahead of a save. A game that loads a save at t takes from its own queue the items the save lacks (stamped after t,
// and the actions and commits stamped t: mod/feverlink3_resync.lua `requeue`); a game that was away, or joined, when
// some of them were relayed does not have them and would leave them out while the others apply them. The round's load
// therefore sends every participant, right after its ResyncLoad, the items of `since(t)`: a game that has one already
// drops the copy as a duplicate (docs/DECISIONS.md "After a resync load the host sends what the save does not hold").
//
// Bounded: items every world game has passed (below the lowest clock `t` of the ready games) can never be above a
// later save's t and are dropped; at most MAX_ITEMS are kept (the oldest go first, logged once). Kept as JSON text
// (wire.ts EncodedMessage: no object tree held for seconds), typed again only when a load asks for them.
import { payloadToJson, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { decodeEncoded, type EncodedMessage, type Message } from '../wire.ts';
import type { LogFn } from '../ports.ts';
import { guarded } from '../supervise.ts';
import type { HostLockstep } from './hostLockstep.ts';

type LockstepContext = ReturnType<HostLockstep['actor']['getSnapshot']>['context'];

export const MAX_ITEMS = 16_384;

type Kept = { readonly message: EncodedMessage; readonly stamp: number | undefined; readonly flush: boolean };

/** A payload's JSON text; HostSender.textOf gives the text its broadcast of that payload just sealed. */
export type TextOf = <K extends KindName>(kind: K, payload: Payloads[K]) => string;

export interface RelayLedger {
  /** The relayed items a save made standing at `t` does not hold, in the order relayed (vetoes with their items). */
  since(t: number): Message[];
  stop(): void;
}

export function attachRelayLedger(lockstep: HostLockstep, log: LogFn, textOf: TextOf = payloadToJson): RelayLedger {
  let kept: Kept[] = [];
  let overflowLogged = false;
  const keep = <K extends 'Action' | 'BuildCommit' | 'BuildVeto'>(kind: K, payload: Payloads[K], stamp: number | undefined, flush: boolean): void => {
    kept.push({ message: { kind, text: textOf(kind, payload) }, stamp, flush });
    if (kept.length % 256 === 0) prune();
    if (kept.length > MAX_ITEMS) {
      kept = kept.slice(kept.length - MAX_ITEMS);
      if (!overflowLogged) log({ msg: 'relay ledger full: the oldest relayed items are forgotten', level: 'warn', kept: MAX_ITEMS });
      overflowLogged = true;
    }
  };
  /** Drops the items stamped below every ready world game's clock (and the vetoes relayed before the first kept item). */
  const prune = (): void => {
    const games = Object.values(lockstep.actor.getSnapshot().context.games).filter((g) => g.ready && g.hasWorld && g.clock);
    if (games.length === 0) return;
    const passed = Math.min(...games.map((g) => g.clock!.t));
    const first = kept.findIndex((k) => k.stamp !== undefined && k.stamp >= passed);
    kept = first < 0 ? kept.filter((k) => k.stamp === undefined).slice(-64) : kept.slice(first);
  };
  // Guarded like every listener of an actor: XState rethrows a listener's throw on a timer (actors/supervise.ts).
  const offs = [
    lockstep.actor.on('send.Action', guarded(log, 'relay ledger', (e) => keep('Action', e.payload, e.payload.stamp, e.payload.pause === true))),
    lockstep.actor.on('send.BuildCommit', guarded(log, 'relay ledger', (e) => keep('BuildCommit', e.payload, e.payload.stamp, false))),
    lockstep.actor.on('send.BuildVeto', guarded(log, 'relay ledger', (e) => {
      if (e.to === 'all') keep('BuildVeto', e.payload, undefined, false);
    })),
  ];
  return {
    since(t) {
      // a flush stamped t was applied standing, before the save; an action or commit stamped t is applied as the
      // games leave t, after it; a veto goes with the item it drops (the host's vetoes of actions it never relayed
      // need no copy)
      // Only the items a load may send are typed again: the ones past t, and the vetoes (to match them to those).
      const typed = new Map<Kept, Message>();
      for (const k of kept) {
        if (k.stamp !== undefined && !(k.stamp > t || (k.stamp === t && !k.flush))) continue;
        const message = decodeEncoded(k.message);
        if (message !== undefined) typed.set(k, message);
        else log({ msg: 'relay ledger: a kept item did not decode; not resent', level: 'error', kind: k.message.kind });
      }
      const keys = new Set<string>();
      for (const [k, message] of typed) if (k.stamp !== undefined) keys.add(keyOf(message));
      const out: Message[] = [];
      for (const [k, message] of typed) if (k.stamp !== undefined || keys.has(vetoedKey(message))) out.push(message);
      return out;
    },
    stop() {
      for (const off of offs) off.unsubscribe();
      kept = [];
    },
  };
}

/**
 * The time a round's save was made at, for `since`: where the saving game stands (its last Clock, or the time its
 * Hello named after its own load: the save's), never below the session's pauseAt. The save is taken where the saving
 * game stands still, which can be past pauseAt (spec "The pause after the load"): full-length simulator seed 668
 * paused at 4000 while a stalled returner's flushes were stamped 8200, every game ran on to 8200 and saved there, and
 * `since(4000)` sent every game the items of 4000..8200 the save held already: applied twice.
 */
export function saveTime(lockstep: Pick<LockstepContext, 'games'>, pauseAt: number | undefined, source: number): number | undefined {
  const game = lockstep.games[source];
  const stands = game?.clock?.t ?? game?.bestT;
  if (stands === undefined) return pauseAt;
  return pauseAt === undefined ? stands : Math.max(pauseAt, stands);
}

/** owner:seq of the action a relayed Action is (from:seq) or a BuildCommit commits (owner:seq). */
function keyOf(message: Message): string {
  const p = message.payload as { from?: number; owner?: number; seq: number };
  return `${message.kind === 'BuildCommit' ? p.owner : (p.from ?? 0)}:${p.seq}`;
}

/** The from:seq a BuildVeto drops (its `owner`'s action `seq`). */
function vetoedKey(message: Message): string {
  const p = message.payload as { owner?: number; seq: number };
  return `${p.owner ?? -1}:${p.seq}`;
}
