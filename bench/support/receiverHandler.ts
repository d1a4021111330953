// What a receiver of the host-relay bench does when asked (bench/hostRelay.bench.ts): join a host as a player
// (bench/support/relayPeer.ts), say hello, report what it has seen, run a round, leave. The same handler runs in a
// receiver process (relayReceiver.ts, over IPC) and in the bench's own process (LocalReceiver, for the capacity run).
import { RelayPeer } from './relayPeer.ts';
import type { ReceiverRequest } from './receiverProcess.ts';

export type ReceiverHandler = (request: ReceiverRequest) => Promise<unknown>;

/** A handler with its own sessions, one per host it joined. */
export function receiverHandler(): ReceiverHandler {
  const peers = new Map<string, RelayPeer>();
  const peerOf = (host: string): RelayPeer => {
    const peer = peers.get(host);
    if (!peer) throw new Error(`not joined to host ${host}`);
    return peer;
  };
  return async (request) => {
    switch (request.op) {
      case 'join': {
        const { lean, clockMs } = request;
        const peer = await RelayPeer.join(request.port, Buffer.from(request.keyHex, 'hex'), request.name, { lean, clockMs });
        peers.set(request.host, peer);
        return { you: peer.you };
      }
      case 'hello':
        peerOf(request.host).hello();
        return {};
      case 'status': {
        const peer = peerOf(request.host);
        return {
          peers: [...peer.peersSeen],
          started: peer.startedAt !== undefined,
          ...(peer.endedWith === undefined ? {} : { ended: peer.endedWith }),
          problems: [...peer.problems, ...(peer.player.droppedFrames ? [`${peer.player.droppedFrames} frames dropped`] : [])],
          vetoReasons: Object.fromEntries(peer.vetoReasons),
        };
      }
      case 'round':
        return peerOf(request.host).round(
          request.count,
          request.perSecond,
          request.target,
          request.expect,
          request.timeoutMs,
          request.window,
        );
      case 'leave': {
        peerOf(request.host).close();
        peers.delete(request.host);
        return {};
      }
      case 'close':
        for (const peer of peers.values()) peer.close();
        peers.clear();
        return {};
    }
  };
}
