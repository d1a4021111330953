// The launcher's bridge between a session and its game's file link (architecture §2): what the host sends
// for the game is written to to_game.log as `<Kind>\t<json>` lines; what the game writes to from_game.log is
// validated as the wire payload of its kind and handed to the session. A line that does not validate, or a
// kind a game may not send, is reported and skipped, never fatal.
import type { HostSession } from '../../actors/host/hostSession.ts';
import type { PlayerSession } from '../../actors/player/playerSession.ts';
import type { LogFn } from '../../actors/ports.ts';
import type { Message } from '../../actors/wire.ts';
import { Kind, payloadToJson, playerMaySend, validatePayload, type KindName } from '../../protocol/messages/index.ts';
import type { GameLink } from '../fileLink/gameLink.ts';

/** The kinds the game reads: everything of the session the mod acts on; never Ping, chunks or reports. */
export const TO_GAME_KINDS: ReadonlySet<KindName> = new Set<KindName>([
  'Session', 'PeerClock', 'PlayerJoined', 'PlayerLeft', 'ChecksumRequest', 'Authority', 'ResyncSave', 'ResyncLoad',
  'Permissions', 'Action', 'Chat', 'BuildVeto', 'BuildCommit',
]);

/** What a receiving launcher knows of its own clock for the latency stamps: round trip and offset to the host. */
export type ClockView = () => { rtt?: number; off?: number };

/**
 * Latency stamps (spec "Latency stamps", logs only): the receiving launcher adds w (when it writes the line),
 * ro and rr (its offset and round trip to the host) to a relayed PeerClock or Action.
 */
function stampReceived(message: Message, view: ClockView): Message {
  if (message.kind !== 'PeerClock' && message.kind !== 'Action') return message;
  const { rtt, off } = view();
  const hop = { ...message.payload.hop, w: Date.now(), ...(off === undefined ? {} : { ro: off }), ...(rtt === undefined ? {} : { rr: rtt }) };
  return { kind: message.kind, payload: { ...message.payload, hop } } as Message;
}

/** Writes one message for the game, if it is a kind the game reads. */
export function forwardToGame(link: GameLink, message: Message, log: LogFn, view: ClockView = () => ({ rtt: 0, off: 0 })): void {
  if (!TO_GAME_KINDS.has(message.kind)) return;
  const stamped = stampReceived(message, view);
  const json = payloadToJson(stamped.kind, stamped.payload as never);
  link.send(stamped.kind, JSON.parse(json)).catch((error: unknown) => log({ msg: 'to_game.log write failed', level: 'error', error: String(error) }));
}

/** Turns a from_game.log line into a typed message a game may send; undefined (reported) otherwise. */
export function messageFromGame(kind: string, payload: unknown, log: LogFn): Message | undefined {
  const code = (Kind as Record<string, number>)[kind];
  if (code === undefined || !playerMaySend(code)) {
    log({ msg: 'game line skipped', level: 'warn', kind, why: 'not a kind a game sends' });
    return undefined;
  }
  const checked = validatePayload(kind as KindName, payload);
  if (!checked.ok) {
    log({ msg: 'game line skipped', level: 'warn', kind, why: checked.reason });
    return undefined;
  }
  const message = { kind, payload: checked.value } as Message;
  // Latency stamps: l = when this launcher read the game's line (the mod may have set g, when it wrote it).
  if (message.kind === 'Clock' || message.kind === 'Action') message.payload.hop = { ...message.payload.hop, l: Date.now() };
  return message;
}

/** Host: the host's own game is player 0 on the file link. Returns the unsubscribe function. */
export function bridgeHostGame(host: HostSession, link: GameLink, log: LogFn): () => void {
  const lines = link.fromGame.subscribe((line) => {
    const message = messageFromGame(line.kind, line.payload, log);
    if (message) host.fromLocalGame(message);
  });
  const problems = link.problems.subscribe((p) => log({ msg: 'file link problem', level: 'warn', ...p }));
  return () => {
    lines.unsubscribe();
    problems.unsubscribe();
  };
}

/** Player: game lines go to the host sealed with our id; the host's messages for the game go to its file. */
export function bridgePlayerGame(player: PlayerSession, link: GameLink, log: LogFn): () => void {
  const off = player.on((n) => {
    if (n.type === 'game') forwardToGame(link, n.message, log, () => player.clockView());
  });
  const lines = link.fromGame.subscribe((line) => {
    const message = messageFromGame(line.kind, line.payload, log);
    if (message && !player.send(message.kind, message.payload as never)) log({ msg: 'game line not sent (not in a session)', kind: line.kind });
  });
  const problems = link.problems.subscribe((p) => log({ msg: 'file link problem', level: 'warn', ...p }));
  return () => {
    off();
    lines.unsubscribe();
    problems.unsubscribe();
  };
}
