// A receiver process of the host-relay bench (bench/hostRelay.bench.ts), started by it with
// `node --import tsx bench/support/relayReceiver.ts` and an IPC channel (bench/support/receiverProcess.ts).
// It joins each host it is told to as a player and does what the bench asks over IPC (receiverHandler.ts).
import type { ReceiverReply, ReceiverRequest } from './receiverProcess.ts';
import { receiverHandler } from './receiverHandler.ts';

const handle = receiverHandler();

process.on('message', (raw) => {
  const request = raw as ReceiverRequest;
  handle(request).then(
    (value) => {
      process.send?.({ id: request.id, ok: true, value } satisfies ReceiverReply);
      // Leave frames out before the process goes.
      if (request.op === 'close') setTimeout(() => process.exit(0), 100);
    },
    (error: unknown) => process.send?.({ id: request.id, ok: false, error: String(error) } satisfies ReceiverReply),
  );
});
// The bench gone (its IPC channel closed): nothing more to do here.
process.on('disconnect', () => process.exit(0));
process.send?.({ id: 0, ok: true, value: 'up' } satisfies ReceiverReply);
