// The joined players' traffic at the host (spec "Who may send what", "Ping and round-trip time"): a frame of a
// joined connection is checked (its sender is the player bound to the connection, a kind a player may send), opened
// and handled — Pong, Leave and Chat here, a SpeedRequest by the permissions, the rest to the lockstep layer as a
// `game` notice — or dropped (counted, the first of each cause and kind logged); chat is relayed; and the ping
// round tells each slot chart how long its player has not been heard and pings the connected ones. Functions of the
// session's shared state (hostCore.ts).
import type { Frame } from '../../protocol/frame.ts';
import { Kind, isSealedKind, kindName, playerMaySend, type Payloads } from '../../protocol/messages/index.ts';
import { allows } from '../../machines/rules/permissions.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Message } from '../wire.ts';
import { openWith } from '../chunkWire.ts';
import type { HostCore } from './hostCore.ts';
import { slotEvent } from './hostSlotWiring.ts';
import { rttReport, type PlayerLink } from './playerLink.ts';

/** A frame of a joined connection: checked, opened and handled, or dropped. */
export function joinedFrame(core: HostCore, conn: ConnectionHandle, frame: Frame): void {
  const id = core.playerOfConn.get(conn.id);
  const link = id === undefined ? undefined : core.links.get(id);
  if (!link) return;
  const kind = frame.header.kind;
  if (frame.header.sender !== link.id) return drop(core, link, 'sender', kind, { sender: frame.header.sender });
  if (!isSealedKind(kind) || !playerMaySend(kind)) return drop(core, link, 'kind', kind);
  const opened = openWith(core.opener, frame, core.ports.base64);
  if (opened.ok || opened.why === 'not-decoded' || opened.why === 'unknown-kind') {
    // Heard (the silence timer) only once its sender and tag checked out: anyone on the path can write bytes.
    link.rtt = { ...link.rtt, lastHeard: core.ports.clock.now() };
    core.returns.confirm(link.id); // a returner that speaks on its new connection read its Welcome
  }
  if (!opened.ok) return drop(core, link, opened.why === 'not-decoded' || opened.why === 'unknown-kind' ? 'decode' : 'open', kind, { why: opened.detail });
  handle(core, link, opened.message);
}

function drop(core: HostCore, link: PlayerLink, cause: 'sender' | 'kind' | 'open' | 'decode' | 'permission', kind: number, extra: object = {}): void {
  if (link.countDrop(cause, kind)) {
    core.ports.log({ msg: 'frame dropped', player: link.id, cause, kind, kindName: kindName(kind), ...extra });
  }
}

function handle(core: HostCore, link: PlayerLink, message: Message): void {
  switch (message.kind) {
    case 'Pong':
      link.pong(message.payload.n, core.ports.clock.now(), message.payload.w);
      // Pong n: the player read every frame up to Ping n; its outbox lets go of them.
      core.sender.outboxOf(link.id)?.ponged(message.payload.n);
      return;
    case 'Leave':
      slotEvent(core, link.id, { type: 'recv.Leave' });
      return;
    case 'Chat': {
      const entry = core.roster.players.get(link.id);
      if (!entry) return;
      const { text, level } = message.payload;
      chatFrom(core, link.id, entry.name, text, level);
      return;
    }
    case 'SpeedRequest':
      if (!allows(core.permissions, 'speed', link.id)) return drop(core, link, 'permission', Kind.SpeedRequest);
      core.notify({ type: 'game', from: link.id, message });
      return;
    default:
      core.notify({ type: 'game', from: link.id, message });
  }
}

/** A chat line from player `from` (0: the host): relayed to the others and told to the window. */
export function chatFrom(core: HostCore, from: number, name: string, text: string, level?: 'info' | 'warn' | 'error'): void {
  const payload: Payloads['Chat'] = { text, from, name, ...(level ? { level } : {}) };
  core.broadcast('Chat', payload, from);
  core.notify({ type: 'chat', from, name, text, ...(level ? { level } : {}) });
}

/**
 * A frame counter heard from a player as a JSON number (a Ping's `ack`, a resume Welcome's `catchUp`): undefined
 * when nothing was heard, or when the counter is past what a JSON number says exactly (2^53 − 1): only a player that
 * jumped its own counter gets there, an honest one counts from 1, and a rounded number would be refused by the
 * player's decoder (docs/DECISIONS.md "A Ping's ack beyond 2^53 − 1 is left out").
 */
export function exactCounter(highest: bigint): number | undefined {
  return highest > 0n && highest <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(highest) : undefined;
}

/**
 * Pings every connected player, carrying every measured round trip and offset. Each slot chart is told first how
 * long its player has not been heard (`ping.due`); a silent one is dropped as away there (and not pinged).
 */
export function pingAll(core: HostCore): void {
  const now = core.ports.clock.now();
  const { rtt, off } = rttReport(core.links.values());
  for (const link of [...core.links.values()]) {
    slotEvent(core, link.id, { type: 'ping.due', sinceHeard: now - link.rtt.lastHeard });
    if (core.links.get(link.id) !== link) continue;
    const n = link.nextPing(now, core.ports.wallClock());
    // ack: the last frame heard from this player (its own outbox lets go of what it covers)
    const ack = exactCounter(core.opener.highest(link.id));
    core.sendTo(link.id, 'Ping', { n, rtt, ...(Object.keys(off).length ? { off } : {}), ...(ack ? { ack } : {}) });
    core.sender.outboxOf(link.id)?.pinged(n, core.sender.lastCounter);
  }
  core.notify({ type: 'rtt', rtt, off });
}
