// The launcher's bridge between a session and its game's file link (architecture §2): what the host sends
// for the game is written to to_game.log as `<Kind>\t<json>` lines; what the game writes to from_game.log is
// validated as the wire payload of its kind and handed to the session. A line that does not validate, or a
// kind a game may not send (gameLines.ts: a player's kinds but Pong, Leave and the launcher's), is reported and
// skipped; a line whose handling throws is skipped and logged; none of it ends the link or the process. The link's
// health (stalled, recovered, failed) is logged, and a failed link ends the session with its reason.
//
// The link reaches the session only as events (DESIGN.md "Adapters"): its lines, notices and problems become the
// events `link.line`, `link.notice` and `link.problem` of an adapter actor (`gameLinkLogic`, systemId `link`), a child
// of the session's root actor (actors/sessionRouter.ts), which hands each to the bridge's handlers here: the gate
// and the logs, then the session (HostSession.fromLocalGame, PlayerSession.send). The other way, lines for the game
// are written to the link directly (`forwardToGame`), as a connection's writes go to its port.
import { fromCallback, type EventObject } from 'xstate';
import type { HostSession } from '../../actors/host/hostSession.ts';
import type { PlayerSession } from '../../actors/player/playerSession.ts';
import type { GameLinkReport, LogFn } from '../../actors/ports.ts';
import type { GameLinkHandlers } from '../../actors/sessionRouter.ts';
import type { Message } from '../../actors/wire.ts';
import { payloadToJson, type KindName } from '../../protocol/messages/index.ts';
import type { GameLink, LinkNotice, LinkProblem, LinkStatus } from '../fileLink/gameLink.ts';
import type { LinkLine } from '../fileLink/linkLine.ts';
import { BoundedLog, GameLineGate, checkGameLine, type BoundedLogLimits, type GateCounts } from './gameLines.ts';
import { gameForwarder } from './resyncCursor.ts';

export { GAME_MAY_SEND, LAUNCHER_ONLY_KINDS, gameMaySend, GameLineGate, BoundedLog } from './gameLines.ts';

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

/** Bounded logs of failed writes per link (a failed link rejects every later send: one line, then counters). */
const sendFailureLogs = new WeakMap<GameLink, BoundedLog>();

function sendFailureLog(link: GameLink, log: LogFn): BoundedLog {
  let bounded = sendFailureLogs.get(link);
  if (!bounded) {
    bounded = new BoundedLog(log, { firstPerKey: 3 });
    sendFailureLogs.set(link, bounded);
  }
  return bounded;
}

/**
 * Writes one message for the game, if it is a kind the game reads. The link keeps it until it is appended (a
 * stalled link retries); only a failed or closed link, or a payload that cannot be written, loses it: logged.
 */
export function forwardToGame(link: GameLink, message: Message, log: LogFn, view: ClockView = () => ({ rtt: 0, off: 0 })): void {
  if (!TO_GAME_KINDS.has(message.kind)) return;
  let json: unknown;
  try {
    const stamped = stampReceived(message, view);
    json = JSON.parse(payloadToJson(stamped.kind, stamped.payload as never));
  } catch (error) {
    sendFailureLog(link, log).note(`encode:${message.kind}`, { msg: 'line for the game not written', level: 'error', kind: message.kind, error: String(error) });
    return;
  }
  link.send(message.kind, json).catch((error: unknown) => {
    const code = (error as { code?: unknown }).code;
    sendFailureLog(link, log).note(`send:${typeof code === 'string' ? code : 'error'}`, {
      msg: 'to_game.log write failed',
      level: 'error',
      kind: message.kind,
      error: String(error),
    });
  });
}

/**
 * Turns a from_game.log line into a typed message a game may send; undefined (reported) otherwise. With a gate the
 * report is bounded (a refused kind once per kind); without one every skipped line is logged.
 */
export function messageFromGame(kind: string, payload: unknown, log: LogFn, gate?: GameLineGate): Message | undefined {
  if (gate) return gate.take(kind, payload);
  const checked = checkGameLine(kind, payload);
  if (checked.ok) return checked.message;
  log({ msg: 'game line skipped', level: 'warn', kind: kind.slice(0, 64), why: checked.why });
  return undefined;
}

export interface BridgeOptions {
  /**
   * Ends the session when the file link failed (its backlog went over the bound while appends failed): the
   * launcher's stop path. Default: the host stops its session (`host.stop`), a player leaves (`player.leave`).
   */
  end?: (reason: string) => void;
  /** Bounds of the skipped-line log (gameLines.ts DEFAULT_BOUNDED_LOG). */
  logLimits?: Partial<BoundedLogLimits>;
}

/** The bridge's view for the launcher's status: the link's health and what was skipped. */
export interface BridgeStatus {
  link: LinkStatus;
  skipped: GateCounts;
}

/** Stops the bridge (call it); `status()` tells the link's health and the skipped lines. */
export type GameBridge = (() => void) & { status(): BridgeStatus; readonly gate: GameLineGate };

/** The link actor's input: the link, kept out of the trace (its line shows only the folder, `{"dir":…}`). */
export class GameLinkInput {
  readonly dir: string;
  readonly #link: GameLink;

  constructor(link: GameLink) {
    this.dir = link.dir;
    this.#link = link;
  }

  get link(): GameLink {
    return this.#link;
  }
}

/**
 * The file link as an adapter actor (systemId `link`, a child of the session's root actor): its parsed lines, its
 * notices and its problems, in order, as events to the parent. Reading from_game.log starts with this subscription.
 * Stopping the actor unsubscribes.
 */
export const gameLinkLogic = fromCallback<EventObject, GameLinkInput, GameLinkReport<LinkNotice, LinkProblem>>(({ input, sendBack }) => {
  const { link } = input;
  const lines = link.fromGame.subscribe((line) => sendBack({ type: 'link.line', line }));
  const problems = link.problems.subscribe((problem) => sendBack({ type: 'link.problem', problem }));
  const notices = link.notices.subscribe((notice) => sendBack({ type: 'link.notice', notice }));
  return () => {
    lines.unsubscribe();
    problems.unsubscribe();
    notices.unsubscribe();
  };
});

/** The link's notices: logged; a failed link ends the session once. */
function noticeHandler(log: LogFn, end: (reason: string) => void): (notice: LinkNotice) => void {
  let ended = false;
  const safeLog: LogFn = (entry) => {
    try {
      log(entry);
    } catch {
      // a throwing log must not end the subscription
    }
  };
  return (notice) => {
    const log = safeLog;
    switch (notice.type) {
      case 'link.stalled':
        log({ msg: 'file link stalled: lines for the game kept and retried', level: 'error', ...notice });
        break;
      case 'link.recovered':
        log({ msg: 'file link recovered: kept lines written in order', level: 'warn', ...notice });
        break;
      case 'link.closed':
        log({ msg: 'file link closed with lines not written', level: 'warn', ...notice });
        break;
      case 'link.failed':
        log({ msg: 'file link failed: ending the session', level: 'error', ...notice });
        if (!ended) {
          ended = true;
          try {
            end(`file link failed: ${notice.reason}`);
          } catch (error) {
            log({ msg: 'ending the session failed', level: 'error', error: String(error) });
          }
        }
        break;
    }
  };
}

/** What the session's root hands on: every line handled in isolation (a throw skips that line, logged). */
function linkHandlers(
  gate: GameLineGate,
  log: LogFn,
  end: (reason: string) => void,
  deliver: (message: Message, line: LinkLine) => void,
): GameLinkHandlers<LinkNotice, LinkProblem> {
  return {
    line: (line) => {
      try {
        const message = gate.take(line.kind, line.payload);
        if (message) deliver(message, line);
      } catch (error) {
        try {
          gate.fault(line.kind, error);
        } catch {
          // counting a fault must not end the link either
        }
      }
    },
    problem: (p) => {
      try {
        gate.problem(p);
      } catch {
        // logging a problem must not end the link
      }
    },
    notice: noticeHandler(log, end),
  };
}

function makeBridge(link: GameLink, gate: GameLineGate, stops: (() => void)[]): GameBridge {
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const s of stops) s();
  };
  return Object.assign(stop, {
    status: (): BridgeStatus => ({ link: link.status(), skipped: gate.counts() }),
    gate,
  });
}

/** Host: the host's own game is player 0 on the file link. Returns the bridge (call it to stop). */
export function bridgeHostGame(host: HostSession, link: GameLink, log: LogFn, options: BridgeOptions = {}): GameBridge {
  const gate = new GameLineGate(log, options.logLimits);
  const end = options.end ?? ((reason: string) => host.stop('shutdown', `the host's game link failed: ${reason}`.slice(0, 300)));
  const detach = host.attachLink(gameLinkLogic, new GameLinkInput(link), linkHandlers(gate, log, end, (message) => host.fromLocalGame(message)));
  return makeBridge(link, gate, [detach]);
}

/** Player: game lines go to the host sealed with our id; the host's messages for the game go to its file. */
export function bridgePlayerGame(player: PlayerSession, link: GameLink, log: LogFn, options: BridgeOptions = {}): GameBridge {
  const gate = new GameLineGate(log, options.logLimits);
  const end = options.end ?? (() => player.leave());
  // A ResyncLoad is written with the resync cursor after it (resyncCursor.ts).
  const forward = gameForwarder(link, log, () => player.clockView());
  const off = player.on((n) => {
    if (n.type !== 'game') return;
    try {
      forward(n.message);
    } catch (error) {
      gate.log.note(`forward:${n.message.kind}`, { msg: 'line for the game not written', level: 'error', kind: n.message.kind, error: String(error) });
    }
  });
  const handlers = linkHandlers(gate, log, end, (message, line) => {
    if (!player.send(message.kind, message.payload as never)) {
      gate.log.note(`unsent:${line.kind}`, { msg: 'game line not sent (not in a session)', kind: line.kind });
    }
  });
  const detach = player.attachLink(gameLinkLogic, new GameLinkInput(link), handlers);
  return makeBridge(link, gate, [off, detach]);
}
