// The host's admission of a connection in the handshake (spec "Handshake", "Reconnect"): its handshake actor
// (handshake.ts) asks for a slot — a returner whose own slot is still held takes it back; anyone else is held to the
// join rate and seated by the roster — and, once welcomed, the player is seated: the connection is bound to its id
// (sender binding), its slot actor starts (hostSlotWiring.ts), Welcome, Permissions, the others told. A resume is
// seated on the held slot, its catch-up chart (returns.ts) deciding between a resend and a `player returned` round.
// Functions of the session's shared state (hostCore.ts).
import type { Payloads } from '../../protocol/messages/index.ts';
import { permissionsMessage } from '../../machines/rules/permissions.ts';
import * as roster from '../../machines/rules/roster.ts';
import { takeJoin } from '../../machines/rules/joinRate.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import { unsealedFrame, type Message } from '../wire.ts';
import type { OutboxCover } from './outbox.ts';
import type { HostCore } from './hostCore.ts';
import { createHandshake, type HandshakeActor } from './handshake.ts';
import { createSlotActor, slotEvent } from './hostSlotWiring.ts';
import { exactCounter } from './joinedFrames.ts';
import { PlayerLink } from './playerLink.ts';
import { welcomeFor as rosterWelcome } from './hostRoster.ts';

/** Creates (not yet started) the handshake actor of an accepted connection, wired to the session's admission. */
export function createAdmission(core: HostCore, conn: ConnectionHandle): HandshakeActor {
  return createHandshake(conn, {
    crypto: core.ports.crypto,
    clock: core.ports.clock,
    log: core.ports.log,
    key: core.options.key,
    version: core.options.version,
    mods: core.options.mods,
    joinDeadlineMs: core.options.joinDeadlineMs,
    inspect: core.inspect,
    admit: (name, caps, resume) => {
      // A returner whose own slot is still held takes it back: no new id, so neither `full` nor the join rate.
      if (resume !== undefined && core.roster.players.has(resume.id) && core.slots.has(resume.id)) {
        core.resuming.set(conn.id, resume);
        return { ok: true, you: resume.id };
      }
      if (!takeJoin(core.joinRate, conn.addressKey, core.ports.clock.now())) {
        return { ok: false, reason: 'flood', detail: 'too many joins from this address; try again in a minute' };
      }
      const decision = roster.admitPlayer(core.roster, name);
      if (!decision.ok) return decision;
      core.roster = decision.roster;
      if (caps && caps.length > 0) core.capsOf.set(decision.player.id, [...caps]);
      return { ok: true, you: decision.player.id };
    },
    resumeTokens: (id) => core.returns.tokensOf(id),
    welcomed: (you) => {
      const resume = core.resuming.get(conn.id);
      core.resuming.delete(conn.id);
      if (resume) resumeSeat(core, conn, resume.id, resume.last);
      else seat(core, conn, you);
    },
    // Called before `welcomed` (actors/host/handshake.ts): the resume stays noted until the Welcome or the close.
    ended: () => core.handshakes.delete(conn.id),
  });
}

/** The handshake succeeded: bind the id to this connection, Welcome, Permissions, tell the others. */
function seat(core: HostCore, conn: ConnectionHandle, id: number): void {
  const entry = core.roster.players.get(id);
  if (!entry) return;
  if (conn.closeReason !== undefined) {
    core.roster = roster.releaseSlot(core.roster, id);
    return;
  }
  bind(core, conn, id);
  core.slots.set(id, createSlotActor(core, id, entry.name));
  core.sender.openOutbox(id);
  core.sendTo(id, 'Welcome', welcomeFor(core, id, core.sessionPayload(), { resume: core.returns.first(id) }));
  core.sendTo(id, 'Permissions', permissionsMessage(core.permissions));
  core.broadcast('PlayerJoined', { player: { id, name: entry.name, ready: entry.ready } }, id);
  core.ports.log({ msg: 'player joined', id, name: entry.name, conn: conn.id, address: conn.remoteAddress });
  const caps = core.capsOf.get(id);
  core.notify({ type: 'joined', id, name: entry.name, ...(caps ? { caps } : {}) });
  core.notifyRoster();
}

/**
 * A returner's Join resumed its held slot (spec "Reconnect"): the same id, name, slot and permissions on the new
 * connection (one the host has not yet noticed is dead is closed), Welcome `resumed` with a fresh token and the next
 * epoch, and its catch-up chart decides: everything after `last` still in its outbox → Welcome.catchUp and the
 * messages it missed, resent; otherwise a `player returned` round (in a started session).
 */
function resumeSeat(core: HostCore, conn: ConnectionHandle, id: number, last: number | undefined): void {
  const entry = core.roster.players.get(id);
  if (conn.closeReason !== undefined) return; // this connection dropped meanwhile: the slot stays away
  if (!entry) {
    conn.close('released', unsealedFrame('Reject', { reason: 'full', detail: 'the slot was released while you came back: join again' }));
    return;
  }
  const old = core.links.get(id);
  if (old) {
    core.links.delete(id);
    core.playerOfConn.delete(old.conn.id);
    old.conn.close('replaced');
  }
  bind(core, conn, id);
  slotEvent(core, id, { type: 'conn.resumed' });
  core.roster = roster.markConnected(core.roster, id);
  const outbox = core.sender.outboxOf(id);
  outbox?.newConnection();
  const now = core.ports.clock.now();
  const running = core.resyncRunning();
  const highest = core.opener.highest(id);
  const heard = exactCounter(highest);
  const session = core.sessionPayload();
  // A returner of a started session that is not ready still waits for a load (it came back once without a catch-up
  // and dropped again before its `player returned` round, or it never loaded the session's world): a resend cannot
  // give it a world, so it is not caught up, and its round comes (the simulator, seed 335 at the CI sizes: caught up
  // the second time, it stayed not ready, no round came, and its actions were refused for good).
  const waitsForLoad = session.started && entry.ready === false;
  const cover = running
    ? { covers: false as const, why: 'a resync round is running' }
    : waitsForLoad
      ? { covers: false as const, why: 'its game waits for a load' }
      : heard === undefined && highest > 0n
        ? { covers: false as const, why: 'its frame counter is past 2^53 − 1' }
        : lateCheck(core, id, core.sender.coverOf(id, last, now));
  const catchUp = cover.covers ? { catchUp: heard ?? 0 } : {};
  core.sendTo(id, 'Welcome', welcomeFor(core, id, session, { resume: core.returns.next(id), resumed: true, ...catchUp }));
  core.ports.log({ msg: 'player resumed', id, name: entry.name, conn: conn.id, address: conn.remoteAddress, last, catchUp: cover.covers });
  const missed = cover.covers ? cover.messages : [];
  core.returns.start(
    {
      id,
      name: entry.name,
      last,
      outbox: cover.covers ? { covers: true, count: missed.length } : { covers: false, why: cover.why },
      started: session.started,
    },
    {
      resend: () => {
        outbox?.clear();
        core.sender.resend(id, missed);
        welcomeBack(core, id, entry.name, true);
      },
      // Not caught up: a `player returned` round reloads its game (not ready until its Hello after the load); in a
      // session not started nothing ran, so no round and it keeps its ready.
      returned: (_, round) => {
        outbox?.clear();
        if (round) core.roster = roster.setReady(core.roster, id, false);
        welcomeBack(core, id, entry.name, !round);
      },
    },
  );
}

/** A cover whose messages hold a stamp the returner's game may have run past is none (returnStamps.ts). */
function lateCheck(core: HostCore, id: number, cover: OutboxCover<Message>): OutboxCover<Message> {
  if (!cover.covers) return cover;
  const why = core.lateForReturn(id, cover.messages);
  return why === undefined ? cover : { covers: false, why };
}

/** The connection is player `id`'s from now on (sender binding): its frames are opened as that player's. */
function bind(core: HostCore, conn: ConnectionHandle, id: number): void {
  conn.markJoined();
  core.links.set(id, new PlayerLink(id, conn, core.ports.clock.now()));
  core.playerOfConn.set(conn.id, id);
}

/** A Welcome for player `id`: the roster and the session as they are now, with the join's or the resume's fields. */
function welcomeFor(core: HostCore, id: number, session: Payloads['Session'], extra: Partial<Payloads['Welcome']>): Payloads['Welcome'] {
  return rosterWelcome(core.roster, core.options, id, session, extra);
}

/** After a resume: Permissions to the returner, PlayerJoined to the others, the lockstep and the round told. */
function welcomeBack(core: HostCore, id: number, name: string, caughtUp: boolean): void {
  const ready = core.roster.players.get(id)?.ready ?? false;
  core.sendTo(id, 'Permissions', permissionsMessage(core.permissions));
  core.broadcast('PlayerJoined', { player: { id, name, ready } }, id);
  const caps = core.capsOf.get(id);
  if (caughtUp) core.notify({ type: 'returned', id, name, ...(caps ? { caps } : {}) });
  else core.notify({ type: 'joined', id, name, returned: true, ...(caps ? { caps } : {}) });
  core.notifyRoster();
}
