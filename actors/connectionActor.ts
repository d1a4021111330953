// `conn:<id>`: one transport connection as an adapter actor (DESIGN.md "Actors", "Adapters"). The port
// (actors/ports.ts Connection) stays here, the transport behind it in adapters/ (TCP, the memory network, later
// Steam); this logic only turns the port's callbacks into events to its parent (the session's root actor,
// actors/sessionRouter.ts) and the parent's commands into calls on the port. Whatever the transport, the sessions
// hear a connection only as these events.
//
// Everything is synchronous: a frame is sent to the parent inside the transport's own data callback, so the
// transport sees its owner's reaction (a close, a kick) before it delivers the next frame of the same chunk, as
// its flood and close rules need. Writes are the hot path (one per frame per receiver) and stay direct calls on
// the port; `conn.write` is here for a holder of the actor alone (docs/DECISIONS.md "Sessions: a connection is an
// actor `conn:<id>`").
import { fromCallback, type ActorRefFrom } from 'xstate';
import type { Frame } from '../protocol/frame.ts';
import type { Connection, ViolationReason } from './ports.ts';

/** What a connection reports to its parent, in the transport's order. `conn` is the connection's id. */
export type ConnectionReport =
  /** One decoded frame (never after the close or a violation). */
  | { type: 'conn.frame'; conn: number; frame: Frame }
  /** A limit was exceeded: the owner sends its final frame and closes (the transport closes it otherwise). */
  | { type: 'conn.violation'; conn: number; reason: ViolationReason }
  /** The connection ended, once, with its first reason. */
  | { type: 'conn.closed'; conn: number; reason: string };

/** What the actor does for its parent. */
export type ConnectionCommand =
  /** Queue bytes on the connection (the sessions write to the port directly: see above). */
  | { type: 'conn.write'; bytes: Uint8Array }
  /** Close once, `final` written first (the first reason wins; a later close only logs, at the transport). */
  | { type: 'conn.close'; reason: string; final?: Uint8Array }
  /** The Join was accepted: lift the handshake's frame limit (Connection.markJoined). */
  | { type: 'conn.joined' };

export interface ConnectionInput {
  conn: Connection;
}

/** The systemId of a connection's actor. */
export const connectionSystemId = (id: number): string => `conn:${id}`;

/**
 * The actor logic of one connection. Its reports go to its parent (`sendBack`); once the actor is stopped they are
 * dropped (XState drops a stopped callback actor's `sendBack`), and the port never calls back after its close.
 */
export const connectionLogic = fromCallback<ConnectionCommand, ConnectionInput, ConnectionReport>(({ input, sendBack, receive }) => {
  const { conn } = input;
  const id = conn.id;
  conn.onFrame((frame) => sendBack({ type: 'conn.frame', conn: id, frame }));
  conn.onViolation((reason) => sendBack({ type: 'conn.violation', conn: id, reason }));
  // Set last: a connection that closed already reports it at once, after the other handlers are in place.
  conn.onClose((reason) => sendBack({ type: 'conn.closed', conn: id, reason }));
  receive((command) => {
    switch (command.type) {
      case 'conn.write':
        conn.write(command.bytes);
        return;
      case 'conn.close':
        conn.close(command.reason, command.final);
        return;
      case 'conn.joined':
        conn.markJoined();
        return;
    }
  });
});

export type ConnectionActorRef = ActorRefFrom<typeof connectionLogic>;

/**
 * A session's hold on one of its connections: what it reads and the commands it gives. Writes go straight to the
 * port (the hot path); close and markJoined are commands to the connection's actor while it runs, so the inspector
 * sees them, and calls on the port itself once the actor has ended (the port then only logs a repeated close).
 * Synchronous as a call on the port: an idle actor handles a command at once, and a session's command finds it idle
 * (it is busy only inside its own command, whose close a session may hear of at once: a second command then follows
 * the first).
 */
export interface ConnectionHandle {
  readonly id: number;
  readonly remoteAddress: string;
  readonly addressKey: string;
  readonly closeReason: string | undefined;
  /** Bytes written but not yet handed to the kernel (0 when the transport does not tell): a save transfer's pace. */
  readonly queuedBytes: number;
  write(bytes: Uint8Array): void;
  /** Connection.uncount: the frame being delivered stops counting against the rate limits (false: nothing given back). */
  uncount(bytes: number): boolean;
  markJoined(): void;
  close(reason: string, finalBytes?: Uint8Array): void;
}

/** The handle of `conn` whose actor `actorOf()` finds (undefined once it ended). */
export function connectionHandle(conn: Connection, actorOf: () => ConnectionActorRef | undefined): ConnectionHandle {
  const running = (): ConnectionActorRef | undefined => {
    const actor = actorOf();
    return actor !== undefined && actor.getSnapshot().status === 'active' ? actor : undefined;
  };
  return {
    id: conn.id,
    remoteAddress: conn.remoteAddress,
    addressKey: conn.addressKey,
    get closeReason() {
      return conn.closeReason;
    },
    get queuedBytes() {
      const queued = (conn as { queuedBytes?: unknown }).queuedBytes;
      return typeof queued === 'number' ? queued : 0;
    },
    write: (bytes) => conn.write(bytes),
    // A direct call, like write: the frame is still being delivered (see the top of this file).
    uncount: (bytes) => conn.uncount?.(bytes) ?? false,
    markJoined: () => {
      const actor = running();
      if (actor) actor.send({ type: 'conn.joined' });
      else conn.markJoined();
    },
    close: (reason, finalBytes) => {
      const actor = conn.closeReason === undefined ? running() : undefined;
      if (actor) actor.send(finalBytes === undefined ? { type: 'conn.close', reason } : { type: 'conn.close', reason, final: finalBytes });
      else conn.close(reason, finalBytes);
    },
  };
}
