// The host's accepted connections (DESIGN.md "Actors"): each gets its actor `conn:<id>` under the session's router
// and a handshake actor (hostAdmission.ts); its frame, violation and close events come back through the router and
// are routed here by phase — to the handshake actor, then (joined) to joinedFrames.ts and the player's slot
// (hostSlotWiring.ts) — each supervised: a throw while handling one connection's event is a fault of ours that ends
// that connection only (kicked if joined), never the process or another player. Functions of the session's shared
// state (hostCore.ts).
import type { ConnectionHandle, ConnectionReport } from '../connectionActor.ts';
import type { Connection } from '../ports.ts';
import { stackOf } from '../supervise.ts';
import type { HostCore } from './hostCore.ts';
import { handshakeFrame } from './handshake.ts';
import { createAdmission } from './hostAdmission.ts';
import { dropped } from './hostSlotWiring.ts';
import { joinedFrame } from './joinedFrames.ts';

/** A connection the listener handed out: its actor, its handshake. */
export function acceptConnection(core: HostCore, port: Connection): void {
  if (core.stopped) {
    port.close('shutdown');
    return;
  }
  if (core.conns.has(port.id)) {
    // Two listeners handing out the same id: the actor `conn:<id>` is taken. Never in a session (ids are per process).
    core.ports.log({ msg: 'internal error', conn: port.id, while: 'accept', stack: 'a connection with this id is open' });
    port.close('internal-error');
    return;
  }
  const conn = core.router.handle(port);
  core.conns.set(conn.id, conn);
  const actor = createAdmission(core, conn);
  core.handshakes.set(conn.id, actor);
  // A fault inside the handshake chart (our bug, whatever the peer sent) ends this connection only.
  actor.subscribe({ error: (err) => internalError(core, conn, err, 'handshake') });
  // The connection's actor `conn:<id>`: its frame, violation and close events come back through the router and are
  // routed here by phase (handshake, then joined), each supervised: a throw while handling this connection's event
  // ends this connection, never the process or another player.
  core.router.accept(port);
  actor.start();
}

/** Runs `serve` for connection `id` if the host still has it; a fault of ours while at it is `internalError`'s. */
function serveConn(core: HostCore, id: number, what: string, serve: (conn: ConnectionHandle) => void): void {
  const conn = core.conns.get(id);
  if (conn === undefined) return;
  try {
    serve(conn);
  } catch (err) {
    internalError(core, conn, err, what);
  }
}

/** A frame of an accepted connection: to its handshake actor, or (joined) checked, opened and handled. */
export function connFrame(core: HostCore, e: Extract<ConnectionReport, { type: 'conn.frame' }>): void {
  serveConn(core, e.conn, 'frame', (conn) => {
    const handshake = core.handshakes.get(e.conn);
    if (handshake !== undefined) handshakeFrame(handshake, e.frame);
    else joinedFrame(core, conn, e.frame);
  });
}

export function connViolation(core: HostCore, e: Extract<ConnectionReport, { type: 'conn.violation' }>): void {
  serveConn(core, e.conn, 'violation', (conn) => {
    const handshake = core.handshakes.get(e.conn);
    if (handshake !== undefined) {
      handshake.send(e.reason === 'flood' ? { type: 'conn.flood' } : { type: 'recv.malformed', detail: 'bad frame' });
    } else {
      const id = core.playerOfConn.get(conn.id);
      if (id !== undefined) core.kick(id, e.reason);
      else conn.close(e.reason);
    }
  });
}

export function connClosed(core: HostCore, e: Extract<ConnectionReport, { type: 'conn.closed' }>): void {
  const conn = core.conns.get(e.conn);
  if (conn === undefined) return;
  try {
    core.handshakes.get(e.conn)?.send({ type: 'conn.closed', reason: e.reason });
    const id = core.playerOfConn.get(conn.id);
    core.playerOfConn.delete(conn.id);
    if (id !== undefined) dropped(core, id, e.reason);
  } catch (err) {
    internalError(core, conn, err, 'close');
  } finally {
    core.conns.delete(e.conn);
    core.resuming.delete(e.conn);
  }
}

/** A fault of ours while serving `conn`: logged once with the stack; the player is kicked, or the connection closed. */
export function internalError(core: HostCore, conn: ConnectionHandle, err: unknown, what: string): void {
  if (core.faulted.has(conn.id)) return;
  core.faulted.add(conn.id);
  const id = core.playerOfConn.get(conn.id);
  const stack = stackOf(err);
  core.ports.log({ msg: 'internal error', conn: conn.id, ...(id === undefined ? {} : { player: id }), while: what, stack });
  try {
    if (id !== undefined && core.links.has(id)) core.kick(id, 'internal-error', 'the host failed to handle a message');
    else conn.close('internal-error');
  } catch {
    conn.close('internal-error');
  }
  if (conn.closeReason !== undefined) core.faulted.delete(conn.id);
}
