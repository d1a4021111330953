// One joined player's slot on the host (spec "Players and slots"; lockstep.md "Leave and removal"): Connected →
// Away → Released. Leave releases the slot at once; a dropped connection holds it (and the name) for the reconnect
// window, then releases it; the host's kick releases it at once (the session sends the sealed Kicked); a player
// that sends nothing authentic for the silence limit is dropped as away; the session's shutdown ends every slot.
// The session does the I/O: it feeds the connection's fate in and turns what this emits into PlayerLeft
// broadcasts, roster changes, logs and notices.
//
// Silence without a timer per frame: the chart never hears about frames. The session's ping timer (one per
// session, every ping interval) sends each connected slot `ping.due` with the time since that player was last
// heard (an authentic frame: its sender and tag checked out); the guard `isSilent` compares it with silenceMs.
// One event per player per ping interval, whatever the frame rate, and the same decision at the same instants
// as the ping round's own check (a player is silent once more than silenceMs passed at a ping).
import { assign, emit, setup } from 'xstate';

/** How long a dropped player's slot and name are held (lockstep.md `reconnectSeconds`: 300 s). */
export const RECONNECT_WINDOW_MS = 300_000;

/** Why a slot is held or released, as the logs and the spec word it. */
export const SLOT_REASON = {
  /** No authentic frame for longer than the silence limit. */
  silent: 'silent',
  /** The player's Leave. */
  left: 'left',
  /** Away for the whole reconnect window. */
  windowEnded: 'reconnect window ended',
} as const;

export interface PlayerSlotInput {
  /** The player's id (the slot's key; never given twice). */
  id: number;
  /** The display name the roster gave the player (held with the slot while away). */
  name: string;
  /** A connected player not heard for longer than this is dropped as away (10 s write timeout + 3 ping intervals). */
  silenceMs: number;
}

export type PlayerSlotEvent =
  /** The connection ended without Leave (peer-closed, write-timeout, reset…): hold the slot. */
  | { type: 'conn.closed'; reason: string }
  /** The player came back on a new connection with a valid resume (spec "Reconnect"): the slot is theirs again. */
  | { type: 'conn.resumed' }
  /** The session's ping round: ms since the player was last heard (authentic frames only). */
  | { type: 'ping.due'; sinceHeard: number }
  /** The player's sealed Leave: released at once. */
  | { type: 'recv.Leave' }
  /** The host ends the player's session (kicked, flood, malformed, internal-error): released at once. */
  | { type: 'cmd.kick'; reason: string; detail?: string }
  /** The session ends: every slot ends, no PlayerLeft. */
  | { type: 'cmd.shutdown'; reason: string; detail: string };

export type PlayerSlotEmitted =
  /** Broadcast PlayerLeft `away: true`, mark the roster entry away; for `silent` the session closes the connection. */
  | { type: 'out.away'; id: number; name: string; reason: string }
  /** Close the connection (with the sealed Kicked when `kicked`), free the slot, broadcast PlayerLeft without `away`. */
  | { type: 'out.released'; id: number; name: string; reason: string; kicked?: { reason: string; detail?: string } }
  /** The session ends while the player is connected: close the connection with the sealed Kicked. */
  | { type: 'out.shutdown'; id: number; name: string; reason: string; detail: string };

export type PlayerSlotOutput = { result: 'released' | 'shutdown'; id: number; reason: string };

interface Context extends PlayerSlotInput {
  /** Why the slot went away (the close reason, or `silent`). */
  awayBecause?: string;
  /** How and why the slot ended. */
  end?: { result: 'released' | 'shutdown'; reason: string };
  /** Set by a kick: the sealed Kicked to send. */
  kicked?: { reason: string; detail?: string };
}

export const playerSlotMachine = setup({
  types: {
    input: {} as PlayerSlotInput,
    context: {} as Context,
    events: {} as PlayerSlotEvent,
    emitted: {} as PlayerSlotEmitted,
    output: {} as PlayerSlotOutput,
  },
  delays: { reconnectWindow: RECONNECT_WINDOW_MS },
  guards: {
    isSilent: ({ context }, p: { sinceHeard: number }) => p.sinceHeard > context.silenceMs,
  },
  actions: {
    noteAway: assign((_, p: { reason: string }) => ({ awayBecause: p.reason })),
    noteBack: assign({ awayBecause: undefined }),
    noteReleased: assign((_, p: { reason: string }) => ({ end: { result: 'released' as const, reason: p.reason } })),
    noteShutdown: assign((_, p: { reason: string }) => ({ end: { result: 'shutdown' as const, reason: p.reason } })),
    noteKick: assign((_, p: { reason: string; detail?: string }) => ({
      end: { result: 'released' as const, reason: p.reason },
      kicked: p.detail === undefined ? { reason: p.reason } : { reason: p.reason, detail: p.detail },
    })),
    emitAway: emit(({ context }) => ({
      type: 'out.away' as const,
      id: context.id,
      name: context.name,
      reason: context.awayBecause ?? 'closed',
    })),
    emitReleased: emit(({ context }) => ({
      type: 'out.released' as const,
      id: context.id,
      name: context.name,
      reason: context.end?.reason ?? SLOT_REASON.left,
      ...(context.kicked ? { kicked: context.kicked } : {}),
    })),
    emitShutdown: emit(({ context }, p: { reason: string; detail: string }) => ({
      type: 'out.shutdown' as const,
      id: context.id,
      name: context.name,
      reason: p.reason,
      detail: p.detail,
    })),
  },
}).createMachine({
  id: 'playerSlot',
  context: ({ input }) => ({ ...input }),
  initial: 'Connected',
  output: ({ context }): PlayerSlotOutput => ({ result: 'released', reason: 'ended', ...context.end, id: context.id }),
  states: {
    Connected: {
      description:
        'Connected: the player (context.name, id context.id) is joined and its connection open; the slot is theirs. ' +
        'A resume while connected (a connection the host had not noticed was dead) changes nothing here. ' +
        'Waits for Leave, a kick, the connection to drop, or a ping round (`ping.due`) finding them silent ' +
        '(not heard for more than context.silenceMs: 10 s + 3 ping intervals).',
      on: {
        'conn.closed': { target: 'Away', actions: { type: 'noteAway', params: ({ event }) => ({ reason: event.reason }) } },
        'ping.due': {
          guard: { type: 'isSilent', params: ({ event }) => ({ sinceHeard: event.sinceHeard }) },
          target: 'Away',
          actions: { type: 'noteAway', params: { reason: SLOT_REASON.silent } },
        },
        'recv.Leave': { target: 'Released', actions: { type: 'noteReleased', params: { reason: SLOT_REASON.left } } },
        'cmd.kick': {
          target: 'Released',
          actions: { type: 'noteKick', params: ({ event }) => ({ reason: event.reason, detail: event.detail }) },
        },
        'cmd.shutdown': {
          target: 'Shutdown',
          actions: [
            { type: 'noteShutdown', params: ({ event }) => ({ reason: event.reason }) },
            { type: 'emitShutdown', params: ({ event }) => ({ reason: event.reason, detail: event.detail }) },
          ],
        },
      },
    },
    Away: {
      description:
        'Away: the connection dropped (or the player fell silent); the slot and the name (context.name, id context.id) ' +
        'are held for the reconnect window (`reconnectWindow`, 300 s unless the session sets another) for that player; ' +
        'a valid resume (`conn.resumed`) gives it back; when the window runs out the slot is released.',
      entry: 'emitAway',
      after: {
        reconnectWindow: { target: 'Released', actions: { type: 'noteReleased', params: { reason: SLOT_REASON.windowEnded } } },
      },
      on: {
        'conn.resumed': { target: 'Connected', actions: 'noteBack' },
        'cmd.shutdown': { target: 'Shutdown', actions: { type: 'noteShutdown', params: ({ event }) => ({ reason: event.reason }) } },
      },
    },
    Released: {
      type: 'final',
      description: 'Released: the slot is free (Leave, kick, or the end of the reconnect window); the id is never given again.',
      entry: 'emitReleased',
    },
    Shutdown: {
      type: 'final',
      description: 'Shutdown: the session ended; no PlayerLeft is sent.',
    },
  },
});
