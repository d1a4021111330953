// The player's root actor (systemId `player`, actors/sessionRouter.ts) as the PlayerSession runs it: the connection's
// actor `conn:<id>` and the file link `link` are its children, and their reports reach the session only through it.
// Only the current connection's reports count (a frame or a close of a connection a resume left behind is ignored),
// and each handler is supervised: a throw of ours is the session's fault to report (`fault`), which ends only this
// connection.
import type { Frame } from '../../protocol/frame.ts';
import type { ConnectionHandle } from '../connectionActor.ts';
import type { Clock, LogFn } from '../ports.ts';
import type { InspectionObserver } from '../host/hostTypes.ts';
import { createSessionRouter, type SessionRouter } from '../sessionRouter.ts';

export interface PlayerRouterHandlers {
  /** The connection the session uses now (undefined before the first). */
  current(): ConnectionHandle | undefined;
  frame(frame: Frame): void;
  /** The connection broke a transport limit: it closes with this reason. */
  violation(reason: string): void;
  closed(reason: string): void;
  /** A fault of ours while handling a report (`what`: which), or in a child or the root itself. */
  fault(err: unknown, what: string): void;
}

export function createPlayerRouter(
  ports: { clock: Clock; log: LogFn },
  inspect: InspectionObserver | undefined,
  handlers: PlayerRouterHandlers,
): SessionRouter {
  const supervised = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      handlers.fault(err, what);
    }
  };
  return createSessionRouter('player', {
    clock: ports.clock,
    log: ports.log,
    ...(inspect ? { inspect } : {}),
    frame: (e) => {
      if (e.conn === handlers.current()?.id) supervised('frame', () => handlers.frame(e.frame));
    },
    violation: (e) => supervised('violation', () => handlers.violation(e.reason)),
    closed: (e) => {
      if (e.conn === handlers.current()?.id) supervised('close', () => handlers.closed(e.reason));
    },
    connectionFailed: (_id, err) => handlers.fault(err, 'connection'),
    failed: (err) => handlers.fault(err, 'player'),
  });
}
