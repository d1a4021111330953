// A receiver process of the host-relay bench (bench/hostRelay.bench.ts), started by it with
// `node --import tsx bench/support/relayReceiver.ts` and an IPC channel (bench/support/receiverProcess.ts).
// It joins each host it is told to as a player (bench/support/relayPeer.ts), and does what the bench asks over
// IPC: say hello, report what it has seen, run a round (count the relayed Actions, blast its own share).
import { RelayPeer } from './relayPeer.ts';
import type { ReceiverReply, ReceiverRequest } from './receiverProcess.ts';

const peers = new Map<string, RelayPeer>();

function peerOf(host: string): RelayPeer {
  const peer = peers.get(host);
  if (!peer) throw new Error(`not joined to host ${host}`);
  return peer;
}

async function handle(request: ReceiverRequest): Promise<unknown> {
  switch (request.op) {
    case 'join': {
      const peer = await RelayPeer.join(request.port, Buffer.from(request.keyHex, 'hex'), request.name);
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
      // Leave frames out before the process goes.
      setTimeout(() => process.exit(0), 100);
      return {};
  }
}

process.on('message', (raw) => {
  const request = raw as ReceiverRequest;
  handle(request).then(
    (value) => process.send?.({ id: request.id, ok: true, value } satisfies ReceiverReply),
    (error: unknown) => process.send?.({ id: request.id, ok: false, error: String(error) } satisfies ReceiverReply),
  );
});
// The bench gone (its IPC channel closed): nothing more to do here.
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, ok: true, value: 'up' } satisfies ReceiverReply);
