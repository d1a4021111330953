// A framed connection over a Node TCP socket: the socket's traits (coalescing below its high-water mark, the reset
// error codes, an unref'd linger timer) given to FramedConnection (connection.ts).
import type { Socket } from 'node:net';
import { FramedConnection, type FramedConnectionOptions, type StreamTraits } from './connection.ts';

/** Socket error codes that mean the peer (or the path) tore the connection down. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** How a TcpConnection is set up by listenTcp / connectTcp. */
export interface TcpConnectionOptions extends FramedConnectionOptions {
  socket: Socket;
}

/** A Node socket's traits: coalescing, error codes, an unref'd linger timer (it must not hold the process). */
function socketTraits(socket: Socket): StreamTraits {
  return {
    coalesce: { highWaterMark: socket.writableHighWaterMark },
    errorReason: (error) => {
      const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown';
      return { reason: RESET_CODES.has(code) ? 'reset' : 'socket-error', detail: { code } };
    },
    linger: (destroy, ms) => {
      const timer = setTimeout(destroy, ms);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}

/** One framed TCP connection: a FramedConnection over a Node socket (no delay, small frames coalesced per turn). */
export class TcpConnection extends FramedConnection {
  constructor(options: TcpConnectionOptions) {
    options.socket.setNoDelay(true);
    super(options, options.socket, socketTraits(options.socket));
  }
}
