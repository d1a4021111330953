// The wiring of the host's slot actors (one per player holding a slot, systemId `slot:<id>`; slots.ts runs the
// machines/playerSlot.ts chart): what the session feeds a slot (the connection's close, a kick, any event while it
// runs) and what it does with the slot's outputs — away (hold the slot for the reconnect window), released (Leave,
// kick or the end of the window: PlayerLeft, the slot is free), shutdown, and a chart that failed (spec "Players and
// slots"; lockstep.md "Leave and removal"). Functions of the session's shared state (hostCore.ts).
import * as roster from '../../machines/rules/roster.ts';
import type { PlayerSlotEvent } from '../../machines/playerSlot.ts';
import { stackOf } from '../supervise.ts';
import { sealedFrame } from '../wire.ts';
import type { HostCore } from './hostCore.ts';
import { createSlot, type SlotActor } from './slots.ts';

/** Sends a player's slot actor an event, while it runs. */
export function slotEvent(core: HostCore, id: number, event: PlayerSlotEvent): void {
  const slot = core.slots.get(id);
  if (slot?.getSnapshot().status === 'active') slot.send(event);
}

/** The connection dropped without Leave: the slot chart holds the slot for the reconnect window. */
export function dropped(core: HostCore, id: number, reason: string): void {
  if (!core.links.has(id)) return;
  slotEvent(core, id, { type: 'conn.closed', reason });
}

/** The slot actor of a player just seated: its outputs become PlayerLeft broadcasts, roster changes, logs, notices. */
export function createSlotActor(core: HostCore, id: number, name: string): SlotActor {
  const slot = createSlot(id, name, {
    clock: core.ports.clock,
    log: core.ports.log,
    inspect: core.inspect,
    reconnectWindowMs: core.options.reconnectWindowMs,
    silenceMs: core.options.silenceMs,
    away: (e) => away(core, e.id, e.reason),
    released: (e) => {
      const kicked = e.kicked && { reason: e.kicked.reason, ...(e.kicked.detail ? { detail: e.kicked.detail } : {}) };
      release(core, e.id, e.reason, kicked && sealedFrame(core.sealer, 'Kicked', kicked));
    },
    shutdown: (e) => {
      const link = core.links.get(e.id);
      core.links.delete(e.id);
      if (!link) return;
      core.playerOfConn.delete(link.conn.id);
      link.conn.close(e.reason, sealedFrame(core.sealer, 'Kicked', { reason: e.reason, detail: e.detail }));
    },
    ended: () => {
      if (core.slots.get(id) === slot) core.slots.delete(id);
    },
    // The chart failed (our bug): logged with the stack; the slot is released here so it is never held by no one.
    failed: (err) => {
      if (core.slots.get(id) === slot) core.slots.delete(id);
      core.ports.log({ msg: 'internal error', player: id, while: 'slot', stack: stackOf(err) });
      const detail = 'the host failed to handle a message';
      const frame = core.links.has(id) ? sealedFrame(core.sealer, 'Kicked', { reason: 'internal-error', detail }) : undefined;
      release(core, id, 'internal-error', frame);
    },
  });
  return slot;
}

/** The slot chart released the slot (Leave, kick, end of the window): PlayerLeft without `away`, the slot is free. */
function release(core: HostCore, id: number, reason: string, finalFrame?: Uint8Array): void {
  const entry = core.roster.players.get(id);
  const link = core.links.get(id);
  core.links.delete(id);
  if (!entry) return;
  core.roster = roster.releaseSlot(core.roster, id);
  core.capsOf.delete(id);
  core.sender.closeOutbox(id);
  core.returns.forget(id, reason);
  if (link) core.playerOfConn.delete(link.conn.id);
  link?.conn.close(reason, finalFrame);
  core.broadcast('PlayerLeft', { id, name: entry.name });
  core.ports.log({ msg: 'player left', id, name: entry.name, reason });
  core.notify({ type: 'left', id, name: entry.name, away: false });
  core.notifyRoster();
}

/** The slot chart holds the slot (the connection dropped, or the player fell silent: the host closes it then). */
function away(core: HostCore, id: number, reason: string): void {
  const entry = core.roster.players.get(id);
  const link = core.links.get(id);
  if (!link || !entry) return;
  core.links.delete(id);
  core.playerOfConn.delete(link.conn.id);
  if (link.conn.closeReason === undefined) link.conn.close(reason);
  core.roster = roster.markAway(core.roster, id);
  // To the others only: the player's own outbox (its link is gone, so it counts as away) would keep its own
  // PlayerLeft for its return, and a caught-up returner would then list itself as away (the admission races, M2).
  core.broadcast('PlayerLeft', { id, name: entry.name, away: true }, id);
  core.ports.log({ msg: 'player away', id, name: entry.name, reason, holdMs: core.options.reconnectWindowMs });
  core.returns.send(id, { type: 'conn.closed', reason });
  core.notify({ type: 'left', id, name: entry.name, away: true });
  core.notifyRoster();
}
